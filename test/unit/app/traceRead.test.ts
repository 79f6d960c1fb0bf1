import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { RecordedEvent } from '../../../src/format/events';
import { ColumnarTrace } from '../../../src/app/traceColumns';
import { readTraceHere, readTraceInWorker } from '../../../src/app/traceRead';
import { COLUMN_NAMES, decodeBatch, diffForSeq, encodeBatch } from '../../../src/protocol/eventColumns';
import { computeFindings } from '../../../src/trace/findings';
import { SummaryModel } from '../../../src/trace/summary';
import { CACHED_COMPANIONS, cachedCompanionPath, companionPath } from '../../../src/trace/traceCompanion';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { header, numbered, SAMPLE_EVENTS } from '../trace/fixtures';
import { scenarioTraces } from '../trace/scenarioTraces';
import { traceReadWorkerBundle } from '../../support/traceReadWorker';
import { rowsHelperInWorker } from '../../../src/app/traceJobs';
import { decodeRowsJob, type RowsJob } from '../../../src/app/traceRowParts';
import { redactionOf } from '../../../src/app/traceRows';
import { scanTraceLines } from '../../../src/trace/traceLines';

const summaryOf = (events: readonly RecordedEvent[]) => {
  const m = new SummaryModel();
  for (const e of events) m.add(e);
  return m.snapshot();
};

/**
 * The trace read by the worker, or (`here`) by the same steps on this thread; `inParts`: its
 * lines decoded in two parts and joined (the worker's helper thread; here, the helper's part on
 * this thread too).
 */
async function read(path: string, companionMinEvents = 0, here = false, inParts = false): Promise<ColumnarTrace> {
  const splitMinBytes = inParts ? 0 : undefined;
  const c = here ? await readTraceHere(path, companionMinEvents, splitMinBytes) : await readTraceInWorker(path, { workerFile: traceReadWorkerBundle(), companionMinEvents, checkAfterMs: 0, ...(inParts ? { splitMinBytes: 0 } : {}) });
  assert.ok(c instanceof ColumnarTrace, `not read in the worker: ${JSON.stringify(c)}`);
  return c;
}

