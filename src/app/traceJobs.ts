/**
 * The trace reader worker's other jobs (traceReadWorker.ts runs them; traceRead.ts is its open):
 * what would otherwise parse a whole trace file on the extension host's thread.
 *
 * - `count`: what a trace file on disk holds now (a trace editor tells when its file changed):
 *   its event count, or the importer's one-line reason it is no longer a trace, or that it is gone.
 * - `export`: an opened trace whose JSON is not the canonical text (so it cannot be copied)
 *   written from its events, with its companion: the file is read and parsed there, after
 *   checking that it is still the one that was opened.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RecordedEvent } from '../format/events';
import type { Finding, TraceHeader } from '../format/trace';
import { fingerprintOf, sameFingerprint, type Fingerprint } from '../trace/traceCompanion';
import { importTrace, TraceFileError } from '../trace/traceFile';
import { readTraceLines } from '../trace/traceLines';
import { writeTraceWithCompanion } from './traceColumns';
import type { RowsHelper, RowsJob, RowsResult } from './traceRowParts';
import { readTraceColumns } from './traceRows';
import { firstLine } from './errors';

export type JobRequest =
  | { kind: 'count'; path: string }
  | {
      kind: 'export';
      path: string;
      /** The file as it was opened: an export of another content is refused. */
      fingerprint: { size: number; mtimeMs: number; head: Uint8Array; tail: Uint8Array };
      /** The opened trace's event count and last seq (checked against what is read). */
      count: number;
      lastSeq: number;
      dest: string;
      findings: Finding[];
    };

export type JobReply =
  | { kind: 'counted'; events: number }
  /** The file is no longer a trace: the importer's one-line reason. */
  | { kind: 'notATrace'; message: string }
  | { kind: 'gone' }
  | { kind: 'exported'; events: number }
  /** The job could not be done: one line. */
  | { kind: 'failed'; message: string };


/** The trace in the file's bytes: by lines (the exporter's layout) or by importTrace, which throws a TraceFileError. */
function parsed(bytes: Buffer): { header: TraceHeader; events: RecordedEvent[] } {
  return readTraceLines(bytes) ?? importTrace(bytes.toString('utf8'));
}

async function count(path: string): Promise<JobReply> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'gone' } : { kind: 'failed', message: firstLine(e) };
  }
  const columns = readTraceColumns(bytes);
  if (columns) return { kind: 'counted', events: columns.batch.count };
  try {
    return { kind: 'counted', events: importTrace(bytes.toString('utf8')).events.length };
  } catch (e) {
    return e instanceof TraceFileError ? { kind: 'notATrace', message: e.message } : { kind: 'failed', message: firstLine(e) };
  }
}

async function exportFrom(req: Extract<JobRequest, { kind: 'export' }>): Promise<JobReply> {
  const changed: JobReply = { kind: 'failed', message: `the trace file ${req.path} changed on disk since it was opened; reopen it` };
  const opened: Fingerprint = { size: req.fingerprint.size, mtimeMs: req.fingerprint.mtimeMs, head: Buffer.from(req.fingerprint.head), tail: Buffer.from(req.fingerprint.tail) };
  if (!sameFingerprint(opened, await fingerprintOf(req.path))) return changed;
  let trace: { header: TraceHeader; events: RecordedEvent[] };
  try {
    trace = parsed(await readFile(req.path));
  } catch {
    return changed;
  }
  const { header, events } = trace;
  if (events.length !== req.count || (events.length > 0 && events[events.length - 1].seq !== req.lastSeq)) return changed;
  return { kind: 'exported', events: await writeTraceWithCompanion(req.dest, header, events, req.findings) };
}

/** Does the job (on the worker's thread; tests call it here). Never rejects. */
export async function runJob(req: JobRequest): Promise<JobReply> {
  try {
    return req.kind === 'count' ? await count(req.path) : await exportFrom(req);
  } catch (e) {
    return { kind: 'failed', message: firstLine(e) };
  }
}

/** The worker's script: the bundle beside this one, or the source under tsx (tests). */
export function readWorkerScript(file?: string): { file: string; execArgv?: string[] } {
  const bundled = join(__dirname, 'traceReadWorker.js');
  const chosen = file ?? (existsSync(bundled) ? bundled : join(__dirname, 'traceReadWorker.ts'));
  return chosen.endsWith('.ts') ? { file: chosen, execArgv: ['--require', 'tsx/cjs'] } : { file: chosen };
}

/** The job done in a trace reader worker of its own (`workerFile`: its script, default beside this module). Never rejects. */
export function runJobInWorker(req: JobRequest, workerFile?: string): Promise<JobReply> {
  const script = readWorkerScript(workerFile);
  return new Promise((resolve) => {
    let answered = false;
    const answer = (r: JobReply) => {
      if (!answered) resolve(r);
      answered = true;
    };
    try {
      const worker = new Worker(script.file, { workerData: { job: req }, ...(script.execArgv ? { execArgv: script.execArgv } : {}), stdout: false, stderr: false });
      worker.once('message', (m: JobReply) => answer(m));
      worker.on('error', (e) => answer({ kind: 'failed', message: `the trace reader failed (${firstLine(e)})` }));
      worker.on('exit', () => answer({ kind: 'failed', message: 'the trace reader ended without an answer' }));
    } catch (e) {
      answer({ kind: 'failed', message: `the trace reader did not start (${firstLine(e)})` });
    }
  });
}

/**
 * A trace reader worker started now, to decode part of a file's lines once they are known
 * (traceRowParts.ts): its start overlaps the file's read. `helper` posts it the one job
 * (answered undefined when the worker fails or ends without an answer); `cancel` ends a
 * worker that gets no job. `workerFile` as for runJobInWorker.
 */
export function rowsHelperInWorker(workerFile?: string): { helper: RowsHelper; cancel: () => void } {
  const script = readWorkerScript(workerFile);
  let worker: Worker | undefined;
  let answer: (r: RowsResult | 'declined' | undefined) => void = () => undefined;
  const answered = new Promise<RowsResult | 'declined' | undefined>((resolve) => (answer = resolve));
  try {
    worker = new Worker(script.file, { workerData: { rows: true }, ...(script.execArgv ? { execArgv: script.execArgv } : {}), stdout: false, stderr: false });
    worker.once('message', (m: unknown) => answer(m === 'declined' || (typeof m === 'object' && m !== null) ? (m as RowsResult | 'declined') : undefined));
    worker.on('error', () => answer(undefined));
    worker.on('exit', () => answer(undefined));
  } catch {
    answer(undefined);
  }
  return {
    helper: (job: RowsJob) => {
      if (!worker) return Promise.resolve(undefined);
      try {
        worker.postMessage(job);
      } catch {
        answer(undefined);
      }
      return answered;
    },
    cancel: () => void worker?.terminate(),
  };
}
