/**
 * Fuzz targets of the watch-stream framer and decoder (src/kube/watchStream.ts): the bytes of a
 * watch response body, cut into chunks anywhere (also inside multi-byte characters), gzipped,
 * mutated, with invalid UTF-8, deep nesting and frames around client-go's 16 MiB limit.
 *
 * The reference decoding is written here independently of the decoder: the body is one JSON value
 * per line, so JSON.parse of each complete line, then client-go's rules for a watch event (an
 * object; type one of the five; object an object with a kind), gives the events it must deliver,
 * and where the first bad line is, the one decode ERROR it must end with.
 */
import { strict as assert } from 'node:assert';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import type { Status, WatchEvent, Watcher } from '../../src/engine/listWatch';
import type { GetResponse } from '../../src/kube/http';
import { statusFromWire } from '../../src/kube/http';
import { MAX_FRAME_LENGTH, StreamWatcher } from '../../src/kube/watchStream';
import { awkwardString, jsonValue } from '../unit/robustness/support';
import { assertEndsLikeStreamWatcher, chunked, isDecodeError, responseOf, watchEvent, type Drained } from '../unit/robustness/watchStreamSupport';
import type { FuzzTarget } from './target';

/** encoding/json's maxNestingDepth: deeper values fail to decode ("exceeded max depth"). */
const GO_MAX_DEPTH = 10_000;
const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
const cuts = fc.array(fc.nat(), { maxLength: 24 });

/** Reads a watcher to its end (the runner bounds the time); the channel must stay closed after it. */
async function drain(w: Watcher): Promise<Drained> {
  const events: WatchEvent[] = [];
  for (let e = await w.next(); e !== null; e = await w.next()) {
    events.push(e);
    if (events.length > 100_000) throw new Error('the watcher does not stop delivering');
  }
  assert.equal(await w.next(), null, 'an event after the end');
  return { events, end: w.end?.kind };
}

/**
 * Structural equality of JSON values without recursion (node's deepEqual overflows the stack on
 * the 10,000-level values these inputs hold); the first difference as a path, or undefined.
 */
