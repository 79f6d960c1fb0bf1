/**
 * Trace events as columns: how a snapshot travels to the timeline webview and how the webview
 * keeps events. The numerous event types (notify, fifo.enqueue, fifo.pop, distribute,
 * watch.event, rv) become one row of fixed-size cells: seq and time, a type code, the object key
 * and other names as indices into a string table, resource versions as numbers, counts and a
 * bit field. Every other event, and any event with a field or value the layout does not hold,
 * travels whole in `extras` (type code EXTRA), so nothing is lost.
 *
 * One field is left out of the rows: a distribute event's `diff` (the changed fields of an
 * update, the bulk of a trace). A row says whether the event had one (HAS_DIFF); the webview
 * fetches it from the host when the event is selected. Decoding a row gives the event exactly as
 * it was, without that diff.
 *
 * Columns travel as ArrayBuffers, which VS Code hands to a webview without serialising them.
 */
import type { DeltaType, FieldChange, RecordedEvent, UpdateChange } from '../format/events';

/** Event types stored as rows; the type code is the index. */
export const ROW_TYPES = ['notify', 'fifo.enqueue', 'fifo.pop', 'distribute', 'watch.event', 'rv'] as const;
export type RowType = (typeof ROW_TYPES)[number];
/** The type code of an event carried whole. */
export const EXTRA = 255;

/** The columns, each with its element type. */
export const EVENT_COLUMNS = {
  seq: Float64Array,
  t: Float64Array,
  type: Uint8Array,
  /** String index + 1 of the key (0: no key). */
  key: Uint32Array,
  /** A resource version: its number when it is a plain decimal, -(string index + 1) otherwise, NaN when absent. */
  rv: Float64Array,
  oldRv: Float64Array,
  /** String index + 1 of the type's name field (handler, delta, deltas, eventType, source). */
  name: Uint32Array,
  /** Counts: pending / depthKeys / delivered. */
  n1: Uint32Array,
  /** Counts: depthDeltas / skipped. */
  n2: Uint32Array,
  flags: Uint32Array,
} as const;
export type ColumnName = keyof typeof EVENT_COLUMNS;
export const COLUMN_NAMES = Object.keys(EVENT_COLUMNS) as ColumnName[];

export type EventColumnArrays = { [K in ColumnName]: InstanceType<(typeof EVENT_COLUMNS)[K]> };

/** A snapshot's events as columns (ArrayBuffers of `count` elements each), strings and whole events. */
export interface ColumnBatch {
  count: number;
  columns: { [K in ColumnName]: ArrayBuffer };
  strings: string[];
  /** The EXTRA rows' events, in row order. */
  extras: RecordedEvent[];
}

// ---- flag bits
export const OP_MASK = 0b11; // index in OPS
export const IS_SYNC = 1 << 2;
export const HAS_INITIAL_LIST = 1 << 3;
export const INITIAL_LIST = 1 << 4;
/** notify: the tombstone field is present; fifo.enqueue: it carries a tombstone. */
export const HAS_TOMBSTONE = 1 << 5;
/** notify: tombstone is true; fifo.enqueue: 'replace-known' (else 'replace-queued'). */
export const TOMBSTONE = 1 << 6;
export const CHANGE_SHIFT = 7; // 3 bits: 0 none, else index + 1 in CHANGES
export const CHANGE_MASK = 0b111 << CHANGE_SHIFT;
/** The event had a diff, which the row does not hold. */
export const HAS_DIFF = 1 << 10;
export const ACCEPTED = 1 << 11;
export const HAS_INITIAL_EVENTS_END = 1 << 12;
export const INITIAL_EVENTS_END = 1 << 13;
export const IN_INITIAL_LIST = 1 << 14;

export const OPS = ['add', 'update', 'delete'] as const;
export const CHANGES: readonly UpdateChange[] = ['identical', 'resourceVersion', 'managedFields', 'status', 'other'];
export const ROW_CODE = new Map<string, number>(ROW_TYPES.map((t, i) => [t, i]));

