/**
 * The Perfetto export against the trace-event format (Chrome "JSON Object Format"): every event
 * has the fields its phase requires, spans do not run backwards, each thread is named, and the
 * content matches the trace (lists, watches, relists, faults, bookmarks, counters, handlers).
 * Also through the CLI: `summarize --perfetto OUT.json`.
 */
import { strict as assert } from 'assert';
import type { RecordedEvent } from '../../../src/format/events';
import { runCli } from '../../../src/cli/cli';
import { exportTrace } from '../../../src/trace/traceFile';
import { toPerfetto, type PerfettoTrace, type TraceEventJson } from '../../../src/trace/perfetto';
import { cycleTrace } from '../webview/fixture';
import { memoryIo } from '../cli/memoryIo';
import { header } from './fixtures';

/** The trace-event format's rules for the phases the exporter writes. */
function assertTraceEventFormat(doc: unknown): asserts doc is PerfettoTrace {
  assert.ok(doc && typeof doc === 'object' && Array.isArray((doc as PerfettoTrace).traceEvents), 'a JSON object with traceEvents');
  const named = new Set<number>();
  for (const e of (doc as PerfettoTrace).traceEvents as TraceEventJson[]) {
    assert.equal(typeof e.name, 'string', JSON.stringify(e));
    assert.ok(['X', 'i', 'C', 'M'].includes(e.ph), `phase ${e.ph}`);
    assert.ok(Number.isInteger(e.pid), JSON.stringify(e));
    if (e.ph === 'M') {
      assert.ok(e.name === 'process_name' || e.name === 'thread_name' || e.name === 'thread_sort_index', e.name);
      if (e.name === 'thread_name') named.add(e.tid as number);
      continue;
    }
    assert.ok(Number.isFinite(e.ts) && (e.ts as number) >= 0, `ts of ${JSON.stringify(e)}`);
    if (e.ph === 'X') assert.ok(Number.isFinite(e.dur) && (e.dur as number) >= 0, `dur of ${JSON.stringify(e)}`);
    if (e.ph === 'i') assert.equal(e.s, 't');
    if (e.ph === 'C') {
      assert.equal(e.tid, undefined, 'counters are per process');
      assert.ok(e.args && Object.values(e.args).every((v) => typeof v === 'number'), 'counter values are numbers');
    }
    if (e.ph !== 'C') assert.ok(named.has(e.tid as number), `thread ${e.tid} has a name before its events`);
  }
}

describe('Perfetto / Chrome trace-event export', () => {
  const events = cycleTrace() as unknown as RecordedEvent[];
  const doc = toPerfetto(header({ profile: 'v1.36' }), events);

  it('is valid trace-event JSON', () => {
    assertTraceEventFormat(JSON.parse(JSON.stringify(doc)));
  });

  it('has the trace\'s lists, watches, relists, counters and one track per handler', () => {
    const by = (ph: string, name: string | RegExp) => doc.traceEvents.filter((e) => e.ph === ph && (typeof name === 'string' ? e.name === name : name.test(e.name)));
    const lists = by('X', 'LIST');
    assert.equal(lists.length, events.filter((e) => e.type === 'list.done').length);
    assert.deepEqual(lists.map((l) => [l.ts, l.dur]), [[0, 20_000], [2_000_000, 30_000]], 'spans end at list.done, durationMs long, in µs');
    assert.equal(by('X', /^WATCH/).length, events.filter((e) => e.type === 'watch.start').length);
    assert.deepEqual(by('i', /^RELIST /).map((e) => e.name), ['RELIST Expired']);
    assert.equal(by('C', 'FIFO depth').length, events.filter((e) => e.type === 'fifo.enqueue' || e.type === 'fifo.pop').length);
    const threads = doc.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args?.name);
    assert.deepEqual(threads, ['Lists', 'Watches', 'Relists, faults, bookmarks', 'Handler main']);
    const notes = doc.traceEvents.filter((e) => e.cat === 'notify');
    assert.equal(notes.length, events.filter((e) => e.type === 'notify').length);
    assert.ok(notes.some((n) => n.name === 'update (identical)'));
  });

  it('the format check can fail (a span with a negative duration, an unnamed thread)', () => {
    const bad = JSON.parse(JSON.stringify(doc)) as PerfettoTrace;
    bad.traceEvents.find((e) => e.ph === 'X')!.dur = -1;
    assert.throws(() => assertTraceEventFormat(bad));
    const unnamed = JSON.parse(JSON.stringify(doc)) as PerfettoTrace;
    unnamed.traceEvents.push({ name: 'x', ph: 'i', s: 't', pid: 1, tid: 99, ts: 0 });
    assert.throws(() => assertTraceEventFormat(unnamed));
  });

  it('summarize --perfetto OUT.json writes it and says where', async () => {
    const trace = exportTrace({ header: header({ profile: 'v1.36' }), events });
    const m = memoryIo({ 't.json': trace });
    assert.equal(await runCli(['summarize', 't.json', '--perfetto', 'out.json'], m.io), 0);
    assert.match(m.out(), /Perfetto trace written to .*out\.json/);
    const written = JSON.parse(m.files['out.json']) as unknown;
    assertTraceEventFormat(written);
    assert.deepEqual(written, JSON.parse(JSON.stringify(doc)));
    assert.match(m.out(), /^ {2}relists: 1 \(Expired 1\)$/m, 'the summary lines');
  });
});
