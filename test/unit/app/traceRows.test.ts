import { strict as assert } from 'node:assert';
import { closeSync, fstatSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../../src/format/events';
import { columnLines, decodeLines, readTraceColumns, redactionOf } from '../../../src/app/traceRows';
import { readTraceColumnsInParts, readTraceColumnsInPartsHere } from '../../../src/app/traceRowParts';
import { COLUMN_NAMES, ROW_TYPES, encodeBatch, type ColumnBatch } from '../../../src/protocol/eventColumns';
import { exportTrace, importTrace, TraceFileError } from '../../../src/trace/traceFile';
import { FileWindow, isCanonicalText, readTraceLines } from '../../../src/trace/traceLines';
import { header, numbered, SAMPLE_EVENTS } from '../trace/fixtures';
import { scenarioTraces } from '../trace/scenarioTraces';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function sameBatch(got: ColumnBatch, want: ColumnBatch, what: string): void {
  assert.equal(got.count, want.count, `${what}: count`);
  for (const c of COLUMN_NAMES) assert.ok(Buffer.from(got.columns[c]).equals(Buffer.from(want.columns[c])), `${what}: column ${c}`);
  assert.deepEqual(got.strings, want.strings, `${what}: strings`);
  assert.deepEqual(got.extras, want.extras, `${what}: whole events`);
}

/**
 * The column reader's lines decoded in two parts and joined (traceRowParts.ts, the helper's part
 * on this thread) give exactly what one pass gives, wherever the lines are split.
 */
function sameInParts(text: string, got: ReturnType<typeof readTraceColumns>, what: string): void {
  for (const share of [0.5, 0.3, 0.97]) {
    const parts = readTraceColumnsInPartsHere(bytes(text), share);
    assert.equal(parts === undefined, got === undefined, `${what}, in parts at ${share}: ${parts ? 'read in parts only' : 'read in one pass only'}`);
    if (!parts || !got) continue;
    sameBatch(parts.batch, got.batch, `${what}, in parts at ${share}`);
    assert.equal(parts.decoded, got.decoded, `${what}, in parts at ${share}: decoded`);
    assert.deepEqual([...parts.asWritten], [...got.asWritten], `${what}, in parts at ${share}: lines as written`);
    assert.deepEqual([...parts.offsets], [...got.offsets], `${what}, in parts at ${share}: offsets`);
  }
}

const windowFile = join(mkdtempSync(join(tmpdir(), 'trace-window-')), 'trace.json');

/**
 * The file read through a window moved over it (FileWindow, as the trace reader's worker reads a
 * file on one thread) gives exactly what the read of its bytes gives — lines, columns, strings,
 * marks, canonical or not — whatever the window's size: smaller than a line (it grows), a few
 * lines, the whole file.
 */
function sameThroughWindow(text: string, got: ReturnType<typeof readTraceColumns>, what: string): void {
  writeFileSync(windowFile, text);
  const fd = openSync(windowFile, 'r');
  try {
    const size = fstatSync(fd).size;
    for (const capacity of [1, 7, 61, 4096, size + 1]) {
      const through = readTraceColumns(new FileWindow(fd, size, capacity));
      const at = `${what}, through a window of ${capacity} bytes`;
      assert.equal(through === undefined, got === undefined, `${at}: ${through ? 'read through the window only' : 'read from the bytes only'}`);
      if (!through || !got) continue;
      sameBatch(through.batch, got.batch, at);
      assert.deepEqual(through.header, got.header, `${at}: header`);
      assert.equal(through.ascii, got.ascii, `${at}: ascii`);
      assert.equal(through.decoded, got.decoded, `${at}: decoded`);
      assert.deepEqual([...through.asWritten], [...got.asWritten], `${at}: lines as written`);
      assert.deepEqual([...through.offsets], [...got.offsets], `${at}: offsets`);
      assert.deepEqual([...through.ends], [...got.ends], `${at}: ends`);
      // Lines decoded through a fresh window, which grows as it meets longer lines.
      const fresh = decodeLines({ ...through, window: new FileWindow(fd, size, capacity) }, redactionOf(through.header));
      assert.ok(fresh, `${at}: decoded through a fresh window`);
      sameBatch(columnLines(through, fresh).batch, got.batch, `${at}, decoded through a fresh window`);
      // The check after the open reads the file again through a window of its own.
      assert.equal(isCanonicalText({ ...through, window: new FileWindow(fd, size, capacity) }), isCanonicalText(got), `${at}: canonical`);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The column reader agrees with the line reader (which reads every event with JSON.parse and the
 * schema, and agrees with importTrace): both decline, or both read it, the columns being
 * encodeBatch of the events. Returns the column reader's answer.
 */
function agrees(text: string, what: string): ReturnType<typeof readTraceColumns> {
  const got = readTraceColumns(bytes(text));
  const want = readTraceLines(bytes(text));
  sameInParts(text, got, what);
  sameThroughWindow(text, got, what);
  assert.equal(got === undefined, want === undefined, `${what}: ${got ? 'read by the column reader only' : 'read by the line reader only'}`);
  if (got && want) {
    assert.deepEqual(got.header, want.header, `${what}: header`);
    assert.deepEqual([...got.offsets], [...want.offsets], `${what}: offsets`);
    sameBatch(got.batch, encodeBatch(want.events), what);
    assert.equal(isCanonicalText(got), isCanonicalText(want), `${what}: canonical`);
  }
  return got;
}

const isRowType = (e: RecordedEvent) => (ROW_TYPES as readonly string[]).includes(e.type);

/** Events of the numerous types with every optional field, absent fields, edge values. */
function rowEvents(): RecordedEvent[] {
  const s = SAMPLE_EVENTS;
  return numbered([
    s.notify,
    { ...s.notify, oldRv: undefined, initialList: true, tombstone: undefined, change: undefined, op: 'add', isSync: true, pending: 4294967295 },
    { ...s.notify, rv: '', key: 'ns/ÄÖ-ü', handler: 'h "quoted"' },
    { ...s.notify, rv: '007', oldRv: '1234567890123456', pending: 12 },
    { ...s['fifo.enqueue'], objects: undefined },
    { ...s['fifo.enqueue'], objects: undefined, tombstone: 'replace-queued', rv: 'abc' },
    { ...s['fifo.enqueue'], objects: undefined, tombstone: undefined, delta: 'SyncAll' },
    s['fifo.enqueue'],
    s['fifo.pop'],
    { ...s['fifo.pop'], deltas: [] },
    { ...s['fifo.pop'], deltas: ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync', 'ReplacedAll', 'SyncAll', 'Bookmark', 'Sync'], isInInitialList: true },
    s.distribute,
    { ...s.distribute, diff: [], change: 'identical' },
    { ...s.distribute, diff: undefined, rv: undefined, oldRv: undefined, change: undefined, op: 'add', isSync: true },
    { ...s.distribute, diff: [{ path: 'a', old: null, new: true }, { path: 'b', new: -1.5 }, { path: 'c', old: false }, { path: 'd' }] },
    { ...s.distribute, diff: [{ path: 'spec', old: { a: [1, { b: 2 }] }, new: 'x\ty' }] },
    { ...s.distribute, delivered: 4294967296 },
    { ...s['watch.event'], skipped: undefined },
    { ...s['watch.event'], skipped: undefined, key: undefined, initialEventsEnd: undefined, eventType: 'ERROR', accepted: false },
    s['watch.event'],
    s.rv,
    { ...s.rv, rv: '1.5', source: 'list' },
    { ...s.rv, t: 123456.789 },
    { ...s.rv, t: 1e21 },
    s.log,
  ] as RecordedEvent[]).map((e) => JSON.parse(JSON.stringify(e)) as RecordedEvent);
}

describe('app: a trace file read straight into columns (traceRows)', () => {
  it('every conformance trace and every event type: the columns of its events, most lines of the numerous types decoded without JSON.parse (the rest: a field no row holds, a diff with objects)', async function () {
    this.timeout(120_000);
    const sets = [...(await scenarioTraces()).map((x) => ({ name: x.name, trace: x.trace })), { name: 'samples', trace: { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) } }];
    let rows = 0;
    let decoded = 0;
    for (const { name, trace } of sets) {
      const got = agrees(exportTrace(trace), name);
      assert.ok(got, `${name}: read`);
      rows += trace.events.filter(isRowType).length;
      decoded += got.decoded;
    }
    assert.ok(rows > 1000 && decoded >= 0.85 * rows, `decoded ${decoded} of ${rows} rows of the numerous types`);
  });

  it('edge values of the numerous types: the same columns (decoded where the row holds the event, parsed otherwise)', () => {
    const events = rowEvents();
    const text = exportTrace({ header: header(), events });
    const got = agrees(text, 'edge values');
    assert.ok(got);
    // The first four notify lines, the plain enqueues, pops, diffs of scalars, the watch events without skipped and the rv lines are decoded.
    assert.ok(got.decoded >= 16, `decoded ${got.decoded}`);
    assert.equal(got.batch.extras.length, encodeBatch(events).extras.length);
  });

  it('each line written otherwise is read as importTrace reads it, or declined as it declines', () => {
    const text = exportTrace({ header: header(), events: rowEvents() });
    const first = (re: RegExp) => re.exec(text)![0];
    const n = first(/\{"seq":\d+,"t":1,"type":"notify"[^\n]*\}/);
    const variants: [string, string][] = [
      ['keys out of order', text.replace(n, n.replace('"handler":"main",', '').replace('"isSync"', '"handler":"main","isSync"'))],
      ['a key twice', text.replace(n, n.replace('"key":"default/a"', '"key":"default/a","key":"default/b"'))],
      ['an unknown field', text.replace(n, n.replace('"key":', '"keyword":1,"key":'))],
      ['a space', text.replace(n, n.replace('"op":', '"op": '))],
      ['an escape', text.replace(n, n.replace('"key":"default/a"', '"key":"default\\/a"'))],
      ['a unicode escape', text.replace(n, n.replace('"key":"default/a"', '"key":"\\u0064efault/a"'))],
      ['an exponent', text.replace(n, n.replace('"pending":0', '"pending":0e0'))],
      ['a fraction in a count', text.replace(n, n.replace('"pending":0', '"pending":1.0'))],
      ['a negative count', text.replace(n, n.replace('"pending":0', '"pending":-1'))],
      ['a leading zero', text.replace(n, n.replace('"pending":0', '"pending":01'))],
      ['a count as a string', text.replace(n, n.replace('"pending":0', '"pending":"0"'))],
      ['a missing required field', text.replace(n, n.replace('"isSync":false,', ''))],
      ['an unknown op', text.replace(n, n.replace('"op":"delete"', '"op":"remove"'))],
      ['an unknown change', text.replace(n, n.replace('"change":"identical"', '"change":"same"'))],
      ['a boolean as a number', text.replace(n, n.replace('"isSync":false', '"isSync":0'))],
      ['a time below zero', text.replace(n, n.replace('"t":1,', '"t":-1,'))],
      ['a time of 400 digits', text.replace(n, n.replace('"t":1,', `"t":${'9'.repeat(400)},`))],
      ['a control character', text.replace(n, n.replace('"key":"default/a"', '"key":"default\u0001a"'))],
      ['a DEL character', text.replace(n, n.replace('"key":"default/a"', '"key":"default\u007fa"'))],
      ['a seq as a fraction', text.replace(n, n.replace(/"seq":(\d+)/, '"seq":$1.5'))],
      ['an unknown delta', text.replace('"deltas":["Replaced"', '"deltas":["Replace"')],
      ['a diff item without a path', text.replace('{"path":"d"}', '{"what":"d"}')],
      ['a diff item with a path that is not a string', text.replace('{"path":"d"}', '{"path":4}')],
      ["something after the event", text.replace(n, `${n}}`)],
      ['an rv source out of the enum', text.replace('"source":"event"', '"source":"events"')],
      ['a tombstone of another kind', text.replace('"tombstone":"replace-queued"', '"tombstone":"replace"')],
    ];
    for (const [what, v] of variants) {
      assert.notEqual(v, text, `${what}: the variant differs`);
      agrees(v, what);
    }
  });

  it('thousands of damaged files: the column reader accepts exactly what the line reader accepts, with the columns of its events', () => {
    const text = exportTrace({ header: header(), events: rowEvents() });
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ['{', '}', '[', ']', ',', '"', ':', '\n', ' ', '0', '1', '-', '.', 'e', '\\', 'x', 'true', '"seq":', '"key":', '\u00e9', '\n    '];
    const start = text.indexOf('"events": [');
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const at = start + rand(text.length - start);
      const cut = rand(3);
      const v = text.slice(0, at) + pieces[rand(pieces.length)] + text.slice(at + cut);
      if (agrees(v, `damage ${i} at ${at}`)) accepted++;
    }
    assert.ok(accepted > 100, `some damaged files are still traces (${accepted})`);
  });

  it('lines it decodes that the line writer would write otherwise make the file not canonical (without reading them again)', () => {
    const events = rowEvents();
    const text = exportTrace({ header: header(), events });
    const canon = readTraceColumns(bytes(text));
    assert.ok(canon && isCanonicalText(canon), 'the export is canonical');
    assert.ok(canon.asWritten.reduce((a, x) => a + x, 0) >= 14, 'most decoded lines are known to be as written');
    const n = /\{"seq":\d+,"t":1,"type":"notify"[^\n]*\}/.exec(text)![0];
    const cases: [string, string, boolean][] = [
      ['a time with a trailing zero', text.replace(n, n.replace('"t":1,', '"t":1.50,')), false],
      ['a time of 17 digits', text.replace(n, n.replace('"t":1,', '"t":12345678901234567,')), false],
      ['a key redaction would change', text.replace(n, n.replace('"key":"default/a"', '"key":"token=abc"')), false],
      ['a handler redaction would change', text.replace(n, n.replace('"handler":"main"', '"handler":"password:hunter2"')), false],
      ['the same key, the header saying not redacted', text.replace(n, n.replace('"key":"default/a"', '"key":"token=abc"')).replace('"redacted": true', '"redacted": false'), true],
      ['a diff value with a trailing zero', text.replace('"new":-1.5,', '"new":-1.50,'), false],
      ['a diff value of -0', text.replace('"new":-1.5,', '"new":-0,'), false],
      ['a diff path naming a credential (its value blanked)', text.replace('{"old":false,"path":"c"}', '{"old":false,"path":"spec.password"}'), false],
      ['a diff path naming a credential, without values', text.replace('{"path":"d"}', '{"path":"spec.password"}'), true],
      ['a diff path naming a credential, the header saying not redacted', text.replace('{"old":false,"path":"c"}', '{"old":false,"path":"spec.password"}').replace('"redacted": true', '"redacted": false'), true],
      ['a trace of Secrets with a payload in a diff', text.replace('"resource": "configmaps"', '"resource": "secrets"').replace('{"old":false,"path":"c"}', '{"old":"x","path":"data.c"}'), false],
      ['a trace of Secrets, its diffs outside the payload', text.replace('"resource": "configmaps"', '"resource": "secrets"'), true],
      ['a diff value redaction would change', text.replace('"new":"y"', '"new":"token=abc"'), false],
      ['a time with a fraction, as written', text.replace(n, n.replace('"t":1,', '"t":1.25,')), true],
    ];
    for (const [what, v, canonical] of cases) {
      assert.notEqual(v, text, `${what}: the variant differs`);
      const got = agrees(v, what);
      assert.ok(got, `${what}: read`);
      assert.ok(got.decoded > 10, `${what}: decoded`);
      assert.equal(isCanonicalText(got), canonical, what);
    }
  });

  it('what it declines, importTrace reads or names', () => {
    const text = exportTrace({ header: header(), events: rowEvents() });
    const broken = text.replace('"source":"event"', '"source":"events"');
    assert.equal(readTraceColumns(bytes(broken)), undefined);
    assert.throws(() => importTrace(broken), (e: unknown) => e instanceof TraceFileError && /schema violation at \/events\/\d+\/source/.test(e.message));
  });

  it('a helper that fails (no answer, or an error) leaves its part to this thread: the same columns', async () => {
    const text = exportTrace({ header: header(), events: rowEvents() });
    const want = readTraceColumns(bytes(text))!;
    for (const helper of [() => Promise.resolve(undefined), () => Promise.reject(new Error('gone'))]) {
      const got = await readTraceColumnsInParts(bytes(text), helper, 0);
      assert.ok(got);
      sameBatch(got.batch, want.batch, 'helper failed');
      assert.deepEqual([...got.asWritten], [...want.asWritten]);
    }
    // A helper that declines its part: the file is declined, as one pass declines it.
    assert.equal(await readTraceColumnsInParts(bytes(text), () => Promise.resolve('declined' as const), 0), undefined);
  });
});
