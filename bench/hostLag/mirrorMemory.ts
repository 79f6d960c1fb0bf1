/**
 * What the extension host holds for a worker session's window: a TraceMirror fed `events`
 * events (default 200,000, the default window) of a busy watch — per watch event its FIFO
 * enqueue and pop, distribute, notification and rv, over 1,000 Pods — in chunks of `chunk`
 * events as the worker sends them, against the same events kept as objects (the mirror before
 * issue 12). Prints JS heap + ArrayBuffer bytes of each, measured after a full GC.
 *
 *   node --expose-gc --import tsx bench/hostLag/mirrorMemory.ts [events] [chunk]
 */
import { TraceMirror } from '../../src/app/traceMirror';
import type { RecordedEvent } from '../../src/format/events';
import { encodeBatch } from '../../src/protocol/eventColumns';
import { traceHeader } from '../../src/app/headers';
import { profileNamed } from '../../src/app/profiles';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function used(): number {
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** The i-th event of a busy watch: five engine events per MODIFIED watch event. */
function event(seq: number): RecordedEvent {
  const n = Math.floor(seq / 6);
  const key = `bench/bench-pod-${n % 1000}`;
  const rv = String(100_000 + n);
  const oldRv = String(99_000 + n);
  const t = seq * 0.1;
  switch (seq % 6) {
    case 0:
      return { seq, t, type: 'watch.event', eventType: 'MODIFIED', key, rv, accepted: true };
    case 1:
      return { seq, t, type: 'rv', rv, source: 'event' };
    case 2:
      return { seq, t, type: 'fifo.enqueue', key, delta: 'Updated', rv, depthKeys: 1, depthDeltas: 1 };
    case 3:
      return { seq, t, type: 'fifo.pop', key, deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 };
    case 4:
      return { seq, t, type: 'distribute', op: 'update', key, isSync: false, delivered: 1, skipped: 0, change: 'status', diff: [{ path: 'status.conditions[1].lastTransitionTime', old: '2026-01-01T00:00:00.000Z', new: '2026-01-01T00:00:01.000Z' }], oldRv, rv };
    default:
      return { seq, t, type: 'notify', handler: 'main', op: 'update', key, rv, oldRv, isSync: false, change: 'status', pending: 0 };
  }
}

function main(): void {
  const total = Number(process.argv[2] ?? 200_000);
  const chunk = Number(process.argv[3] ?? 330);
  const header = { ...traceHeader({ profile: profileNamed('v1.36'), resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }, source: 'cluster', cap: total }), dropped: 0 };

  const base = used();
  const mirror = new TraceMirror(header);
  for (let from = 0; from < total; from += chunk) {
    const batch: RecordedEvent[] = [];
    for (let s = from; s < Math.min(total, from + chunk); s++) batch.push(event(s));
    mirror.append(encodeBatch(batch), { dropped: 0, memoryEvents: Math.min(total, from + chunk), firstSeq: 0 });
  }
  const columns = used() - base;

  const base2 = used();
  const objects: RecordedEvent[] = [];
  for (let s = 0; s < total; s++) objects.push(event(s));
  const asObjects = used() - base2;

  const mb = (b: number) => Math.round(b / 1e5) / 10;
  process.stdout.write(
    `${total} events in chunks of ${chunk}: mirror of column chunks ${mb(columns)} MB (${mirror.chunkCount} chunks, ${Math.round(columns / total)} B/event); ` +
      `the same events as objects ${mb(asObjects)} MB (${Math.round(asObjects / total)} B/event)\n`,
  );
  // Keep both alive until measured.
  if (objects.length + mirror.memoryCount() < 0) process.stdout.write('');
}

main();
