/**
 * A snapshot's event columns packed for the trip from the extension host to the webview.
 *
 * Moving bytes to a webview in code-server costs about as much CPU per byte as everything else
 * an open does (the extension host deflates them for the WebSocket, the browser inflates them and
 * the workbench copies them; bench/webviewTransit.ts), and the columns as they are held take 53
 * bytes per event. Packed, each column is a stream of small tokens: a column's value as the
 * difference from the one before it, zigzag-folded and written as a variable-length integer, and
 * a repeat token for a run of equal differences. seq (consecutive) and a replay's time then cost
 * almost nothing; a key, resource version, name or count usually one or two bytes.
 *
 * Integer columns (Uint8, Uint32): a token x is
 *   x even: the value is the previous value (0 before the first) + unzigzag(x / 2);
 *   x odd:  the last value token again, (x - 1) / 2 times.
 * Float64 columns (seq, t, rv, oldRv), by x mod 4:
 *   0: the value is `base` + unzigzag(floor(x / 4)), where `base` is the last value sent this way
 *      (0 before the first); only safe integers other than -0 go this way;
 *   1: NaN;
 *   2: the value follows as 8 bytes (IEEE 754, little-endian), exactly as held;
 *   3: the last value token again, (x - 3) / 4 times.
 * Every value comes back exactly (-0 and fractions included). Columns follow one another in
 * COLUMN_NAMES order, each of `count` values. Variable-length integers are LEB128 (7 bits per
 * byte, least significant first), at most 8 bytes.
 */
import type { RecordedEvent } from '../format/events';
import { COLUMN_NAMES, EVENT_COLUMNS, type ColumnBatch, type ColumnName, type EventColumnArrays } from './eventColumns';

/** The layout of `packed` described above; another number is not read. */
export const PACKING = 1;

/**
 * `packed` holds the bytes of PACKING compressed with zlib's deflate (RFC 1950): a large batch on
 * its way to a webview (src/vscode/columnsOut.ts). Each process that carries a message to the
 * webview in code-server spends CPU per byte it carries (bench/webviewTransit.ts), so the 8.3 MB
 * of the 1M-event trace's packed columns go as ~1 MB. The page inflates them
 * (webview/model/inflate.ts) before they are unpacked; unpackColumns does not read this packing.
 */
export const DEFLATED_PACKING = 2;

/** A ColumnBatch whose columns are packed into one buffer. */
export interface PackedColumns {
  count: number;
  packing: number;
  packed: ArrayBuffer;
  strings: string[];
  /** The EXTRA rows' events, in row order (as in ColumnBatch). */
  extras: RecordedEvent[];
}

export function isPacked(b: ColumnBatch | PackedColumns): b is PackedColumns {
  return (b as PackedColumns).packed !== undefined;
}

/** Differences of float columns beyond this go as 8 bytes (x stays a safe integer). */
const MAX_DELTA = 2 ** 49;
const MAX_VARINT_BYTES = 8;

/** The most bytes one step of a packing loop writes: a repeat token and a value token, or a tag and a float. */
const STEP_BYTES = 2 * MAX_VARINT_BYTES + 8;

/**
 * The packed bytes as they are written, read back with done(). It starts at a size that holds a
 * typical batch (fresh memory is what a large one costs: a buffer grown by doubling touches twice
 * the bytes) and doubles when that is not enough.
 */
class Writer {
  buf: Uint8Array;
  n = 0;
  private view: DataView;

  constructor(capacity: number) {
    this.buf = new Uint8Array(Math.max(1 << 12, capacity));
    this.view = new DataView(this.buf.buffer);
  }

  /** Room for `k` more bytes after `at` (the caller's position, which becomes n); the buffer to write into. */
  room(at: number, k: number): Uint8Array {
    this.n = at;
    if (at + k <= this.buf.length) return this.buf;
    let size = this.buf.length * 2;
    while (size < at + k) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, at));
    this.buf = next;
    this.view = new DataView(next.buffer);
    return next;
  }

  /** v as 8 bytes at `at` (room made); the position after them. */
  float(at: number, v: number): number {
    this.view.setFloat64(at, v, true);
    return at + 8;
  }

  done(): ArrayBuffer {
    return this.buf.slice(0, this.n).buffer;
  }
}

/** x (an integer 0 ≤ x < 2^53) as a varint at `at` in buf (room made); the position after it. */
function putVarint(buf: Uint8Array, at: number, x: number): number {
  if (x < 128) {
    buf[at] = x;
    return at + 1;
  }
  if (x <= 0x7fffffff) {
    // 31 bits or fewer: shifts in place of division.
    while (x >= 128) {
      buf[at++] = (x & 127) | 128;
      x >>>= 7;
    }
    buf[at] = x;
    return at + 1;
  }
  while (x >= 128) {
    buf[at++] = (x % 128) | 128;
    x = Math.floor(x / 128);
  }
  buf[at] = x;
  return at + 1;
}

