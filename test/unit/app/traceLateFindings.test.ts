/**
 * A trace opened from its JSON is drawn before its findings are known: the trace reader sends the
 * columns and the summary first and the findings after (src/app/traceRead.ts). Until they arrive
 * the session's findings are "computing" (the snapshot says so), then a delta carries them; an
 * export asked for meanwhile waits for them and writes them into the companion; a reader that
 * ends before sending them fails them with one line.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Finding } from '../../../src/format/trace';
import type { IpcMessage } from '../../../src/protocol/ipc';
import { DeltaNotification, SnapshotNotification } from '../../../src/protocol/timeline';
import { InformerSession } from '../../../src/app/session';
import { ColumnarTrace, companionContentOfBatch } from '../../../src/app/traceColumns';
import { readTraceHere, readTraceInWorker } from '../../../src/app/traceRead';
import { readTraceColumns } from '../../../src/app/traceRows';
import { computeFindings } from '../../../src/trace/findings';
import { fingerprintOf } from '../../../src/trace/traceCompanion';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { TimelineStream } from '../../../src/vscode/timelineStream';
import { ManualTimers } from '../protocol/manualTimers';
import { scenarioTraces } from '../trace/scenarioTraces';


const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

/** A deferred the test settles: the findings the trace reader would send. */
function deferred(): { promise: Promise<Finding[]>; resolve: (f: Finding[]) => void; reject: (e: Error) => void } {
  let resolve: (f: Finding[]) => void = () => undefined;
  let reject: (e: Error) => void = () => undefined;
  const promise = new Promise<Finding[]>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('app: a trace opened from its JSON gets its findings after its columns (traceRead, traceColumns)', () => {
  let dir: string;
  let path: string;
  let text: string;
  let expected: Finding[];
  before(async function () {
    this.timeout(120_000);
    // A conformance trace with findings.
    const withFindings = (await scenarioTraces()).map((x) => x.trace).find((t) => computeFindings(t.header, t.events).length > 0);
    assert.ok(withFindings, 'a conformance trace has findings');
    text = exportTrace(withFindings);
    const imported = importTrace(text);
    expected = computeFindings(imported.header, imported.events);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'late-findings-test-'));
    path = join(dir, 'trace.informer-trace.json');
    writeFileSync(path, text);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The trace as the host holds it after `opened`, its findings still to come (`late`). */
  async function opened(late: Promise<Finding[]>): Promise<ColumnarTrace> {
    const lines = readTraceColumns(new Uint8Array(readFileSync(path)));
    assert.ok(lines);
    const content = companionContentOfBatch(lines.header, lines.batch, lines.offsets);
    const sections = new Map(content.sections.map((s) => [s.name, new Uint8Array(s.data.buffer, s.data.byteOffset, s.data.byteLength).slice().buffer]));
    const meta = { ...(content.meta as Record<string, unknown>), findings: [] };
    const c = ColumnarTrace.fromContent(path, await fingerprintOf(path), meta, sections, Promise.resolve({ canonical: true }), () => undefined, undefined, late);
    assert.ok(c instanceof ColumnarTrace, String(c));
    return c;
  }

  it('the session shows no findings while they are computed (the snapshot says "computing"), then a delta carries them; no JSON is parsed for it', async () => {
    const late = deferred();
    const c = await opened(late.promise);
    const session = new InformerSession({ id: 's1', kind: 'import', title: 'trace', simulated: false, columnar: c });
    // Were the JSON parsed (events() → load()), this file would not be the one opened.
    const load = c.load.bind(c);
    let loads = 0;
    c.load = () => (loads++, load());
    assert.deepEqual(session.findings(), []);
    assert.deepEqual(session.findingsState(), { state: 'computing' });
    const sent: IpcMessage[] = [];
    const timers = new ManualTimers();
    const stream = new TimelineStream((m) => sent.push(m), () => [session.info()], 'nothing', timers, 33);
    stream.show(session);
    stream.prime();
    assert.equal(sent.length, 1);
    assert.ok(SnapshotNotification.is(sent[0]));
    assert.deepEqual(sent[0].params.findings, []);
    assert.deepEqual(sent[0].params.findingsState, { state: 'computing' });
    timers.advance(1000);
    assert.equal(sent.length, 1, 'nothing more while the findings are computed');
    late.resolve(expected);
    await tick(0);
    assert.deepEqual(session.findingsState(), { state: 'ready' });
    assert.deepEqual(session.findings(), expected);
    timers.advance(33);
    assert.equal(sent.length, 2);
    assert.ok(DeltaNotification.is(sent[1]), 'a delta follows when the findings arrive');
    assert.deepEqual(sent[1].params.events, []);
    assert.deepEqual(sent[1].params.findings, expected);
    assert.equal(sent[1].params.findingsState, undefined, 'known findings carry no state');
    assert.equal(sent[1].params.afterSeq, c.lastSeq);
    assert.equal(loads, 0, 'the JSON was not parsed');
    // A snapshot now (the page's first ready is told of the primed one; a second gets a snapshot) carries them.
    stream.onReady();
    stream.onReady();
    const last = sent[sent.length - 1];
    assert.ok(SnapshotNotification.is(last));
    assert.deepEqual(last.params.findings, expected);
    assert.equal(last.params.findingsState, undefined);
    stream.dispose();
  });

  it('an export asked for while the findings are computed waits for them and writes them into the companion', async () => {
    const late = deferred();
    const c = await opened(late.promise);
    const dest = join(dir, 'copy.informer-trace.json');
    let done = false;
    const exporting = c.exportTo(dest).then((n) => ((done = true), n));
    await tick(100);
    assert.equal(done, false, 'the export waits for the findings');
    assert.equal(existsSync(dest), false, 'nothing is written before the findings are known');
    late.resolve(expected);
    assert.equal(await exporting, c.count);
    assert.equal(readFileSync(dest, 'utf8'), text, 'the JSON byte-identical');
    const again = await ColumnarTrace.open(dest);
    assert.ok(again instanceof ColumnarTrace, 'the export has its companion');
    assert.deepEqual(again.findings, expected, 'the companion holds the findings');
    assert.ok(expected.length > 0);
  });

  it('findings that cannot be computed: the session says why (one line), the stream tells the view, an export fails with that line', async () => {
    const late = deferred();
    const c = await opened(late.promise);
    const session = new InformerSession({ id: 's2', kind: 'import', title: 'trace', simulated: false, columnar: c });
    const sent: IpcMessage[] = [];
    const timers = new ManualTimers();
    const stream = new TimelineStream((m) => sent.push(m), () => [session.info()], 'nothing', timers, 33);
    stream.show(session);
    stream.prime();
    const dest = join(dir, 'copy.informer-trace.json');
    const exporting = c.exportTo(dest).then(
      () => 'exported',
      (e: Error) => e.message,
    );
    late.reject(new Error('the trace reader failed (out of memory)\nat somewhere'));
    await tick(0);
    assert.deepEqual(session.findingsState(), { state: 'failed', reason: 'the trace reader failed (out of memory)' });
    assert.deepEqual(session.findings(), []);
    timers.advance(33);
    const last = sent[sent.length - 1];
    assert.ok(DeltaNotification.is(last), 'the view hears of the failure');
    assert.deepEqual(last.params.findings, []);
    assert.deepEqual(last.params.findingsState, { state: 'failed', reason: 'the trace reader failed (out of memory)' });
    assert.equal(await exporting, "the trace's findings could not be computed (the trace reader failed (out of memory)); reopen it");
    assert.equal(existsSync(dest), false);
    stream.dispose();
  });

  it('a trace reader that ends after the columns but before the findings fails them with one line', async () => {
    // A stand-in reader: sends what the real one sends first (`opened`, findings to follow), then ends.
    const lines = readTraceColumns(new Uint8Array(readFileSync(path)));
    assert.ok(lines);
    const content = companionContentOfBatch(lines.header, lines.batch, lines.offsets);
    const fp = await fingerprintOf(path);
    const b64 = (d: ArrayBufferView) => Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64');
    writeFileSync(
      `${path}.opened.json`,
      JSON.stringify({ meta: { ...(content.meta as Record<string, unknown>), findings: [] }, size: fp.size, mtimeMs: fp.mtimeMs, head: b64(fp.head), tail: b64(fp.tail), sections: content.sections.map((s) => ({ name: s.name, b64: b64(s.data) })) }),
    );
    const script = join(dir, 'reader.js');
    writeFileSync(
      script,
      `const { parentPort, workerData } = require('node:worker_threads');
const m = JSON.parse(require('node:fs').readFileSync(workerData.path + '.opened.json', 'utf8'));
const bytes = (s) => { const b = Buffer.from(s, 'base64'); return new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); };
const sections = m.sections.map((s) => ({ name: s.name, data: bytes(s.b64).buffer }));
parentPort.postMessage({ kind: 'opened', fingerprint: { size: m.size, mtimeMs: m.mtimeMs, head: bytes(m.head), tail: bytes(m.tail) }, meta: m.meta, sections, findingsLater: true });
`,
    );
    const c = await readTraceInWorker(path, { workerFile: script, checkAfterMs: 0 });
    assert.ok(c instanceof ColumnarTrace, JSON.stringify(c));
    const reason = await c.findingsReady.then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    assert.equal(reason, 'the trace reader ended without an answer');
    assert.deepEqual(c.findingsState, { state: 'failed', reason: 'the trace reader ended without an answer' });
    await assert.rejects(c.exportTo(join(dir, 'copy.informer-trace.json')), { message: "the trace's findings could not be computed (the trace reader ended without an answer); reopen it" });
  });

  it('the reader sends the findings after the columns and summary: read on this thread, they are the importer\'s', async () => {
    const c = await readTraceHere(path, 0);
    assert.ok(c instanceof ColumnarTrace);
    assert.deepEqual(await c.findingsReady, expected);
    assert.deepEqual(c.findings, expected);
    assert.deepEqual(c.findingsState, { state: 'ready' });
  });
});