/** The fields a row of each type holds; an event with any other field travels whole. */
const FIELDS: Record<RowType, ReadonlySet<string>> = {
  notify: new Set(['seq', 't', 'type', 'handler', 'op', 'key', 'rv', 'oldRv', 'isSync', 'initialList', 'tombstone', 'change', 'pending']),
  'fifo.enqueue': new Set(['seq', 't', 'type', 'key', 'delta', 'rv', 'depthKeys', 'depthDeltas', 'tombstone']),
  'fifo.pop': new Set(['seq', 't', 'type', 'key', 'deltas', 'isInInitialList', 'depthKeys', 'depthDeltas']),
  distribute: new Set(['seq', 't', 'type', 'op', 'key', 'isSync', 'delivered', 'skipped', 'change', 'diff', 'oldRv', 'rv']),
  'watch.event': new Set(['seq', 't', 'type', 'eventType', 'key', 'rv', 'accepted', 'initialEventsEnd']),
  rv: new Set(['seq', 't', 'type', 'rv', 'source']),
};

/** Strings of one batch or store, each once. */
export class StringTable {
  readonly strings: string[];
  private readonly index = new Map<string, number>();

  constructor(strings: string[] = []) {
    this.strings = strings;
    for (let i = 0; i < strings.length; i++) if (!this.index.has(strings[i])) this.index.set(strings[i], i);
  }

  /** index + 1 of s (added if new). */
  ref(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i + 1;
  }

  /** index + 1 of s, or 0 when the table does not hold it. */
  find(s: string): number {
    const i = this.index.get(s);
    return i === undefined ? 0 : i + 1;
  }

  at(ref: number): string | undefined {
    return ref > 0 ? this.strings[ref - 1] : undefined;
  }
}

const PLAIN_RV = /^(0|[1-9]\d{0,14})$/;

function encodeRv(v: string, strings: StringTable): number {
  return PLAIN_RV.test(v) ? Number(v) : -strings.ref(v);
}

