/**
 * Where the time of opening a trace file goes, phase by phase, in Node (no VS Code): read the
 * file, importTrace (JSON.parse and the schema checks; JSON.parse alone beside it), the imported
 * session, its summary and findings, the snapshot's columns (encodeBatch) and the webview model's
 * ingest of them (TimelineData.appendColumns); then the export of the imported events (the JSON
 * alone, and with its binary companion, into the OS temp directory) and an open from that
 * companion (ColumnarTrace.open, no JSON parsed) with the webview's ingest of its columns; last,
 * the worker's steps on this thread (the line reader and encodeBatch against the column reader,
 * src/app/traceRows.ts; summary and findings from the rows; the canonical check), and
 * the open of the JSON in the trace reader's worker (src/app/traceRead.ts: until its columns,
 * summary and findings arrive, then its canonical check and companion, which an export asks for)
 * and the export of that trace (a copy). CPU of the worker thread counts in this process's.
 * CPU ms of this process and wall ms, one run.
 *
 * Run: node --import tsx bench/traceOpenPhases.ts FILE
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ColumnarTrace, companionContentOfBatch, writeTraceWithCompanion } from '../src/app/traceColumns';
import { readTraceColumns } from '../src/app/traceRows';
import { isCanonicalText, readTraceLines } from '../src/trace/traceLines';
import { readTraceInWorker } from '../src/app/traceRead';
import { companionPath } from '../src/trace/traceCompanion';
import { writeTraceFile } from '../src/trace/traceWrite';
import { createSession } from '../src/app/sessions';
import { encodeBatch } from '../src/protocol/eventColumns';
import { importTrace } from '../src/trace/traceFile';
import { SummaryModel } from '../src/trace/summary';
import { TimelineData } from '../webview/model/timelineData';

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const rows: string[] = [];

/** f's result and the longest event-loop delay of this thread (ms, 10 ms resolution) while it ran. */
async function loopDelay<T>(f: () => Promise<T>): Promise<[T, number]> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const r = await f();
  h.disable();
  return [r, Math.round(h.max / 1e6)];
}
async function phase<T>(name: string, f: () => T | Promise<T>): Promise<T> {
  const c = cpu();
  const w = performance.now();
  const r = await f();
  rows.push(`| ${name} | ${Math.round(cpu() - c)} | ${Math.round(performance.now() - w)} |`);
  return r;
}

async function main(): Promise<void> {
  const path = process.argv[2];
  if (!path) throw new Error('usage: node --import tsx bench/traceOpenPhases.ts FILE');
  const text = await phase('read the file (utf8)', () => readFileSync(path, 'utf8'));
  await phase('JSON.parse alone (for comparison)', () => void JSON.parse(text));
  const imported = await phase('importTrace (JSON.parse + schema checks)', () => importTrace(text));
  const session = await phase('imported session (importTrace again inside)', () => createSession('bench', { kind: 'import', name: 'bench', text }));
  await phase('summary', () => session.summary());
  await phase('findings', () => session.findings(true));
  const batch = await phase('encodeBatch (snapshot columns)', () => encodeBatch(session.events()));
  await phase('webview model: appendColumns', () => new TimelineData().appendColumns(batch));
  const dir = mkdtempSync(join(tmpdir(), 'trace-open-phases-'));
  try {
    const out = join(dir, 'out.informer-trace.json');
    await phase('export: the JSON (writeTraceFile of the array)', () => writeTraceFile(out, imported.header, imported.events));
    const same = readFileSync(out, 'utf8') === text;
    await phase('export: the JSON and its companion (writeTraceWithCompanion)', () => writeTraceWithCompanion(out, imported.header, imported.events.slice()));
    const columnar = await phase('open from the companion (ColumnarTrace.open)', () => ColumnarTrace.open(out));
    if (!(columnar instanceof ColumnarTrace)) throw new Error(`the companion was refused: ${columnar.reason}`);
    await phase("webview model: appendColumns of the companion's columns", () => new TimelineData().appendColumns(columnar.batch));
    const copy = join(dir, 'copy.informer-trace.json');
    await phase('export from the companion-opened trace (copy)', () => columnar.exportTo(copy));
    rows.push(`| (the exported JSON is byte-identical to the file: ${same && readFileSync(copy, 'utf8') === text ? 'yes' : 'NO'}) | | |`);
    const json = join(dir, 'from-elsewhere.json');
    writeFileSync(json, text);
    // The worker's steps on this thread: the events by JSON.parse and the schema, then their columns;
    // and the column reader that decodes the lines of the numerous types straight into rows.
    const bytes = readFileSync(json);
    const lines = await phase('line reader: every line JSON.parse + its check (readTraceLines)', () => readTraceLines(bytes));
    if (lines) await phase('… and its columns (encodeBatch)', () => encodeBatch(lines.events));
    const cols = await phase('column reader: lines decoded straight into rows (readTraceColumns)', () => readTraceColumns(bytes));
    if (!cols) throw new Error('the column reader declined the file');
    rows.push(`| (${cols.decoded.toLocaleString('en-US')} of ${cols.batch.count.toLocaleString('en-US')} lines decoded without JSON.parse) | | |`);
    await phase('summary and findings from the rows (companionContentOfBatch)', () => companionContentOfBatch(cols.header, cols.batch, cols.offsets));
    await phase('canonical check of the column reader\'s lines (isCanonicalText)', () => isCanonicalText(cols));
    const worker = join(__dirname, '..', 'dist', 'traceReadWorker.js');
    // The host's event loop meanwhile: the old path blocks it for the whole read; the worker's does not.
    const [, blocked] = await loopDelay(async () => {
      await new Promise((r) => setTimeout(r, 20));
      const t = importTrace(readFileSync(json, 'utf8'));
      new SummaryModel().add(t.events[0]);
      encodeBatch(t.events);
      await new Promise((r) => setTimeout(r, 20));
    });
    rows.push(`| (event-loop delay of this thread while it reads the JSON itself (read, importTrace, encodeBatch): max ${blocked} ms) | | |`);
    const [read, free] = await loopDelay(() => phase('open in the trace reader worker: until columns, summary, findings arrive', () => readTraceInWorker(json, { workerFile: worker, checkAfterMs: 600_000 })));
    rows.push(`| (event-loop delay of this thread while the worker reads it: max ${free} ms) | | |`);
    if (!(read instanceof ColumnarTrace)) throw new Error(`the worker did not read it: ${read.reason}`);
    const workerCopy = join(dir, 'worker-copy.informer-trace.json');
    await phase("export of it: the worker's canonical check and companion, then the copy", () => read.exportTo(workerCopy));
    const check = await read.checked;
    rows.push(`| (canonical: ${check.canonical ? 'yes' : 'NO'}; companion beside the JSON: ${check.companion === companionPath(json) ? 'yes' : 'NO'}; export byte-identical: ${readFileSync(workerCopy, 'utf8') === text ? 'yes' : 'NO'}) | | |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${imported.events.length.toLocaleString('en-US')} events, ${(text.length / 1e6).toFixed(1)} MB\n`);
  console.log(['| phase | CPU ms | wall ms |', '| --- | --- | --- |', ...rows].join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
