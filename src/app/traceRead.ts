/**
 * Opening a trace file that has no binary companion, off the extension host's thread: a worker
 * (traceReadWorker.ts) reads and checks the JSON and sends the timeline's columns, the summary,
 * the findings and each event's line offset; the host holds no event objects. When the file is
 * the canonical text an export writes, an export copies it; when it is also large, the worker
 * writes its companion (docs/trace-format.md, "The binary companion") — in the extension's own
 * storage when the caller names it (`companionDir`), never a surprise file beside the user's trace —
 * so that the next open parses nothing.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { cachedCompanionPath, fingerprintOf, prepareCompanionCache, pruneCompanionCache, sameFingerprint, writeCompanion, type CompanionContent, type Fingerprint } from '../trace/traceCompanion';
import { prepareChecks } from '../trace/traceFile';
import { FileWindow, isCanonicalText, scanTraceLines } from '../trace/traceLines';
import type { Finding } from '../format/trace';
import type { TraceSummary } from '../trace/summary';
import { ColumnarTrace, OFFSETS, contentOf, findingsOfBatch, summaryOfBatch, type ExportElsewhere, type ReadCheck } from './traceColumns';
import { readWorkerScript, runJob, runJobInWorker, type JobReply, type JobRequest } from './traceJobs';
import { decodeRowsJob, readTraceColumnsInParts, type RowsHelper } from './traceRowParts';
import { BlockAssembler, readTraceColumnsInBlocks, type BlockMessage } from './traceBlocks';
import { firstLine } from './errors';

/** A trace with at least this many events gets a companion written when it is opened from its JSON. */
export const COMPANION_MIN_EVENTS = 10_000;
/**
 * The canonical check (a second pass over every event) waits this long after the columns were
 * sent, unless an export asks for it first: meanwhile the host and the webview take the columns
 * and draw them, and the check does not compete with them for a CPU.
 */
export const CHECK_AFTER_MS = 2000;
/**
 * A file of at least this many bytes (about 100,000 events) has its lines decoded on two threads
 * (traceRowParts.ts) when the machine has at least SPLIT_MIN_CPUS cores: below it, a helper's
 * start costs more than it saves.
 */
export const SPLIT_MIN_BYTES = 16 * 1024 * 1024;
/**
 * The cores a machine needs for the second decoding thread: one for each, and one for the
 * extension host and the webview, which boots meanwhile. On 2 cores the helper only competes
 * with them (docs/BENCHMARKS.md, "A large trace's lines on two threads").
 */
export const SPLIT_MIN_CPUS = 3;
/**
 * A file read on one thread sends its columns in blocks of this many rows while it is decoded
 * (traceBlocks.ts), so that the host and the webview take them in beside the decoding; a file of
 * at most this many events goes in one piece (`opened`).
 */
export const BLOCK_LINES = 131_072;

export interface ReadRequest {
  path: string;
  /** Where a companion written for the file goes: this folder (the extension's storage, cachedCompanionPath); without it, beside the file. */
  companionDir?: string;
  companionMinEvents: number;
  checkAfterMs: number;
  /** See SPLIT_MIN_BYTES (default, on a machine of SPLIT_MIN_CPUS cores or more; on fewer, no split unless this is given). */
  splitMinBytes?: number;
  /** Rows per block sent while decoding on one thread (BLOCK_LINES); absent: none, the columns go whole in `opened`. */
  blockLines?: number;
}

/** The size from which a file's lines are decoded on two threads (SPLIT_MIN_BYTES and SPLIT_MIN_CPUS), unless the request names one. */
const splitFrom = (req: ReadRequest): number => req.splitMinBytes ?? (availableParallelism() >= SPLIT_MIN_CPUS ? SPLIT_MIN_BYTES : Infinity);

/** A helper that decodes part of the lines, started when asked; `cancel` ends one that is not used. */
export type StartHelper = () => { helper: RowsHelper; cancel: () => void };

/** The file's bytes in a SharedArrayBuffer (a helper thread reads them without a copy). */
async function readShared(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    await fh.close();
  }
}

/** fn of a FileWindow over the file, closed after (fn reads the file synchronously: this thread may block). */
function withFileWindow<T>(path: string, fn: (w: FileWindow) => T): T {
  const fd = openSync(path, 'r');
  try {
    return fn(new FileWindow(fd, fstatSync(fd).size));
  } finally {
    closeSync(fd);
  }
}

/** The host's one message to the worker: check now (an export waits for it). */
export interface CheckNow {
  kind: 'check';
}