export function decodeRv(x: number, strings: StringTable): string | undefined {
  if (Number.isNaN(x)) return undefined;
  return x >= 0 ? String(x) : (strings.at(-x) ?? '');
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff && !Object.is(v, -0);
const isStr = (v: unknown): v is string => typeof v === 'string';
const optional = <T>(v: unknown, ok: (x: unknown) => x is T): boolean => v === undefined || ok(v);
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';

function opCode(op: unknown): number {
  return (OPS as readonly unknown[]).indexOf(op);
}

function changeBits(change: unknown): number {
  if (change === undefined) return 0;
  const i = CHANGES.indexOf(change as UpdateChange);
  return i < 0 ? -1 : (i + 1) << CHANGE_SHIFT;
}

/**
 * Writes event e as row i; false (nothing meaningful written) when its type has no row layout
 * or one of its fields does not fit it: the caller keeps it whole.
 */
export function encodeRow(e: RecordedEvent, cols: EventColumnArrays, i: number, strings: StringTable): boolean {
  const code = ROW_CODE.get(e.type);
  if (code === undefined || !Number.isFinite(e.seq) || !Number.isFinite(e.t)) return false;
  const fields = FIELDS[ROW_TYPES[code]];
  const o = e as unknown as Record<string, unknown>;
  for (const k in o) if (!fields.has(k) || o[k] === undefined) return false;
  let flags = 0;
  let key = 0;
  let rv = NaN;
  let oldRv = NaN;
  let name = 0;
  let n1 = 0;
  let n2 = 0;
  switch (e.type) {
    case 'notify': {
      const op = opCode(e.op);
      const change = changeBits(e.change);
      if (op < 0 || change < 0 || !isStr(e.handler) || !isStr(e.key) || !isStr(e.rv) || !optional(e.oldRv, isStr) || !isBool(e.isSync)) return false;
      if (!optional(e.initialList, isBool) || !optional(e.tombstone, isBool) || !isCount(e.pending)) return false;
      flags = op | change | (e.isSync ? IS_SYNC : 0);
      if (e.initialList !== undefined) flags |= HAS_INITIAL_LIST | (e.initialList ? INITIAL_LIST : 0);
      if (e.tombstone !== undefined) flags |= HAS_TOMBSTONE | (e.tombstone ? TOMBSTONE : 0);
      name = strings.ref(e.handler);
      key = strings.ref(e.key);
      rv = encodeRv(e.rv, strings);
      if (e.oldRv !== undefined) oldRv = encodeRv(e.oldRv, strings);
      n1 = e.pending;
      break;
    }
    case 'fifo.enqueue':
      if (!isStr(e.key) || !isStr(e.delta) || !isStr(e.rv) || !isCount(e.depthKeys) || !isCount(e.depthDeltas)) return false;
      if (e.tombstone !== undefined && e.tombstone !== 'replace-queued' && e.tombstone !== 'replace-known') return false;
      if (e.tombstone !== undefined) flags = HAS_TOMBSTONE | (e.tombstone === 'replace-known' ? TOMBSTONE : 0);
      key = strings.ref(e.key);
      name = strings.ref(e.delta);
      rv = encodeRv(e.rv, strings);
      n1 = e.depthKeys;
      n2 = e.depthDeltas;
      break;
    case 'fifo.pop':
      if (!isStr(e.key) || !Array.isArray(e.deltas) || !e.deltas.every((d) => isStr(d) && !d.includes(','))) return false;
      if (!isBool(e.isInInitialList) || !isCount(e.depthKeys) || !isCount(e.depthDeltas)) return false;
      flags = e.isInInitialList ? IN_INITIAL_LIST : 0;
      key = strings.ref(e.key);
      name = strings.ref(e.deltas.join(','));
      n1 = e.depthKeys;
      n2 = e.depthDeltas;
      break;
    case 'distribute': {
      const op = opCode(e.op);
      const change = changeBits(e.change);
      if (op < 0 || change < 0 || !isStr(e.key) || !isBool(e.isSync) || !isCount(e.delivered) || !isCount(e.skipped)) return false;
      if (!optional(e.oldRv, isStr) || !optional(e.rv, isStr) || !optional(e.diff, Array.isArray)) return false;
      flags = op | change | (e.isSync ? IS_SYNC : 0) | (e.diff !== undefined ? HAS_DIFF : 0);
      key = strings.ref(e.key);
      if (e.rv !== undefined) rv = encodeRv(e.rv, strings);
      if (e.oldRv !== undefined) oldRv = encodeRv(e.oldRv, strings);
      n1 = e.delivered;
      n2 = e.skipped;
      break;
    }
    case 'watch.event':
      if (!isStr(e.eventType) || !optional(e.key, isStr) || !isStr(e.rv) || !isBool(e.accepted) || !optional(e.initialEventsEnd, isBool)) return false;
      flags = e.accepted ? ACCEPTED : 0;
      if (e.initialEventsEnd !== undefined) flags |= HAS_INITIAL_EVENTS_END | (e.initialEventsEnd ? INITIAL_EVENTS_END : 0);
      if (e.key !== undefined) key = strings.ref(e.key);
      name = strings.ref(e.eventType);
      rv = encodeRv(e.rv, strings);
      break;
    case 'rv':
      if (!isStr(e.rv) || !isStr(e.source)) return false;
      rv = encodeRv(e.rv, strings);
      name = strings.ref(e.source);
      break;
    default:
      return false;
  }
  writeRow(cols, i, e.seq, e.t, code, key, rv, oldRv, name, n1, n2, flags);
  return true;
}

/** One row of the columns, every cell of it (encodeRow's and the trace reader's rows, src/app/traceRows.ts). */
export function writeRow(cols: EventColumnArrays, i: number, seq: number, t: number, type: number, key: number, rv: number, oldRv: number, name: number, n1: number, n2: number, flags: number): void {
  cols.seq[i] = seq;
  cols.t[i] = t;
  cols.type[i] = type;
  cols.key[i] = key;
  cols.rv[i] = rv;
  cols.oldRv[i] = oldRv;
  cols.name[i] = name;
  cols.n1[i] = n1;
  cols.n2[i] = n2;
  cols.flags[i] = flags;
}

/** The event of row i (a row of a ROW_TYPES type; a distribute's diff is not in it). */
export function decodeRow(cols: EventColumnArrays, i: number, strings: StringTable): RecordedEvent {
  const seq = cols.seq[i];
  const t = cols.t[i];
  const flags = cols.flags[i];
  const key = strings.at(cols.key[i]);
  const name = strings.at(cols.name[i]) ?? '';
  const rv = decodeRv(cols.rv[i], strings);
  const oldRv = decodeRv(cols.oldRv[i], strings);
  const change = (flags & CHANGE_MASK) >> CHANGE_SHIFT;
  const out: Record<string, unknown> = { seq, t, type: ROW_TYPES[cols.type[i]] };
  switch (ROW_TYPES[cols.type[i]]) {
    case 'notify':
      out.handler = name;
      out.op = OPS[flags & OP_MASK];
      out.key = key ?? '';
      out.rv = rv ?? '';
      if (oldRv !== undefined) out.oldRv = oldRv;
      out.isSync = (flags & IS_SYNC) !== 0;
      if (flags & HAS_INITIAL_LIST) out.initialList = (flags & INITIAL_LIST) !== 0;
      if (flags & HAS_TOMBSTONE) out.tombstone = (flags & TOMBSTONE) !== 0;
      if (change) out.change = CHANGES[change - 1];
      out.pending = cols.n1[i];
      break;
    case 'fifo.enqueue':
      out.key = key ?? '';
      out.delta = name as DeltaType;
      out.rv = rv ?? '';
      out.depthKeys = cols.n1[i];
      out.depthDeltas = cols.n2[i];
      if (flags & HAS_TOMBSTONE) out.tombstone = flags & TOMBSTONE ? 'replace-known' : 'replace-queued';
      break;
    case 'fifo.pop':
      out.key = key ?? '';
      out.deltas = name === '' ? [] : name.split(',');
      out.isInInitialList = (flags & IN_INITIAL_LIST) !== 0;
      out.depthKeys = cols.n1[i];
      out.depthDeltas = cols.n2[i];
      break;
    case 'distribute':
      out.op = OPS[flags & OP_MASK];
      out.key = key ?? '';
      out.isSync = (flags & IS_SYNC) !== 0;
      out.delivered = cols.n1[i];
      out.skipped = cols.n2[i];
      if (change) out.change = CHANGES[change - 1];
      if (oldRv !== undefined) out.oldRv = oldRv;
      if (rv !== undefined) out.rv = rv;
      break;
    case 'watch.event':
      out.eventType = name;
      if (key !== undefined) out.key = key;
      out.rv = rv ?? '';
      out.accepted = (flags & ACCEPTED) !== 0;
      if (flags & HAS_INITIAL_EVENTS_END) out.initialEventsEnd = (flags & INITIAL_EVENTS_END) !== 0;
      break;
    case 'rv':
      out.rv = rv ?? '';
      out.source = name;
      break;
    default:
      break;
  }
  return out as unknown as RecordedEvent;
}

export function allocateColumns(n: number): EventColumnArrays {
  const out = {} as Record<ColumnName, unknown>;
  for (const name of COLUMN_NAMES) out[name] = new EVENT_COLUMNS[name](n);
  return out as EventColumnArrays;
}

/** Encodes events[from, to) as rows from … to - 1 of `cols`; an event no row type holds becomes an EXTRA row, whole in `extras`. */
export function encodeRows(events: readonly RecordedEvent[], cols: EventColumnArrays, strings: StringTable, extras: RecordedEvent[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const e = events[i];
    if (!encodeRow(e, cols, i, strings)) {
      cols.seq[i] = e.seq;
      cols.t[i] = e.t;
      cols.type[i] = EXTRA;
      extras.push(e);
    }
  }
}

/** The events as one batch (the host's side of a snapshot). */
export function encodeBatch(events: readonly RecordedEvent[]): ColumnBatch {
  const n = events.length;
  const cols = allocateColumns(n);
  const strings = new StringTable();
  const extras: RecordedEvent[] = [];
  encodeRows(events, cols, strings, extras, 0, n);
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) columns[name] = cols[name].buffer as ArrayBuffer;
  return { count: n, columns, strings: strings.strings, extras };
}

