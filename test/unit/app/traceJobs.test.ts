import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ColumnarTrace } from '../../../src/app/traceColumns';
import { readTraceInWorker } from '../../../src/app/traceRead';
import { runJob, runJobInWorker } from '../../../src/app/traceJobs';
import { fingerprintOf } from '../../../src/trace/traceCompanion';
import { exportTrace, importTrace, TraceFileError } from '../../../src/trace/traceFile';
import { header, numbered, SAMPLE_EVENTS } from '../trace/fixtures';
import { traceReadWorkerBundle } from '../../support/traceReadWorker';

const sample = () => ({ header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) });

/** importTrace's message for the text. */
function importMessage(text: string): string {
  try {
    importTrace(text);
  } catch (e) {
    assert.ok(e instanceof TraceFileError);
    return e.message;
  }
  assert.fail('importTrace read it');
}

describe("app: the trace reader worker's other jobs (traceJobs)", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trace-jobs-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("count, in the worker: a trace's events in any layout, the importer's reason for a file that is not one, a file gone", async function () {
    this.timeout(30_000);
    const t = sample();
    const text = exportTrace(t);
    const broken = text.replace('"t":0.5,', '"t":"soon",');
    const cases: [string, string | undefined, object][] = [
      ['the exporter layout', text, { kind: 'counted', events: t.events.length }],
      ['minified', JSON.stringify({ format: 'informer-trace/v1', header: t.header, events: t.events.slice(1) }), { kind: 'counted', events: t.events.length - 1 }],
      ['a schema violation', broken, { kind: 'notATrace', message: importMessage(broken) }],
      ['not JSON', '{"format":', { kind: 'notATrace', message: importMessage('{"format":') }],
      ['gone', undefined, { kind: 'gone' }],
    ];
    for (const [what, content, want] of cases) {
      const path = join(dir, `${what}.json`);
      if (content !== undefined) writeFileSync(path, content);
      assert.deepEqual(await runJobInWorker({ kind: 'count', path }, traceReadWorkerBundle()), want, what);
      assert.deepEqual(await runJob({ kind: 'count', path }), want, `${what} (on this thread)`);
    }
  });

  it('a trace that is not canonical is exported from its events in the worker: the host parses nothing', async function () {
    this.timeout(30_000);
    const text = exportTrace(sample());
    const odd = join(dir, 'odd.informer-trace.json');
    writeFileSync(odd, text.replace('{"seq":0,"t":0,', '{"seq": 0, "t": 0, ').replace(/"msg":"[^"]*"/, '"msg":"Authorization: Bearer sekrit123"'));
    const o = await readTraceInWorker(odd, { workerFile: traceReadWorkerBundle(), companionMinEvents: 0, checkAfterMs: 0 });
    assert.ok(o instanceof ColumnarTrace);
    assert.equal((await o.checked).canonical, false);
    // Parsing the JSON on this thread (load) is what the worker spares it: here it would fail the test.
    o.load = () => assert.fail('the export parsed the trace on the host');
    const out = join(dir, 'out.informer-trace.json');
    assert.equal(await o.exportTo(out), sample().events.length);
    const written = readFileSync(out, 'utf8');
    assert.equal(written, exportTrace(importTrace(readFileSync(odd, 'utf8'))));
    assert.ok(!written.includes('sekrit123') && written.includes('Authorization: [redacted]'), 'the export is redacted');
    assert.ok((await ColumnarTrace.open(out)) instanceof ColumnarTrace, 'with its companion');
  });

  it('an export of a file changed on disk since it was opened is refused with one line, and writes nothing', async function () {
    this.timeout(30_000);
    const text = exportTrace(sample());
    const odd = join(dir, 'odd.informer-trace.json');
    const variant = text.replace('{"seq":0,"t":0,', '{"seq": 0, "t": 0, ');
    writeFileSync(odd, variant);
    const o = await readTraceInWorker(odd, { workerFile: traceReadWorkerBundle(), companionMinEvents: 0, checkAfterMs: 0 });
    assert.ok(o instanceof ColumnarTrace);
    await o.checked;
    const out = join(dir, 'out.informer-trace.json');
    const opened = await fingerprintOf(odd);
    // The same size, another content: the fingerprint's head differs.
    writeFileSync(odd, variant.replace('"seq": 0,', '"seq": 0 ,').replace('"t": 0, ', '"t": 0,'));
    const f = opened;
    const r = await runJobInWorker({ kind: 'export', path: odd, fingerprint: { size: f.size, mtimeMs: f.mtimeMs, head: new Uint8Array(f.head), tail: new Uint8Array(f.tail) }, count: o.count, lastSeq: o.lastSeq, dest: out, findings: [] }, traceReadWorkerBundle());
    assert.deepEqual(r, { kind: 'failed', message: `the trace file ${odd} changed on disk since it was opened; reopen it` });
    assert.equal(existsSync(out), false);
    await assert.rejects(o.exportTo(out), /changed on disk since it was opened; reopen it/);
  });
});