export type ReadReply =
  /** A block of the columns while the lines are decoded (traceBlocks.ts); `opened` follows, or `other` when the file fails after all. */
  | BlockMessage
  /**
   * The columns, summary and line offsets; `findingsLater`: the meta's findings are empty, `findings` follows.
   * `blocks`: the columns came in that many blocks before it (its sections hold the line offsets only, its meta no strings,
   * whole events or summary: the host counts the summary from the blocks as they come).
   */
  | { kind: 'opened'; fingerprint: { size: number; mtimeMs: number; head: Uint8Array; tail: Uint8Array }; meta: CompanionContent['meta']; sections: { name: string; data: ArrayBuffer }[]; findingsLater?: true; blocks?: number }
  /** The findings of the trace `opened` sent (computed after it, off the path to the first frame). */
  | { kind: 'findings'; findings: Finding[] }
  /** Not read here: another layout, a problem the importer names, or a failure (`reason`, one line). */
  | { kind: 'other'; reason?: string }
  | ({ kind: 'checked' } & ReadCheck);


/**
 * What the worker does (run here by tests): reads the file line by line into columns
 * (src/app/traceRows.ts) and sends what a companion holds (`opened`: columns, summary, line
 * offsets; the sections are copies, free to transfer), then the findings (`findings`: what the
 * first frame does not need comes after it); then checks whether the
 * file is the canonical text an export writes and, when it is and the trace has at least
 * `companionMinEvents` events, writes the companion beside it (`checked`) — once `checkNow`
 * resolves or `checkAfterMs` has passed. A file in another layout or with any problem is
 * answered `other`. A file of at least `splitFrom(req)` bytes has the second half of its lines
 * decoded by the helper `startHelper` starts (traceRowParts.ts).
 */
export async function readForOpen(req: ReadRequest, send: (msg: ReadReply) => void, checkNow: Promise<void> = Promise.resolve(), startHelper?: StartHelper): Promise<void> {
  const before = await fingerprintOf(req.path);
  // A large file's helper starts while the file is read.
  const started = startHelper && before.size >= splitFrom(req) ? startHelper() : undefined;
  let lines: Awaited<ReturnType<typeof readTraceColumnsInParts>>;
  let fingerprint: Fingerprint;
  let blocks = 0;
  try {
    if (!started && req.blockLines !== undefined) {
      // On one thread, in blocks: the file read through a window moved over it, never all in
      // memory (the blocks sent before a change is seen are dropped by the host with the `other`).
      prepareChecks();
      const every = req.blockLines;
      const read = withFileWindow(req.path, (w) => {
        const scanned = scanTraceLines(w);
        return scanned && readTraceColumnsInBlocks(scanned, every, send);
      });
      fingerprint = await fingerprintOf(req.path);
      if (!sameFingerprint(before, fingerprint)) return send({ kind: 'other', reason: 'the file changed while it was read' });
      lines = read?.lines;
      blocks = read?.blocks ?? 0;
    } else {
      const reading = readShared(req.path);
      // The schema's checks compile on this thread while the file is read on the I/O pool.
      prepareChecks();
      const bytes = await reading;
      fingerprint = await fingerprintOf(req.path);
      if (!sameFingerprint(before, fingerprint)) return send({ kind: 'other', reason: 'the file changed while it was read' });
      lines = await readTraceColumnsInParts(bytes, started?.helper, 0);
    }
  } finally {
    started?.cancel();
  }
  if (!lines) return send({ kind: 'other' });
  const fp = { size: fingerprint.size, mtimeMs: fingerprint.mtimeMs, head: new Uint8Array(fingerprint.head), tail: new Uint8Array(fingerprint.tail) };
  // The first frame needs the columns and the summary; the findings follow (`findings`).
  let summary: TraceSummary | undefined;
  if (blocks > 0) {
    // The host has the columns, strings and whole events, and counted the summary from them as they came.
    const meta = { count: lines.batch.count, header: lines.header, findings: [], strings: [], extras: [] };
    send({ kind: 'opened', fingerprint: fp, meta, sections: [{ name: OFFSETS, data: lines.offsets.slice().buffer }], findingsLater: true, blocks });
  } else {
    summary = summaryOfBatch(lines.batch);
    const first = contentOf(lines.header, lines.batch, summary, [], lines.offsets);
    const sections = first.sections.map((s) => ({ name: s.name, data: new Uint8Array(s.data.buffer, s.data.byteOffset, s.data.byteLength).slice().buffer }));
    send({ kind: 'opened', fingerprint: fp, meta: first.meta, sections, findingsLater: true });
  }
  const sentAt = Date.now();
  const findings = findingsOfBatch(lines.header, lines.batch);
  send({ kind: 'findings', findings });
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([checkNow, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, req.checkAfterMs - (Date.now() - sentAt)))))]);
  clearTimeout(timer);
  const read = lines;
  let canonical: boolean;
  try {
    // A file read through a window is read again for the check (through a window of its own), unless it changed since.
    if (read.window instanceof FileWindow && !sameFingerprint(fingerprint, await fingerprintOf(req.path))) return send({ kind: 'checked', canonical: false, companionReason: 'the file changed on disk since it was read' });
    canonical = read.window instanceof FileWindow ? withFileWindow(req.path, (w) => isCanonicalText({ ...read, window: w })) : isCanonicalText(read);
  } catch (e) {
    return send({ kind: 'checked', canonical: false, companionReason: firstLine(e) });
  }
  if (!canonical || lines.batch.count < req.companionMinEvents) return send({ kind: 'checked', canonical });
  try {
    if (!sameFingerprint(fingerprint, await fingerprintOf(req.path))) return send({ kind: 'checked', canonical, companionReason: 'the file changed on disk since it was read' });
    if (req.companionDir !== undefined) await prepareCompanionCache(req.companionDir);
    // The companion's summary (after blocks the host counted its own, the same), counted only when it is written.
    const content = contentOf(lines.header, lines.batch, summary ?? summaryOfBatch(lines.batch), findings, lines.offsets);
    const companion = await writeCompanion(req.path, content, req.companionDir !== undefined ? cachedCompanionPath(req.companionDir, req.path) : undefined);
    if (req.companionDir !== undefined) await pruneCompanionCache(req.companionDir);
    send({ kind: 'checked', canonical, ...(companion ? { companion } : { companionReason: 'this machine is big-endian' }) });
  } catch (e) {
    send({ kind: 'checked', canonical, companionReason: firstLine(e) });
  }
}

