/**
 * A live session's host in a test: EventBatches attached to a recorder as the engine worker
 * attaches it, each message moved as postMessage moves it (a structured clone that transfers the
 * typed arrays) into a TraceMirror, as workerSession.ts does.
 */
import { EventBatches } from '../../../src/app/eventBatches';
import { TraceMirror } from '../../../src/app/traceMirror';
import type { RecorderStatus } from '../../../src/app/workerProtocol';
import { Chunk } from '../../../src/trace/eventChunk';
import type { TraceRecorder } from '../../../src/trace/recorder';

export interface HostMirror {
  mirror: TraceMirror;
  batches: EventBatches;
  /** The last batch's status. */
  lastStatus(): RecorderStatus | undefined;
}

export function hostMirror(recorder: TraceRecorder, intervalMs?: number, maxEvents?: number): HostMirror {
  const mirror = new TraceMirror(recorder.header(), recorder.header().cap);
  let last: RecorderStatus | undefined;
  const batches = new EventBatches((m, moved) => {
    const got = structuredClone(m, { transfer: moved });
    if (got.type !== 'batch') throw new Error(`a ${got.type} message`);
    mirror.appendPacked(Chunk.fromParts(got.packed), got.firstSeq, got.status);
    last = got.status;
  }, intervalMs, maxEvents);
  batches.attach(recorder);
  return { mirror, batches, lastStatus: () => last };
}