/**
 * The typed arrays of a batch, or undefined when it is not well formed: every column an
 * ArrayBuffer (or SharedArrayBuffer) of exactly `count` elements, strings all strings, one whole event per EXTRA row
 * (with that row's seq and time),
 * every row's type code known, times finite and seqs increasing.
 */
export function batchArrays(b: ColumnBatch): EventColumnArrays | undefined {
  const n = b.count;
  if (!Number.isInteger(n) || n < 0) return undefined;
  const out = {} as Record<ColumnName, unknown>;
  for (const name of COLUMN_NAMES) {
    const buf: unknown = b.columns?.[name];
    const Ctor = EVENT_COLUMNS[name];
    // A SharedArrayBuffer too: a trace read in blocks holds the columns its reader's worker decoded into (src/app/traceBlocks.ts).
    if (!(buf instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && buf instanceof SharedArrayBuffer)) || buf.byteLength !== n * Ctor.BYTES_PER_ELEMENT) return undefined;
    out[name] = new Ctor(buf as ArrayBuffer);
  }
  const cols = out as EventColumnArrays;
  return rowsValid(cols, n, b) ? cols : undefined;
}

/**
 * Whether the first `n` rows of `cols` say what a batch's rows must (batchArrays' checks past the
 * buffers' sizes): known row types, finite times, increasing seqs, one event kept whole (of that
 * row's seq and time) in `b.extras` for each EXTRA row and no more, strings that are strings.
 */
