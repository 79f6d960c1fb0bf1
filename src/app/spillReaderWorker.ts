/**
 * The spill reader's entry (a worker_threads worker; esbuild bundles it as dist/spillReaderWorker.js,
 * beside the engine worker): reads of an ended session's spill segment (spillRead.ts), each sent
 * as a `readSpill` and answered with a `reply` of its id (the columns transferred), one after the
 * other. The host ends it when it has waited long enough for the next read (workerSession.ts). It
 * holds only the segment reader and the column encoder, so it starts in a fraction of the engine
 * worker's time.
 */
import { parentPort } from 'node:worker_threads';
import { answerSpillCall, spillTransfer } from './spillRead';
import type { WorkerRead, WorkerToHost } from './workerProtocol';
import { firstLine } from './errors';

const port = parentPort;
if (!port) throw new Error('spillReaderWorker.ts runs only as a worker thread');

port.on('message', (m: WorkerRead) => {
  void answerSpillCall(m.spill, m.call).then(
    (value) => port.postMessage({ type: 'reply', id: m.id, ok: true, value } satisfies WorkerToHost, spillTransfer(value)),
    (e: unknown) => port.postMessage({ type: 'reply', id: m.id, ok: false, message: firstLine(e) } satisfies WorkerToHost),
  );
});
