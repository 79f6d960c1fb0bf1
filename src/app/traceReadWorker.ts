/**
 * The trace reader's worker (a worker_threads worker; esbuild bundles it as
 * dist/traceReadWorker.js): opens a trace file that has no binary companion off the extension
 * host's thread (traceRead.ts is the host's side). It reads the file event by event
 * (src/trace/traceLines.ts), builds what a companion holds (columns, summary, findings, line
 * offsets) and sends it (`opened`); then (when the host asks, or a moment later) it checks
 * whether the file is the canonical text an export writes and, when it is and the trace is large, writes the companion beside it so that
 * the next open reads no JSON (`checked`). A file in another layout or with any problem is
 * answered `other`: the host reads it as before (importTrace names the problem).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readForOpen, type CheckNow, type ReadReply, type ReadRequest } from './traceRead';

const port = parentPort;
if (!port) throw new Error('traceReadWorker.ts runs only as a worker thread');

const send = (msg: ReadReply) => port!.postMessage(msg, msg.kind === 'opened' ? msg.sections.map((s) => s.data) : []);
const checkNow = new Promise<void>((resolve) => port.on('message', (m: CheckNow) => m?.kind === 'check' && resolve()));
readForOpen(workerData as ReadRequest, send, checkNow)
  .catch((e: unknown) => send({ kind: 'other', reason: String(e instanceof Error ? e.message : e).split('\n')[0] }))
  // Done: listening for the host no longer keeps the worker alive, so it ends.
  .finally(() => port.unref());