export interface ReadOptions {
  /** The worker script (default: found beside this module). */
  workerFile?: string;
  companionMinEvents?: number;
  checkAfterMs?: number;
  /** See ReadRequest.companionDir. */
  companionDir?: string;
  /** See ReadRequest.splitMinBytes. */
  splitMinBytes?: number;
  /** Called when the worker has ended. */
  onEnded?: () => void;
  /** See ReadRequest.blockLines (default BLOCK_LINES; 0: no blocks). */
  blockLines?: number;
  /** Each block of the columns as it comes (in order, each one taken: see BlockAssembler); the trace is its blocks only once the answer is a ColumnarTrace. */
  onBlock?: (b: BlockMessage) => void;
}

/** The host's side of the exchange: turns the replies into the opened trace (or why not) and its check. */
function receiver(path: string, hurry: () => void, jobs: (req: JobRequest) => Promise<JobReply>, onBlock?: (b: BlockMessage) => void): { receive: (msg: ReadReply) => void; ended: (reason: string) => void; answer: Promise<ColumnarTrace | { reason?: string }> } {
  let settleCheck: (c: ReadCheck) => void = () => undefined;
  const checked = new Promise<ReadCheck>((resolve) => (settleCheck = resolve));
  let answer: (a: ColumnarTrace | { reason?: string }) => void = () => undefined;
  const answered = new Promise<ColumnarTrace | { reason?: string }>((resolve) => (answer = resolve));
  let opened = false;
  const done = (a: ColumnarTrace | { reason?: string }) => {
    if (!opened) answer(a);
    opened = true;
  };
  // The findings that follow `opened`: a worker that ends or fails before sending them fails them (one line).
  let settleFindings: (f: Finding[] | { reason: string }) => void = () => undefined;
  const lateFindings = new Promise<Finding[]>((resolve, reject) => (settleFindings = (f) => (Array.isArray(f) ? resolve(f) : reject(new Error(f.reason)))));
  // Nobody may ask for them (the open failed): their failure is not an unhandled rejection.
  lateFindings.catch(() => undefined);
  const blocks = new BlockAssembler();
  const receive = (msg: ReadReply) => {
    if (msg.kind === 'block') {
      if (!opened && blocks.add(msg)) onBlock?.(msg);
    } else if (msg.kind === 'findings') {
      settleFindings(msg.findings);
    } else if (msg.kind === 'opened' && !opened) {
      const fp: Fingerprint = { size: msg.fingerprint.size, mtimeMs: msg.fingerprint.mtimeMs, head: Buffer.from(msg.fingerprint.head), tail: Buffer.from(msg.fingerprint.tail) };
      const exportElsewhere: ExportElsewhere = async (dest, opened) => {
        const { fingerprint: f, count, lastSeq, findings } = opened;
        const r = await jobs({ kind: 'export', path, fingerprint: { size: f.size, mtimeMs: f.mtimeMs, head: new Uint8Array(f.head), tail: new Uint8Array(f.tail) }, count, lastSeq, dest, findings });
        return r.kind === 'exported' ? { events: r.events } : { message: r.kind === 'failed' || r.kind === 'notATrace' ? r.message : `the trace reader answered ${r.kind}` };
      };
      const sections = new Map(msg.sections.map((s) => [s.name, s.data]));
      let meta = msg.meta;
      if (msg.blocks !== undefined) {
        const all = blocks.finish(msg.blocks, (msg.meta as { count?: unknown } | undefined)?.count as number);
        if (typeof all === 'string') return done({ reason: `what the trace reader sent cannot be used (${all})` });
        // Shared columns (traceBlocks.ts) are read as the ArrayBuffers a column batch holds (batchArrays admits both).
        for (const [name, data] of all.columns) sections.set(name, data as ArrayBuffer);
        meta = { ...(msg.meta as Record<string, unknown>), strings: all.strings, extras: all.extras, summary: all.summary };
      }
      const trace = ColumnarTrace.fromContent(path, fp, meta, sections, checked, hurry, exportElsewhere, msg.findingsLater ? lateFindings : undefined);
      done(typeof trace === 'string' ? { reason: `what the trace reader sent cannot be used (${trace})` } : trace);
    } else if (msg.kind === 'checked') {
      settleCheck({ canonical: msg.canonical, ...(msg.companion ? { companion: msg.companion } : {}), ...(msg.companionReason ? { companionReason: msg.companionReason } : {}) });
    } else if (msg.kind === 'other') {
      done(msg.reason !== undefined ? { reason: msg.reason } : {});
      settleCheck({ canonical: false });
      settleFindings({ reason: msg.reason ?? 'the trace reader stopped' });
    }
  };
  const ended = (reason: string) => {
    done({ reason });
    settleCheck({ canonical: false });
    settleFindings({ reason });
  };
  return { receive, ended, answer: answered };
}

