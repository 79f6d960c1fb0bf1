import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../../src/format/events';
import { createSession } from '../../../src/app/sessions';
import { ColumnarTrace, writeTraceWithCompanion } from '../../../src/app/traceColumns';
import { decodeBatch, diffForSeq, encodeBatch } from '../../../src/protocol/eventColumns';
import { computeFindings } from '../../../src/trace/findings';
import { SummaryModel } from '../../../src/trace/summary';
import { companionPath } from '../../../src/trace/traceCompanion';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { writeTrace } from '../../../src/trace/traceWrite';
import { header, numbered, SAMPLE_EVENTS } from '../trace/fixtures';
import { scenarioTraces } from '../trace/scenarioTraces';

const summaryOf = (events: readonly RecordedEvent[]) => {
  const m = new SummaryModel();
  for (const e of events) m.add(e);
  return m.snapshot();
};

async function opened(path: string): Promise<ColumnarTrace> {
  const c = await ColumnarTrace.open(path);
  assert.ok(c instanceof ColumnarTrace, `companion refused: ${JSON.stringify(c)}`);
  return c;
}

describe('app: the binary companion of a trace file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'companion-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('every conformance trace: the companion gives the same columns, summary, findings and diffs, and its export copies the same bytes', async function () {
    this.timeout(120_000);
    const sets = [...(await scenarioTraces()).map((x) => x.trace), { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) }];
    let diffs = 0;
    for (const [n, trace] of sets.entries()) {
      const path = join(dir, `t${n}.informer-trace.json`);
      const count = await writeTraceWithCompanion(path, trace.header, [...trace.events]);
      assert.equal(count, trace.events.length);
      const text = readFileSync(path, 'utf8');
      assert.equal(text, exportTrace(trace), 'the JSON is exactly what exportTrace writes');
      assert.ok(existsSync(companionPath(path)));
      const { events } = importTrace(text);
      const c = await opened(path);
      assert.deepEqual(c.header, importTrace(text).header);
      assert.deepEqual(decodeBatch(c.batch), decodeBatch(encodeBatch(events)));
      assert.deepEqual(c.summary, summaryOf(events));
      assert.deepEqual(c.findings, computeFindings(c.header, events));
      for (const e of events) {
        const want = diffForSeq(events, e.seq);
        assert.deepEqual(await c.diffFor(e.seq), want, `diff of seq ${e.seq}`);
        if (want) diffs++;
      }
      assert.equal(await c.diffFor(1e12), undefined);
      assert.deepEqual(c.load().events, events);
      const copy = join(dir, `copy${n}.informer-trace.json`);
      assert.equal(await c.exportTo(copy), events.length);
      assert.equal(readFileSync(copy, 'utf8'), text);
      assert.deepEqual(decodeBatch((await opened(copy)).batch), decodeBatch(c.batch), 'the copied companion belongs to the copy');
    }
    assert.ok(diffs > 50, `${diffs} diffs compared`);
  });

  it('a session opened from the companion shows the trace without parsing it and exports the same file', async () => {
    const trace = (await scenarioTraces()).find((x) => x.trace.events.some((e) => e.type === 'distribute' && e.diff))!.trace;
    const path = join(dir, 'a.informer-trace.json');
    await writeTraceWithCompanion(path, trace.header, [...trace.events]);
    const s = await createSession('s1', { kind: 'import', name: 'a', columnar: await opened(path) });
    assert.equal(s.eventCount(), trace.events.length);
    assert.equal(s.lastSeq(), trace.events[trace.events.length - 1].seq);
    assert.ok(s.columns());
    assert.deepEqual(s.summary(), summaryOf(trace.events));
    for (const e of trace.events) {
      if (e.type !== 'distribute' && e.type !== 'notify') continue;
      assert.deepEqual(await s.diffFor(e.seq), diffForSeq(trace.events, e.seq), `the session's diff of seq ${e.seq}`);
    }
    const out = join(dir, 'b.informer-trace.json');
    assert.equal(await s.exportTo(out), trace.events.length);
    assert.equal(readFileSync(out, 'utf8'), readFileSync(path, 'utf8'));
    // A session imported from text writes the same file and a companion with it.
    const t = await createSession('s2', { kind: 'import', name: 'a', text: readFileSync(path, 'utf8') });
    const out2 = join(dir, 'c.informer-trace.json');
    await t.exportTo(out2);
    assert.equal(readFileSync(out2, 'utf8'), readFileSync(path, 'utf8'));
    const fromText = await opened(out2);
    assert.deepEqual(fromText.summary, t.summary());
    assert.deepEqual(fromText.findings, t.findings(true));
    assert.deepEqual(decodeBatch(fromText.batch), decodeBatch(encodeBatch(importTrace(readFileSync(out2, 'utf8')).events)));
  });

  it('an imported trace with a credential the header says is redacted: the export and its companion hold it redacted', async () => {
    const events = numbered([
      { t: 1, type: 'log', level: 'info', msg: 'GET with Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789' },
      { t: 2, type: 'resync.timer', shouldResync: true },
    ] as never);
    const text = JSON.stringify({ format: 'informer-trace/v1', header: header(), events });
    const s = await createSession('s3', { kind: 'import', name: 'x', text });
    assert.ok(s.columns(), 'an imported trace keeps its columns');
    const out = join(dir, 'r.informer-trace.json');
    await s.exportTo(out);
    const written = readFileSync(out, 'utf8');
    assert.ok(!written.includes('abcdefghijklmnopqrstuvwxyz'), 'the export redacts');
    const c = await opened(out);
    assert.ok(!JSON.stringify(c.batch.extras).includes('abcdefghijklmnopqrstuvwxyz'), 'the companion holds the redacted events');
    assert.deepEqual(decodeBatch(c.batch), decodeBatch(encodeBatch(importTrace(written).events)));
  });

  it('line offsets are byte offsets, also past characters of more than one byte', async () => {
    const events = numbered([
      { t: 1, type: 'log', level: 'info', msg: 'grüße → ✓ 𝄞', kv: { k: 'ü' } },
      { t: 2, type: 'resync.timer', shouldResync: true },
      { t: 3, type: 'log', level: 'info', msg: 'plain' },
    ] as never);
    const path = join(dir, 'u.informer-trace.json');
    const w = await writeTrace(path, header({ redacted: false }), events, { lineOffsets: true });
    const bytes = readFileSync(path);
    for (let i = 0; i < events.length; i++) {
      const line = bytes.subarray(w.offsets![i]).toString('utf8').split('\n')[0].replace(/,$/, '');
      assert.deepEqual(JSON.parse(line), events[i]);
    }
  });

  it('a companion that does not belong to the file, is corrupt or of another version is refused with a reason; none at all is no reason', async () => {
    const trace = { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) };
    const path = join(dir, 'x.informer-trace.json');
    assert.deepEqual(await ColumnarTrace.open(path), { reason: undefined });
    await writeTraceWithCompanion(path, trace.header, [...trace.events]);
    await opened(path);
    const bin = companionPath(path);
    const good = readFileSync(bin);
    const refused = async (why: RegExp) => {
      const r = await ColumnarTrace.open(path);
      assert.ok(!(r instanceof ColumnarTrace) && r.reason !== undefined && why.test(r.reason), r instanceof ColumnarTrace ? 'accepted' : String(r.reason));
    };
    // The JSON touched: same bytes, another time.
    const later = new Date(Date.now() + 5000);
    utimesSync(path, later, later);
    await refused(/another version of the trace file/);
    // Same size and time, one digit changed near the start.
    const text = readFileSync(path, 'utf8');
    await writeTraceWithCompanion(path, trace.header, [...trace.events]);
    const st = readFileSync(path, 'utf8');
    writeFileSync(path, st.replace('"cap": ', '"cap": ').replace(/"dropped": 0/, '"dropped": 1'));
    await refused(/another version/);
    writeFileSync(path, text);
    await writeTraceWithCompanion(path, trace.header, [...trace.events]);
    const fresh = readFileSync(bin);
    const version = Buffer.from(fresh);
    version.writeUInt32LE(99, 8);
    writeFileSync(bin, version);
    await refused(/companion version 99/);
    writeFileSync(bin, fresh.subarray(0, fresh.length - 9));
    await refused(/outside the file|cut short|malformed/);
    const garbled = Buffer.from(fresh);
    garbled.fill(0x7b, 80, 120);
    writeFileSync(bin, garbled);
    await refused(/cannot be read|description|malformed|contents/);
    const flipped = Buffer.from(fresh);
    flipped[fresh.length - 20] ^= 0x01;
    writeFileSync(bin, flipped);
    await refused(/damaged/);
    writeFileSync(bin, Buffer.from('not a companion'));
    await refused(/not a companion file/);
    assert.ok(good.length > 0);
  });

  it('an export with events from an async source (a spill segment) writes no companion and removes an old one', async () => {
    const trace = { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) };
    const path = join(dir, 'y.informer-trace.json');
    await writeTraceWithCompanion(path, trace.header, [...trace.events]);
    assert.ok(existsSync(companionPath(path)));
    async function* source() {
      yield* trace.events;
    }
    assert.equal(await writeTraceWithCompanion(path, trace.header, source()), trace.events.length);
    assert.ok(!existsSync(companionPath(path)));
    assert.equal(readFileSync(path, 'utf8'), exportTrace(trace));
  });
});
