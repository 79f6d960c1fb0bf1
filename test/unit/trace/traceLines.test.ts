import { strict as assert } from 'node:assert';
import type { RecordedEvent } from '../../../src/format/events';
import { exportTrace, importTrace, TraceFileError, type TraceData } from '../../../src/trace/traceFile';
import { isCanonicalText, readTraceLines } from '../../../src/trace/traceLines';
import { header, numbered, SAMPLE_EVENTS } from './fixtures';
import { scenarioTraces } from './scenarioTraces';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** What importTrace says of the text: its trace, or its one-line message. */
function imported(text: string): { header: unknown; events: RecordedEvent[] } | string {
  try {
    return importTrace(text);
  } catch (e) {
    assert.ok(e instanceof TraceFileError, `importTrace threw ${String(e)}`);
    return e.message;
  }
}

/** The line reader agrees with importTrace on the text: same header and events, or it declines (and importTrace then decides). */
function agrees(text: string, what: string): ReturnType<typeof readTraceLines> {
  const lines = readTraceLines(bytes(text));
  if (lines) {
    const want = imported(text);
    assert.ok(typeof want !== 'string', `${what}: the line reader accepted a file importTrace refuses (${String(want)})`);
    assert.deepEqual(lines.header, want.header, `${what}: header`);
    assert.deepEqual(lines.events, want.events, `${what}: events`);
  }
  return lines;
}

/** Every event's offset points at its text in the file's bytes, and its end right after it. */
function offsetsPointAtEvents(text: string, lines: NonNullable<ReturnType<typeof readTraceLines>>): void {
  const b = bytes(text);
  for (let i = 0; i < lines.events.length; i++) {
    const line = b.toString('utf8', lines.offsets[i], lines.ends[i]);
    assert.deepEqual(JSON.parse(line), lines.events[i], `event ${i}'s bytes`);
  }
}

const sample = (): TraceData => ({ header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) });

