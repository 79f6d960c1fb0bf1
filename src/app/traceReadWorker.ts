/**
 * The trace reader's worker (a worker_threads worker; esbuild bundles it as
 * dist/traceReadWorker.js): opens a trace file that has no binary companion off the extension
 * host's thread (traceRead.ts is the host's side). It reads the file event by event
 * (src/trace/traceLines.ts), builds what a companion holds (columns, summary, findings, line
 * offsets) and sends it (`opened`); then (when the host asks, or a moment later) it checks
 * whether the file is the canonical text an export writes and, when it is and the trace is large,
 * writes the companion beside it so that the next open reads no JSON (`checked`). A file in
 * another layout or with any problem is answered `other`: the host reads it as before
 * (importTrace names the problem).
 *
 * Started for one of its other jobs (workerData `{ job }`, traceJobs.ts: count a changed file's
 * events, export a trace that is not canonical), it does that job, answers once and ends. Started
 * as a helper of an open (workerData `{ rows: true }`, traceRowParts.ts), it waits for the part
 * of a file's lines it decodes, answers with their rows (`declined`: a line it does not accept) and ends.
 *
 * After `opened` the thread runs at the lowest CPU priority (Linux: a thread's nice value), so
 * that on a busy machine the check gives way to the host and the webview drawing the columns;
 * when an export asks for the check, the priority is raised back where the system allows it.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { readForOpen, type CheckNow, type ReadReply, type ReadRequest } from './traceRead';
import { runJob, rowsHelperInWorker, type JobRequest } from './traceJobs';
import { decodeRowsJob, type RowsJob } from './traceRowParts';
import { COLUMN_NAMES } from '../protocol/eventColumns';
import { firstLine } from './errors';

const port = parentPort;
if (!port) throw new Error('traceReadWorker.ts runs only as a worker thread');

/** This thread's id for setpriority (Linux: /proc/thread-self is PID/task/TID); undefined elsewhere. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

const tid = threadId();
let normal: number | undefined;

function priority(lowest: boolean): void {
  if (tid === undefined) return;
  try {
    if (lowest) {
      normal = getPriority(tid);
      setPriority(tid, 19);
    } else if (normal !== undefined) {
      setPriority(tid, normal);
    }
  } catch {
    // Raising a priority back needs a privilege the user may not have: the check goes on as it is.
  }
}

const send = (msg: ReadReply) => {
  // A block's columns are SharedArrayBuffers (traceBlocks.ts): shared, not transferred.
  port!.postMessage(msg, msg.kind === 'opened' ? msg.sections.map((s) => s.data) : msg.kind === 'block' ? Object.values(msg.columns).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer) : []);
  if (msg.kind === 'opened') priority(true);
};
const checkNow = new Promise<void>((resolve) =>
  port.on('message', (m: CheckNow) => {
    if (m?.kind !== 'check') return;
    priority(false);
    resolve();
  }),
);
const job = (workerData as { job?: JobRequest }).job;
if ((workerData as { rows?: boolean }).rows) {
  port.once('message', (j: RowsJob) => {
    const r = decodeRowsJob(j);
    port.postMessage(r, r === 'declined' ? [] : [...COLUMN_NAMES.map((c) => r.columns[c]), r.asWritten.buffer as ArrayBuffer]);
    port.unref();
  });
} else if (job) {
  // One of the other jobs (traceJobs.ts): one answer, then the worker ends.
  void runJob(job)
    .then((reply) => port.postMessage(reply))
    .finally(() => port.unref());
} else {
  readForOpen(workerData as ReadRequest, send, checkNow, () => rowsHelperInWorker(__filename))
    .catch((e: unknown) => send({ kind: 'other', reason: firstLine(e) }))
    // Done: listening for the host no longer keeps the worker alive, so it ends.
    .finally(() => port.unref());
}