describe('app: a trace without a companion read in a worker (traceRead)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trace-read-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('every conformance trace (one in 20 through the worker; every other one decoded in two parts, through its helper thread in the worker): the same columns, summary, findings and diffs as the JSON imported, a companion written, an export byte-identical', async function () {
    this.timeout(180_000);
    const sets = [...(await scenarioTraces()).map((x) => x.trace), { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) }];
    for (const [n, trace] of sets.entries()) {
      const path = join(dir, `t${n}.informer-trace.json`);
      const text = exportTrace(trace);
      writeFileSync(path, text);
      const { header: h, events } = importTrace(text);
      const c = await read(path, 0, n % 20 !== 0, n % 2 === 0);
      assert.deepEqual(c.header, h);
      assert.deepEqual(Buffer.from(c.batch.columns.type), Buffer.from(encodeBatch(events).columns.type));
      assert.deepEqual(decodeBatch(c.batch), decodeBatch(encodeBatch(events)));
      assert.deepEqual(c.summary, summaryOf(events));
      // The findings follow the columns (the reader sends them after): the same once they are known.
      assert.deepEqual(await c.findingsReady, computeFindings(h, events));
      assert.deepEqual(c.findings, computeFindings(h, events));
      // Every event with a diff, and the other events of the first 50 (each read opens the file).
      for (const [i, e] of events.entries()) {
        const want = diffForSeq(events, e.seq);
        if (want || i < 50) assert.deepEqual(await c.diffFor(e.seq), want, `trace ${n}: diff of seq ${e.seq}`);
      }
      const check = await c.checked;
      assert.equal(check.canonical, true);
      assert.equal(check.companion, companionPath(path));
      const again = await ColumnarTrace.open(path);
      assert.ok(again instanceof ColumnarTrace, `the written companion is used: ${JSON.stringify(again)}`);
      assert.deepEqual(decodeBatch(again.batch), decodeBatch(c.batch));
      assert.deepEqual(again.findings, c.findings);
      const copy = join(dir, `copy${n}.informer-trace.json`);
      assert.equal(await c.exportTo(copy), events.length);
      assert.equal(readFileSync(copy, 'utf8'), text);
      assert.ok((await ColumnarTrace.open(copy)) instanceof ColumnarTrace, 'the export has its companion');
    }
  });

  it('a small trace gets no companion; one that is not canonical is exported canonical, with a companion', async () => {
    const trace = { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) };
    const text = exportTrace(trace);
    const small = join(dir, 'small.informer-trace.json');
    writeFileSync(small, text);
    const c = await read(small, 1_000_000);
    assert.deepEqual(await c.checked, { canonical: true });
    assert.equal(existsSync(companionPath(small)), false);
    const odd = join(dir, 'odd.informer-trace.json');
    writeFileSync(odd, text.replace('{"seq":0,"t":0,', '{"seq": 0, "t": 0, ').replace(/"msg":"[^"]*"/, '"msg":"Authorization: Bearer sekrit123"'));
    const o = await read(odd);
    assert.equal((await o.checked).canonical, false);
    assert.equal(existsSync(companionPath(odd)), false, 'no companion for a file an export would not copy');
    const out = join(dir, 'out.informer-trace.json');
    await o.exportTo(out);
    const written = readFileSync(out, 'utf8');
    assert.equal(written, exportTrace(importTrace(readFileSync(odd, 'utf8'))));
    assert.ok(!written.includes('sekrit123') && written.includes('Authorization: [redacted]'), 'the export is redacted');
    assert.ok((await ColumnarTrace.open(out)) instanceof ColumnarTrace);
  });

  it('the check waits for a moment, or for an export, which asks for it at once; the worker then ends', async () => {
    const path = join(dir, 't.informer-trace.json');
    const text = exportTrace({ header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) });
    writeFileSync(path, text);
    let ended = false;
    const c = await readTraceInWorker(path, { workerFile: traceReadWorkerBundle(), companionMinEvents: 0, checkAfterMs: 600_000, onEnded: () => (ended = true) });
    assert.ok(c instanceof ColumnarTrace);
    let settled = false;
    void c.checked.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled, false, 'no check before its time');
    const out = join(dir, 'out.informer-trace.json');
    const t0 = Date.now();
    await c.exportTo(out);
    assert.ok(Date.now() - t0 < 15_000, 'the export asked for the check');
    assert.equal(readFileSync(out, 'utf8'), text);
    assert.equal((await c.checked).companion, companionPath(path));
    for (let i = 0; i < 100 && !ended; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(ended, true, 'the worker ended after its check');
  });

  it("with companionDir (the extension's storage) the companion goes there, not beside the trace; the next open finds it; the cache keeps its newest", async () => {
    const cache = join(dir, 'cache');
    const text = exportTrace({ header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) });
    const paths = [0, 1, 2, 3, 4, 5].map((i) => join(dir, `c${i}.informer-trace.json`));
    for (const [i, path] of paths.entries()) {
      writeFileSync(path, text);
      const c = await readTraceInWorker(path, { workerFile: traceReadWorkerBundle(), companionMinEvents: 0, checkAfterMs: 0, companionDir: cache });
      assert.ok(c instanceof ColumnarTrace);
      const check = await c.checked;
      assert.equal(check.companion, cachedCompanionPath(cache, path), `trace ${i}`);
      assert.equal(existsSync(companionPath(path)), false, 'nothing written beside the trace');
      assert.equal(existsSync(cachedCompanionPath(cache, path)), true);
      await new Promise((r) => setTimeout(r, 20));
    }
    const last = paths[paths.length - 1];
    const again = await ColumnarTrace.open(last, cache);
    assert.ok(again instanceof ColumnarTrace, 'the next open reads the cached companion');
    assert.deepEqual(await ColumnarTrace.open(last), { reason: undefined }, 'without the folder there is none');
    assert.deepEqual(readdirSync(cache).sort(), paths.slice(-CACHED_COMPANIONS).map((p) => basename(cachedCompanionPath(cache, p))).sort(), 'the newest are kept');
    // A changed file does not take the old companion.
    writeFileSync(last, exportTrace({ header: header(), events: numbered(Object.values(SAMPLE_EVENTS).slice(1)) }));
    assert.equal((await ColumnarTrace.open(last, cache)) instanceof ColumnarTrace, false);
  });

  it('other layouts and malformed files are left to the importer; a missing file is one reason', async () => {
    const trace = { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) };
    const cases: [string, string][] = [
      ['minified', JSON.stringify({ format: 'informer-trace/v1', header: trace.header, events: trace.events })],
      ['cut short', exportTrace(trace).slice(0, 500)],
      ['not JSON', 'hello'],
      ['empty', ''],
    ];
    for (const [what, text] of cases) {
      const path = join(dir, `${what}.informer-trace.json`);
      writeFileSync(path, text);
      assert.deepEqual(await readTraceInWorker(path, { workerFile: traceReadWorkerBundle() }), {}, what);
    }
    const gone = await readTraceInWorker(join(dir, 'none.json'), { workerFile: traceReadWorkerBundle() });
    assert.ok(!(gone instanceof ColumnarTrace) && /ENOENT|no such file/.test(gone.reason ?? ''), JSON.stringify(gone));
  });

  it("a large file's helper thread decodes its part of the lines from the shared bytes: what the same job gives on this thread", async function () {
    this.timeout(60_000);
    const text = exportTrace({ header: header(), events: numbered(Array.from({ length: 40 }, () => Object.values(SAMPLE_EVENTS)).flat()) });
    const shared = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)));
    shared.set(Buffer.from(text, 'utf8'));
    const lines = scanTraceLines(shared)!;
    const from = Math.floor(lines.offsets.length / 3);
    const job: RowsJob = { bytes: shared, ascii: lines.ascii, offsets: lines.offsets.slice(from), ends: lines.ends.slice(from), redaction: redactionOf(lines.header) };
    const started = rowsHelperInWorker(traceReadWorkerBundle());
    const got = await started.helper(job);
    started.cancel();
    const want = decodeRowsJob(job);
    assert.ok(got !== undefined && got !== 'declined' && want !== 'declined', `the helper answered ${String(got)}`);
    for (const c of COLUMN_NAMES) assert.ok(Buffer.from(got.columns[c]).equals(Buffer.from(want.columns[c])), `column ${c}`);
    assert.deepEqual(got.strings, want.strings);
    assert.equal(got.decoded, want.decoded);
    assert.deepEqual([...got.asWritten], [...want.asWritten]);
    // A line it does not accept: declined, not failed.
    const broken = new Uint8Array(new SharedArrayBuffer(shared.length));
    broken.set(shared);
    broken[lines.offsets[lines.offsets.length - 1] + 1] = 0x78;
    const other = rowsHelperInWorker(traceReadWorkerBundle());
    assert.equal(await other.helper({ ...job, bytes: broken }), 'declined');
    other.cancel();
  });
});