const zigzag = (d: number): number => (d >= 0 ? 2 * d : -2 * d - 1);
const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/*
 * The packing loops keep the writer's buffer and position in locals and make room once per
 * step (STEP_BYTES), not once per byte.
 */

function packInts(w: Writer, col: ArrayLike<number>, n: number): void {
  let buf = w.buf;
  let at = w.n;
  let prev = 0;
  let last = -1;
  let repeats = 0;
  for (let i = 0; i < n; i++) {
    const v = col[i];
    const x = 2 * zigzag(v - prev);
    prev = v;
    if (x === last) {
      repeats++;
      continue;
    }
    if (at + STEP_BYTES > buf.length) buf = w.room(at, STEP_BYTES);
    if (repeats > 0) at = putVarint(buf, at, 2 * repeats + 1);
    repeats = 0;
    at = putVarint(buf, at, x);
    last = x;
  }
  if (repeats > 0) {
    if (at + STEP_BYTES > buf.length) buf = w.room(at, STEP_BYTES);
    at = putVarint(buf, at, 2 * repeats + 1);
  }
  w.n = at;
}

function packFloats(w: Writer, col: Float64Array, n: number): void {
  let buf = w.buf;
  let at = w.n;
  let base = 0;
  // The last token: its x (0 or 1 mod 4), or -1 for a raw value `lastRaw`.
  let last = -2;
  let lastRaw = 0;
  let repeats = 0;
  for (let i = 0; i < n; i++) {
    const v = col[i];
    let x: number;
    if (v !== v) x = 1;
    else if (Number.isSafeInteger(v) && !Object.is(v, -0) && Math.abs(v - base) < MAX_DELTA) {
      x = 4 * zigzag(v - base);
      base = v;
    } else x = -1;
    if (x === last && (x !== -1 || Object.is(v, lastRaw))) {
      repeats++;
      continue;
    }
    if (at + STEP_BYTES > buf.length) buf = w.room(at, STEP_BYTES);
    if (repeats > 0) at = putVarint(buf, at, 4 * repeats + 3);
    repeats = 0;
    if (x === -1) {
      buf[at++] = 2;
      at = w.float(at, v);
      lastRaw = v;
    } else at = putVarint(buf, at, x);
    last = x;
  }
  if (repeats > 0) {
    if (at + STEP_BYTES > buf.length) buf = w.room(at, STEP_BYTES);
    at = putVarint(buf, at, 4 * repeats + 3);
  }
  w.n = at;
}

const packedCache = new WeakMap<ColumnBatch, PackedColumns>();

/**
 * The batch packed (the same object for the same batch: a trace's columns are packed once); with
 * `from`, its rows are those from that row of its columns' buffers on (a block of a trace's
 * shared columns, src/app/traceBlocks.ts), and nothing is cached.
 */
export function packColumns(b: ColumnBatch, from = 0): PackedColumns {
  const cached = from === 0 ? packedCache.get(b) : undefined;
  if (cached) return cached;
  // The bench's 1M-event trace packs into 8.3 bytes per event; pages of the buffer never written are never touched.
  const w = new Writer(Math.min(b.count * 12, 1 << 30));
  for (const name of COLUMN_NAMES) {
    const Ctor = EVENT_COLUMNS[name];
    const col = new Ctor(b.columns[name], from * Ctor.BYTES_PER_ELEMENT, b.count);
    if (col instanceof Float64Array) packFloats(w, col, b.count);
    else packInts(w, col, b.count);
  }
  const packed: PackedColumns = { count: b.count, packing: PACKING, packed: w.done(), strings: b.strings, extras: b.extras };
  if (from === 0) packedCache.set(b, packed);
  return packed;
}

/** Thrown inside unpacking when the bytes do not decode; unpackColumns answers undefined. */
class Malformed extends Error {}

class Reader {
  private readonly view: DataView;
  pos = 0;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get atEnd(): boolean {
    return this.pos === this.bytes.length;
  }

  varint(): number {
    const b = this.bytes;
    let x = 0;
    let scale = 1;
    for (let k = 0; k < MAX_VARINT_BYTES; k++) {
      if (this.pos >= b.length) throw new Malformed();
      const byte = b[this.pos++];
      x += (byte & 127) * scale;
      if (byte < 128) return x;
      scale *= 128;
    }
    throw new Malformed();
  }