/**
 * The trace at `path` read in a worker, or `{ reason }` when the worker did not read it (reason
 * undefined: the file is not in the exporter's layout or has a problem; the caller reads the
 * text, and importTrace names the problem). Never rejects.
 */
export function readTraceInWorker(path: string, o: ReadOptions = {}): Promise<ColumnarTrace | { reason?: string }> {
  const script = readWorkerScript(o.workerFile);
  const blockLines = o.blockLines ?? BLOCK_LINES;
  const request: ReadRequest = { path, companionMinEvents: o.companionMinEvents ?? COMPANION_MIN_EVENTS, checkAfterMs: o.checkAfterMs ?? CHECK_AFTER_MS, ...(o.companionDir !== undefined ? { companionDir: o.companionDir } : {}), ...(o.splitMinBytes !== undefined ? { splitMinBytes: o.splitMinBytes } : {}), ...(blockLines > 0 ? { blockLines } : {}) };
  let worker: Worker | undefined;
  const r = receiver(
    path,
    () => {
      try {
        worker?.postMessage({ kind: 'check' } satisfies CheckNow);
      } catch {
        // The worker has ended: its check came or never will (`checked` settled either way).
      }
    },
    (req) => runJobInWorker(req, o.workerFile),
    o.onBlock,
  );
  try {
    worker = new Worker(script.file, { workerData: request, ...(script.execArgv ? { execArgv: script.execArgv } : {}), stdout: false, stderr: false });
    worker.on('message', r.receive);
    worker.on('error', (e) => r.ended(`the trace reader failed (${firstLine(e)})`));
    worker.on('exit', () => {
      r.ended('the trace reader ended without an answer');
      o.onEnded?.();
    });
  } catch (e) {
    r.ended(`the trace reader did not start (${firstLine(e)})`);
  }
  return r.answer;
}

/** readTraceInWorker's answer, read on this thread (tests; the same steps and replies). */
export function readTraceHere(path: string, companionMinEvents = COMPANION_MIN_EVENTS, splitMinBytes?: number, blocks?: { lines: number; onBlock?: (b: BlockMessage) => void }): Promise<ColumnarTrace | { reason?: string }> {
  const r = receiver(path, () => undefined, runJob, blocks?.onBlock);
  // The helper's part on this thread too: the same steps, joined as after two threads.
  const here: StartHelper = () => ({ helper: (job) => Promise.resolve(decodeRowsJob(job)), cancel: () => undefined });
  readForOpen({ path, companionMinEvents, checkAfterMs: 0, ...(splitMinBytes !== undefined ? { splitMinBytes } : {}), ...(blocks ? { blockLines: blocks.lines } : {}) }, r.receive, Promise.resolve(), here).then(
    () => r.ended('the trace reader ended without an answer'),
    (e: unknown) => r.ended(firstLine(e)),
  );
  return r.answer;
}
