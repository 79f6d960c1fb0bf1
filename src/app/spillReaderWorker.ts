/**
 * The spill reader's entry (a worker_threads worker; esbuild bundles it as dist/spillReaderWorker.js,
 * beside the engine worker): one read of an ended session's spill segment (spillRead.ts), sent as
 * one `readSpillOnce`, answered with one `reply` (id 0, the columns transferred), then the worker
 * ends. It holds only the segment reader and the column encoder, so it starts in a fraction of the
 * engine worker's time.
 */
import { parentPort } from 'node:worker_threads';
import { answerSpillCall, spillTransfer } from './spillRead';
import type { WorkerReadOnce, WorkerToHost } from './workerProtocol';

const port = parentPort;
if (!port) throw new Error('spillReaderWorker.ts runs only as a worker thread');

port.once('message', (m: WorkerReadOnce) => {
  void answerSpillCall(m.spill, m.call)
    .then(
      (value): [WorkerToHost, ArrayBuffer[]] => [{ type: 'reply', id: 0, ok: true, value }, spillTransfer(value)],
      (e: unknown): [WorkerToHost, ArrayBuffer[]] => [{ type: 'reply', id: 0, ok: false, message: String(e instanceof Error ? e.message : e).split('\n')[0] }, []],
    )
    .then(([reply, transfer]) => {
      port.postMessage(reply, transfer);
      port.close();
    });
});