  float(): number {
    if (this.pos + 8 > this.bytes.length) throw new Malformed();
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
}

/*
 * The unpacking loops keep the position in a local and read a token of one or two bytes (most
 * are: a small difference, a short run) from the bytes themselves, leaving a longer one to
 * Reader.varint; a token below 2^31 is split with shifts, a larger one with division.
 */

/** Where the token token() read last ends (one unpacking at a time on a thread). */
let tokenEnd = 0;

/** The token at `at` of r's bytes (one or two bytes read here, a longer one by Reader.varint); tokenEnd is set to where it ends. */
function token(r: Reader, at: number): number {
  const bytes = r.bytes;
  const b0 = at < bytes.length ? bytes[at] : 128;
  if (b0 < 128) {
    tokenEnd = at + 1;
    return b0;
  }
  if (at + 1 < bytes.length && bytes[at + 1] < 128) {
    tokenEnd = at + 2;
    return (b0 & 127) | (bytes[at + 1] << 7);
  }
  r.pos = at;
  const x = r.varint();
  tokenEnd = r.pos;
  return x;
}

function unpackInts(r: Reader, out: Uint8Array | Uint32Array, n: number, max: number): void {
  let at = r.pos;
  let v = 0;
  let d = 0;
  let i = 0;
  let seen = false;
  while (i < n) {
    const x = token(r, at);
    at = tokenEnd;
    const small = x <= 0x7fffffff;
    if ((small ? x & 1 : x % 2) === 0) {
      // x / 2 unzigzagged.
      d = small ? (x & 2 ? -((x >>> 2) + 1) : x >>> 2) : unzigzag(x / 2);
      seen = true;
      v += d;
      if (v < 0 || v > max) throw new Malformed();
      out[i++] = v;
      continue;
    }
    const times = (x - 1) / 2;
    if (!seen || times === 0 || i + times > n) throw new Malformed();
    // A run adds d `times` times: every value of it is in range when its first and last are.
    if (v + d < 0 || v + d > max || v + times * d < 0 || v + times * d > max) throw new Malformed();
    for (let k = 0; k < times; k++) {
      v += d;
      out[i++] = v;
    }
  }
  r.pos = at;
}

function unpackFloats(r: Reader, out: Float64Array, n: number): void {
  let at = r.pos;
  let base = 0;
  let tag = -1;
  let d = 0;
  let raw = 0;
  let i = 0;
  while (i < n) {
    const x = token(r, at);
    at = tokenEnd;
    const small = x <= 0x7fffffff;
    const t = small ? x & 3 : x % 4;
    if (t === 0) {
      tag = 0;
      // floor(x / 4) unzigzagged.
      d = small ? (x & 4 ? -((x >>> 3) + 1) : x >>> 3) : unzigzag(Math.floor(x / 4));
      base += d;
      out[i++] = base;
      continue;
    }
    let times = 1;
    if (t === 3) {
      times = (x - 3) / 4;
      if (tag < 0 || times === 0 || i + times > n) throw new Malformed();
    } else {
      tag = t;
      if (t === 2) {
        if (x !== 2) throw new Malformed();
        r.pos = at;
        raw = r.float();
        at = r.pos;
      } else if (x !== 1) throw new Malformed();
    }
    if (tag === 0) {
      for (let k = 0; k < times; k++) {
        base += d;
        out[i++] = base;
      }
    } else {
      const value = tag === 1 ? NaN : raw;
      for (let k = 0; k < times; k++) out[i++] = value;
    }
  }
  r.pos = at;
}

/**
 * The batch a packed one stands for (its columns fresh ArrayBuffers of `count` elements), or
 * undefined when it cannot be: another packing, bytes that do not decode to exactly `count`
 * values per column, a value out of its column's range. What the columns say is checked where
 * they are used (eventColumns.batchArrays).
 */
export function unpackColumns(p: PackedColumns): ColumnBatch | undefined {
  const n = p.count;
  if (!Number.isSafeInteger(n) || n < 0) return undefined;
  const cols = {} as Record<ColumnName, Float64Array | Uint32Array | Uint8Array>;
  for (const name of COLUMN_NAMES) cols[name] = new EVENT_COLUMNS[name](n);
  if (!unpackColumnsInto(p, cols as EventColumnArrays)) return undefined;
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) columns[name] = cols[name].buffer as ArrayBuffer;
  return { count: n, columns, strings: p.strings, extras: p.extras };
}

/**
 * Unpacks the columns straight into `into` (arrays of each column's type, room for `count` values
 * from index 0 — views of a store's own columns, so that no block is held twice): false, with
 * `into` partly written, when unpackColumns would answer undefined or there is not room.
 */
export function unpackColumnsInto(p: PackedColumns, into: EventColumnArrays): boolean {
  const n = p.count;
  if (p.packing !== PACKING || !(p.packed instanceof ArrayBuffer) || !Number.isSafeInteger(n) || n < 0) return false;
  const r = new Reader(new Uint8Array(p.packed));
  try {
    for (const name of COLUMN_NAMES) {
      const col = into[name] as Float64Array | Uint32Array | Uint8Array;
      if (!(col instanceof EVENT_COLUMNS[name]) || col.length < n) return false;
      if (col instanceof Float64Array) unpackFloats(r, col, n);
      else unpackInts(r, col, n, col instanceof Uint8Array ? 0xff : 0xffffffff);
    }
  } catch (e) {
    if (e instanceof Malformed) return false;
    throw e;
  }
  return r.atEnd;
}