export function rowsValid(cols: EventColumnArrays, n: number, b: Pick<ColumnBatch, 'strings' | 'extras'>): boolean {
  if (!Array.isArray(b.strings) || !Array.isArray(b.extras)) return false;
  let extraRows = 0;
  for (let i = 0; i < n; i++) {
    const code = cols.type[i];
    if (code === EXTRA) {
      const x: unknown = b.extras[extraRows++];
      const ok = typeof x === 'object' && x !== null && typeof (x as RecordedEvent).type === 'string';
      if (!ok || (x as RecordedEvent).seq !== cols.seq[i] || (x as RecordedEvent).t !== cols.t[i]) return false;
    } else if (code >= ROW_TYPES.length) return false;
    if (!Number.isFinite(cols.t[i]) || !(i === 0 ? Number.isFinite(cols.seq[0]) : cols.seq[i] > cols.seq[i - 1])) return false;
  }
  return extraRows === b.extras.length && b.strings.every((s) => typeof s === 'string');
}

/** The diff a details pane shows for a notification: the distribute event of the same key just before it (none past a FIFO pop). */
export function diffSourceIndex(count: number, typeAt: (i: number) => string, keyAt: (i: number) => string | undefined, index: number, key: string): number {
  for (let i = Math.min(index, count) - 1; i >= 0; i--) {
    const type = typeAt(i);
    if (type === 'distribute' && keyAt(i) === key) return i;
    if (type === 'fifo.pop') return -1;
  }
  return -1;
}

/** The changed fields of a distribute event, if it carries them. */
export function diffOf(e: RecordedEvent | undefined): FieldChange[] | undefined {
  return e?.type === 'distribute' ? e.diff : undefined;
}

/** The events of a batch, rebuilt (diffs left out); undefined when the batch is malformed. */
export function decodeBatch(b: ColumnBatch): RecordedEvent[] | undefined {
  const cols = batchArrays(b);
  if (!cols) return undefined;
  const strings = new StringTable(b.strings);
  const out: RecordedEvent[] = [];
  let next = 0;
  for (let i = 0; i < b.count; i++) out.push(cols.type[i] === EXTRA ? b.extras[next++] : decodeRow(cols, i, strings));
  return out;
}

/**
 * The host's answer to a details pane: the diff of the event with that seq, or of the distribute
 * event a notification stands for. `events` in seq order.
 */
export function diffForSeq(events: readonly RecordedEvent[], seq: number): FieldChange[] | undefined {
  return diffForSeqIn(events.length, (i) => events[i], seq);
}

/** diffForSeq over `count` events in seq order read by index (a packed window's, made one at a time). */
export function diffForSeqIn(count: number, at: (i: number) => RecordedEvent, seq: number): FieldChange[] | undefined {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(mid).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  const e = lo < count ? at(lo) : undefined;
  if (!e || e.seq !== seq) return undefined;
  if (e.type === 'distribute') return e.diff;
  if (e.type !== 'notify') return undefined;
  const source = diffSourceIndex(count, (i) => at(i).type, (i) => (at(i) as { key?: string }).key, lo, e.key);
  return source < 0 ? undefined : diffOf(at(source));
}