export function jsonDifference(a: unknown, b: unknown): string | undefined {
  const stack: [unknown, unknown, string][] = [[a, b, '']];
  while (stack.length > 0) {
    const [x, y, at] = stack.pop()!;
    if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || Array.isArray(x) !== Array.isArray(y)) return `${at || '/'}: ${String(x).slice(0, 80)} ≠ ${String(y).slice(0, 80)}`;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return `${at || '/'}: ${kx.length} keys ≠ ${ky.length} keys`;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return `${at}/${k}: missing`;
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}/${k}`]);
    }
  }
  return undefined;
}

function assertSameJson(got: unknown, want: unknown, what: string): void {
  const d = jsonDifference(got, want);
  assert.equal(d, undefined, `${what} differ at ${d}`);
}

type Expected = { events: WatchEvent[]; error: boolean };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Nesting depth of JSON text (brackets outside strings), counted without recursion. */
function textDepth(s: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}

/** The reference: each line is one complete JSON text; client-go's rules decide what it becomes. */
function referenceDecode(lines: string[]): Expected {
  const events: WatchEvent[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (textDepth(line) > GO_MAX_DEPTH) return { events, error: true };
    const v: unknown = JSON.parse(line);
    if (!isPlainObject(v)) return { events, error: true };
    const type = v.type;
    if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return { events, error: true };
    const obj = v.object;
    if (!isPlainObject(obj) || typeof obj.kind !== 'string' || obj.kind === '') return { events, error: true };
    events.push({ type: type as WatchEvent['type'], object: (type === 'ERROR' && obj.kind === 'Status' ? statusFromWire(obj as Status) : obj) as WatchEvent['object'] });
  }
  return { events, error: false };
}

function assertMatchesReference(d: Drained, want: Expected): void {
  assertEndsLikeStreamWatcher(d);
  if (want.error) {
    assert.equal(d.events.length, want.events.length + 1, `events: ${d.events.length}, want ${want.events.length} and a decode ERROR`);
    assert.ok(isDecodeError(d.events[d.events.length - 1]), 'the last event is not the decode ERROR');
    assertSameJson(d.events.slice(0, -1), want.events, 'events');
  } else {
    assertSameJson(d.events, want.events, 'events');
    assert.equal(d.end, 'eof');
  }
}

/** A line that is a watch event, nearly one (each rule broken in turn), or any JSON value. */
const lineValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: watchEvent },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constantFrom<unknown>('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR', 'EXPLODED', '', 'added', 7, null, true, [], {}),
      object: fc.oneof(
        fc.record({ kind: fc.constantFrom<unknown>('ConfigMap', 'Status', '', 5, null, ['x']), metadata: fc.option(fc.record({ name: awkwardString, resourceVersion: fc.oneof(fc.nat().map(String), jsonValue) }), { nil: undefined }), data: jsonValue }, { requiredKeys: [] }),
        jsonValue,
        fc.constantFrom(null, [], 'x', 1),
      ),
    }, { requiredKeys: [] }),
  },
  { weight: 1, arbitrary: jsonValue },
);

/** A line nested around Go's depth limit (an otherwise valid event). */
const deepLine = fc.integer({ min: 1, max: GO_MAX_DEPTH + 50 }).chain((depth) =>
  fc.constantFrom('[', '{"a":').map((open) => {
    const inner = depth - 3; // the event object, its object and data count three levels
    const v = open.repeat(Math.max(0, inner)) + '1' + (open === '[' ? ']' : '}').repeat(Math.max(0, inner));
    return `{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"deep"},"data":${v}}}`;
  }),
);

const separator = fc.constantFrom('\n', '\r\n', '\n\n', ' \n', '\t\n');

export const watchLines: FuzzTarget<{ lines: string[]; seps: string[]; cuts: number[] }> = {
  name: 'watch-stream',
  about: 'lines of JSON (events, near-events, any value, nesting up to 10,050) cut into chunks anywhere: the same events as JSON.parse per line under client-go\'s rules, then eof or exactly one decode ERROR where the reference fails',
  weight: 30,
  arbitrary: () =>
    fc.record({
      lines: fc.array(fc.oneof({ weight: 200, arbitrary: lineValue.map((v) => JSON.stringify(v) ?? 'null') }, { weight: 1, arbitrary: deepLine }), { maxLength: 10 }),
      seps: fc.array(separator, { minLength: 1, maxLength: 4 }),
      cuts,
    }),
  async check({ lines, seps, cuts: c }) {
    const text = lines.map((l, i) => l + seps[i % seps.length]).join('');
    const d = await drain(new StreamWatcher(responseOf(chunked(Buffer.from(text, 'utf8'), c)).res));
    assertMatchesReference(d, referenceDecode(lines));
  },
};

/** Bytes that are not valid UTF-8: lone continuation bytes, truncated sequences, overlongs, surrogates. */
const badUtf8 = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 4 }).map((b) => Buffer.from(b.map((x) => x | 0x80))),
  fc.constantFrom(Buffer.from([0xc0, 0xaf]), Buffer.from([0xe0, 0x80]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xff]), Buffer.from([0xf0, 0x9f, 0x98])),
);

export const watchUtf8: FuzzTarget<{ events: WatchEvent[]; bad: Array<[number, Buffer]>; cuts: number[] }> = {
  name: 'watch-stream-utf8',
  about: 'valid events with invalid UTF-8 bytes put inside their strings, cut anywhere: the same events as decoding the whole body as UTF-8 (U+FFFD for each bad sequence) and JSON.parse per line',
  weight: 8,
  arbitrary: () =>
    fc.record({
      events: fc.array(watchEvent, { minLength: 1, maxLength: 6 }),
      bad: fc.array(fc.tuple(fc.nat(), badUtf8), { minLength: 1, maxLength: 4 }),
      cuts,
    }),
  async check({ events, bad, cuts: c }) {
    // Put the bad bytes right after an opening quote, so they are inside a string value.
    const lines = events.map((e) => Buffer.from(JSON.stringify(e), 'utf8'));
    for (const [at, bytes] of bad) {
      const li = at % lines.length;
      const quotes = [...lines[li].entries()].filter(([, b]) => b === 0x22).map(([i]) => i);
      const q = quotes[(at >> 4) % quotes.length];
      // A closing quote is followed by ':', ',', '}' or ']' (or '"' for an empty string): skip those.
      const next = lines[li][q + 1];
      if (next === 0x3a || next === 0x2c || next === 0x7d || next === 0x5d || next === 0x22) continue;
      lines[li] = Buffer.concat([lines[li].subarray(0, q + 1), bytes, lines[li].subarray(q + 1)]);
    }
    const body = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
    const d = await drain(new StreamWatcher(responseOf(chunked(body, c)).res));
    assertMatchesReference(d, referenceDecode(body.toString('utf8').split('\n')));
  },
};

type Mutation = [pos: number, op: 'flip' | 'drop' | 'dup' | 'insert', v: number];

export const watchMutated: FuzzTarget<{ lines: string[]; muts: Mutation[]; tail: Uint8Array; cuts: number[] }> = {
  name: 'watch-stream-mutated',
  about: 'valid streams with bytes flipped, dropped, duplicated or inserted, and arbitrary bytes appended, cut anywhere: the events before the first damaged line are delivered unchanged, then an orderly end (eof, unexpected EOF, or one decode ERROR), never an exception',
  weight: 20,
  arbitrary: () =>
    fc.record({
      lines: fc.array(watchEvent.map((e) => JSON.stringify(e)), { minLength: 1, maxLength: 8 }),
      muts: fc.array(fc.tuple(fc.nat(), fc.constantFrom('flip' as const, 'drop' as const, 'dup' as const, 'insert' as const), fc.integer({ min: 0, max: 255 })), { maxLength: 5 }),
      tail: fc.uint8Array({ maxLength: 48 }),
      cuts,
    }),
  async check({ lines, muts, tail, cuts: c }) {
    const clean = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
    const bytes = [...clean];
    let firstTouched = bytes.length;
    for (const [pos, op, v] of muts) {
      if (bytes.length === 0) break;
      const i = pos % bytes.length;
      firstTouched = Math.min(firstTouched, i);
      if (op === 'flip') bytes[i] = v;
      else if (op === 'drop') bytes.splice(i, 1);
      else if (op === 'dup') bytes.splice(i, 0, bytes[i]);
      else bytes.splice(i, 0, v);
    }
    const body = Buffer.concat([Uint8Array.from(bytes), tail]);
    const d = await drain(new StreamWatcher(responseOf(chunked(body, c)).res));
    assertEndsLikeStreamWatcher(d);
    // Lines that end before the first damaged byte are decoded as the reference decodes them.
    const intact: string[] = [];
    let at = 0;
    for (const l of lines) {
      const len = Buffer.byteLength(l, 'utf8') + 1;
      if (at + len > firstTouched) break;
      intact.push(l);
      at += len;
    }
    const want = referenceDecode(intact).events;
    assert.ok(d.events.length >= want.length, `${d.events.length} events, ${want.length} intact lines before the damage`);
    assertSameJson(d.events.slice(0, want.length), want, 'intact events');
  },
};

/** A GetResponse whose body is a gunzip stream fed the given (possibly damaged) gzip bytes, as http.ts builds it. */
function gzipResponse(chunks: Uint8Array[]): GetResponse {
  const gunzip = zlib.createGunzip();
  const src = Readable.from(chunks.map((c) => Buffer.from(c)), { objectMode: false });
  src.pipe(gunzip);
  return {
    status: 200,
    headers: { 'content-encoding': 'gzip' },
    body: gunzip,
    close: () => {
      src.destroy();
      gunzip.destroy();
    },
    failure: () => undefined,
  };
}

export const watchGzip: FuzzTarget<{ lines: string[]; level: number; damage: 'none' | 'cut' | 'flip'; at: number; v: number; cuts: number[] }> = {
  name: 'watch-stream-gzip',
  about: 'gzip-encoded streams, whole, cut short or with a byte flipped, in arbitrary chunks: whole ones give the reference events and eof; damaged ones a prefix of them and an orderly end',
  weight: 8,
  arbitrary: () =>
    fc.record({
      lines: fc.array(lineValue.map((v) => JSON.stringify(v) ?? 'null'), { maxLength: 8 }),
      level: fc.integer({ min: 0, max: 9 }),
      damage: fc.constantFrom('none' as const, 'cut' as const, 'flip' as const),
      at: fc.nat(),
      v: fc.integer({ min: 1, max: 255 }),
      cuts,
    }),
  async check({ lines, level, damage, at, v, cuts: c }) {
    const gz = zlib.gzipSync(Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8'), { level });
    let bytes: Buffer = gz;
    if (damage === 'cut') bytes = gz.subarray(0, at % gz.length);
    else if (damage === 'flip') {
      bytes = Buffer.from(gz);
      bytes[at % bytes.length] ^= v;
    }
    const d = await drain(new StreamWatcher(gzipResponse(chunked(bytes, c))));
    const want = referenceDecode(lines);
    if (damage === 'none') {
      assertMatchesReference(d, want);
      return;
    }
    assertEndsLikeStreamWatcher(d);
    const delivered = d.events.filter((e) => !isDecodeError(e));
    // A flipped byte inside the deflate data can change text before the CRC check fails: only the
    // ordering contract holds then. A cut body must give an exact prefix of the reference events.
    if (damage === 'cut') {
      assert.ok(delivered.length <= want.events.length, `${delivered.length} events from a cut body of ${want.events.length}`);
      assertSameJson(delivered, want.events.slice(0, delivered.length), 'events of the cut body');
    }
  },
};

export const watchHuge: FuzzTarget<{ size: number; kind: 'string' | 'array' | 'open'; chunk: number }> = {
  name: 'watch-stream-huge',
  about: 'one frame of 1 MiB to 16 MiB + 64 KiB (around client-go\'s 16 MiB limit), as a string, an array, or never closed, in chunks of 1 KiB to 1 MiB: under the limit it decodes, over it one "object to decode was longer than maximum allowed size" ERROR, and the buffer is let go',
  weight: 0.005,
  minInputs: 8,
  timeoutMs: 20_000,
  arbitrary: () =>
    fc.record({
      size: fc.oneof(fc.integer({ min: 1 << 20, max: MAX_FRAME_LENGTH + (64 << 10) }), fc.integer({ min: MAX_FRAME_LENGTH - 4, max: MAX_FRAME_LENGTH + 4 })),
      kind: fc.constantFrom('string' as const, 'array' as const, 'open' as const),
      chunk: fc.integer({ min: 1 << 10, max: 1 << 20 }),
    }),
  async check({ size, kind, chunk }) {
    const head = '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"big"},"data":';
    const tail = '}}';
    const fill = Math.max(0, size - head.length - tail.length - 2);
    const value = kind === 'array' ? `[${'1,'.repeat(Math.floor((fill - 1) / 2))}1]` : `"${'x'.repeat(fill)}"`;
    const text = kind === 'open' ? head + '"' + 'x'.repeat(fill) : head + value + tail;
    const buf = Buffer.from(text, 'utf8');
    const parts: Buffer[] = [];
    for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
    const { res, closed } = responseOf(parts);
    const d = await drain(new StreamWatcher(res));
    assertEndsLikeStreamWatcher(d);
    if (buf.length > MAX_FRAME_LENGTH) {
      assert.equal(d.events.length, 1);
      assert.match((d.events[0].object as Status).message ?? '', /object to decode was longer than maximum allowed size/);
      assert.equal(closed(), true);
    } else if (kind === 'open') {
      assert.deepEqual(d.events, []);
      assert.equal(d.end, 'unexpected-eof');
    } else {
      assert.equal(d.events.length, 1);
      assert.equal(isDecodeError(d.events[0]), false);
      assert.equal(d.end, 'eof');
    }
  },
};

export const WATCH_TARGETS = [watchLines, watchUtf8, watchMutated, watchGzip, watchHuge];