describe('trace: reading a trace file event by event (traceLines)', () => {
  it('every conformance trace and the sample of every event type: the same trace as importTrace, offsets at each event, canonical', async function () {
    this.timeout(120_000);
    const sets = [...(await scenarioTraces()).map((x) => ({ name: x.name, trace: x.trace })), { name: 'samples', trace: sample() }];
    for (const { name, trace } of sets) {
      const text = exportTrace(trace);
      const lines = agrees(text, name);
      assert.ok(lines, `${name}: the exporter's layout is read`);
      assert.equal(lines.events.length, trace.events.length);
      offsetsPointAtEvents(text, lines);
      assert.equal(isCanonicalText(lines), true, `${name}: canonical`);
    }
  });

  it('non-ASCII text: offsets are bytes, the file is canonical', () => {
    const t = sample();
    const events = [...t.events, { seq: 100, t: 9, type: 'log', level: 'info', msg: 'größe — 大きさ 🚀' } as RecordedEvent, { seq: 101, t: 9, type: 'synced' } as RecordedEvent];
    const text = exportTrace({ header: t.header, events });
    const lines = agrees(text, 'non-ASCII');
    assert.ok(lines);
    offsetsPointAtEvents(text, lines);
    assert.equal(isCanonicalText(lines), true);
  });

  it('a file in the layout but not canonical is read with the same values and said not canonical', () => {
    const text = exportTrace(sample());
    const variants: [string, string][] = [
      ['spaces inside an event', text.replace('{"seq":0,"t":0,', '{"seq": 0, "t": 0, ')],
      ['keys in another order', text.replace('{"seq":1,"t":1,"type":"informer.stop"}', '{"type":"informer.stop","seq":1,"t":1}')],
      ['another indentation', text.replace(/\n {4}\{/g, '\n  {')],
      ['a number written otherwise', text.replace('"t":0.5,', '"t":5e-1,')],
      ['an escaped slash', text.replace('"text":"failed to list: boom"', '"text":"failed to list\\/ boom"')],
      ['another header layout', text.replace('"format": "informer-trace/v1",\n  "header"', '"format":"informer-trace/v1","header"')],
      ['no final line break', text.slice(0, -1)],
      ['a credential the header says is redacted', text.replace(/"msg":"[^"]*"/, '"msg":"Authorization: Bearer sekrit123"')],
    ];
    for (const [what, v] of variants) {
      assert.notEqual(v, text, `${what}: the variant differs`);
      const lines = agrees(v, what);
      assert.ok(lines, `${what}: read`);
      assert.equal(isCanonicalText(lines), false, `${what}: not canonical`);
    }
  });

  it('other layouts are left to importTrace (which reads them)', () => {
    const t = sample();
    const doc = { format: 'informer-trace/v1', header: t.header, events: t.events };
    const text = exportTrace(t);
    for (const [what, v] of [
      ['minified', JSON.stringify(doc)],
      ['pretty-printed', JSON.stringify(doc, null, 2)],
      ['CRLF line ends', text.replace(/\n/g, '\r\n')],
      ['a byte-order mark', `\ufeff${text}`],
      ['two events on one line', text.replace(',\n    {"seq":1,', ', {"seq":1,')],
      ['a blank line between events', text.replace(',\n    {"seq":1,', ',\n\n    {"seq":1,')],
      ['a field after the events', text.replace(/\]\n\}\n$/, '],\n  "more": 1\n}\n')],
    ] as const) {
      assert.equal(readTraceLines(bytes(v)), undefined, what);
      assert.ok(typeof imported(v) !== 'string', `${what}: importTrace reads it`);
    }
  });

  it('malformed files: declined, and importTrace names the problem', () => {
    const text = exportTrace(sample());
    const cases: [string, string, RegExp][] = [
      ['cut short', text.slice(0, text.length / 2), /not a trace file: the text is not JSON/],
      ['a schema violation in one event', text.replace('"t":0.5,', '"t":"soon",'), /schema violation at \/events\/\d+\/t: must be number/],
      ['an unknown event type', text.replace('"type":"synced"', '"type":"nope"'), /schema violation/],
      ['seqs that do not increase', text.replace('{"seq":3,', '{"seq":1,'), /event seqs must increase/],
      ['another format', text.replace(/"informer-trace\/v1"/g, '"informer-trace/v2"'), /unsupported trace version "informer-trace\/v2"/],
      ['a header violation', text.replace('"cap": ', '"cap": "many", "x": '), /schema violation at \/header/],
      ['an event that is not an object', text.replace('{"seq":1,"t":1,"type":"informer.stop"}', '[1]'), /schema violation|not JSON/],
      ['a broken event line', text.replace('{"seq":1,"t":1,"type":"informer.stop"}', '{"seq":1,"t":1,"type":"informer.stop"'), /not JSON/],
      ['a comma after the last event', text.replace(/\}\n {2}\]/, '},\n  ]'), /not JSON/],
      ['values nested too deep', text.replace('"kv":{', `"kv":{"deep":${'['.repeat(1200)}${']'.repeat(1200)},`), /nested deeper than 1000 levels/],
    ];
    for (const [what, v, message] of cases) {
      assert.equal(readTraceLines(bytes(v)), undefined, `${what}: declined`);
      const got = imported(v);
      assert.equal(typeof got, 'string', `${what}: importTrace refuses it`);
      assert.match(got as string, message, what);
    }
  });

  it('thousands of damaged files: whatever the line reader accepts, importTrace accepts with the same values', () => {
    const text = exportTrace(sample());
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ['{', '}', '[', ']', ',', '"', ':', '\n', ' ', '0', '-', 'e', '\\', 'x', 'true', '"seq":', '\n    '];
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const at = rand(text.length);
      const cut = rand(3);
      const v = text.slice(0, at) + pieces[rand(pieces.length)] + text.slice(at + cut);
      if (agrees(v, `damage ${i} at ${at}`)) accepted++;
    }
    // Some damage lands in strings and keeps the file valid: both readers must then agree on it.
    assert.ok(accepted > 0, 'some damaged files are still traces');
  });
});
