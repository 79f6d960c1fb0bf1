/**
 * A trace file's events read straight into the timeline's columns (src/protocol/eventColumns.ts),
 * for the trace reader's worker (traceRead.ts): no event object is made for a line of the
 * numerous types (notify, fifo.enqueue, fifo.pop, distribute, watch.event, rv) in the form the
 * exporter writes them — no whitespace, `seq`, `t`, `type` and then the type's fields in sorted
 * order, strings without escapes, plain decimal numbers. Such a line is checked against the
 * schema as it is decoded (its type's fields, their JSON types, enums, integer minimums, required
 * fields, a diff's items) and written as the row encodeRow writes for the event JSON.parse gives.
 *
 * Any other line — another type, a field the row does not hold, an escape, whitespace, an
 * exponent, keys out of order or repeated, anything unexpected — is read as importTrace reads it
 * (traceLines.ts `lineEvent`: JSON.parse and the whole schema's check) and encoded by encodeRow
 * or kept whole. So a file is accepted exactly when readTraceLines accepts it, with the same
 * columns as encodeBatch of its events.
 */
import type { RecordedEvent } from '../format/events';
import {
  ACCEPTED,
  CHANGES,
  EXTRA,
  HAS_DIFF,
  HAS_INITIAL_EVENTS_END,
  HAS_INITIAL_LIST,
  HAS_TOMBSTONE,
  INITIAL_EVENTS_END,
  INITIAL_LIST,
  IN_INITIAL_LIST,
  IS_SYNC,
  COLUMN_NAMES,
  CHANGE_SHIFT,
  StringTable,
  TOMBSTONE,
  allocateColumns,
  encodeRow,
  type ColumnBatch,
  type ColumnName,
  type EventColumnArrays,
} from '../protocol/eventColumns';
import { redactText } from '../trace/redact';
import { lineEvent, scanTraceLines, type ScannedLines } from '../trace/traceLines';

const QUOTE = 34;
const BACKSLASH = 92;
const ZERO = 48;
const NINE = 57;
const DOT = 46;
const MINUS = 45;
const LOWER_E = 101;
const UPPER_E = 69;
const MAX_COUNT = 0xffffffff;

/** A literal as the bytes it is written with (ASCII). */
const lit = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

// The line being decoded: the file's bytes, the position, and where the line ends. One line at a
// time on one thread, so module state rather than an object per line.
let b: Uint8Array = new Uint8Array(0);
let p = 0;
let end = 0;
/**
 * Whether the line is exactly what the line writer writes for its event (isCanonicalText): set
 * false by anything the decoder reads but the writer would write otherwise (a number, a diff
 * item, a string redaction would change).
 */
let asWritten = true;
/** Whether the file's strings are redacted when written (its header's redacted is not false). */
let redacting = true;
// The last string read: its bytes [strFrom, strTo) and their hash.
let strFrom = 0;
let strTo = 0;
let strHash = 0;

/** Consumes `l` when the line continues with it. */
function take(l: Uint8Array): boolean {
  const n = l.length;
  if (p + n > end) return false;
  for (let i = 0; i < n; i++) if (b[p + i] !== l[i]) return false;
  p += n;
  return true;
}

/** Consumes one byte when it is `c`. */
function takeByte(c: number): boolean {
  if (p >= end || b[p] !== c) return false;
  p++;
  return true;
}

/**
 * The rest of a string of printable ASCII without escapes (its opening quote consumed): sets
 * strFrom, strTo and strHash and consumes the closing quote. False for anything else (an escape,
 * a control character, a byte of a non-ASCII character: JSON.parse decides).
 */
function str(): boolean {
  let h = 0;
  for (let i = p; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) {
      strFrom = p;
      strTo = i;
      strHash = h;
      p = i + 1;
      return true;
    }
    if (c < 0x20 || c === BACKSLASH || c > 0x7e) return false;
    h = (Math.imul(h, 31) + c) | 0;
  }
  return false;
}

/** `"…"` as str(). */
const quoted = (): boolean => takeByte(QUOTE) && str();

/** A JSON integer ≥ 0 written as `0` or digits without a leading zero, at most 15 of them (exact); -1 otherwise. */
function count(): number {
  const from = p;
  let i = from;
  let v = 0;
  while (i < end) {
    const c = b[i];
    if (c < ZERO || c > NINE) break;
    v = v * 10 + (c - ZERO);
    i++;
  }
  const n = i - from;
  if (n === 0 || n > 15 || (n > 1 && b[from] === ZERO)) return -1;
  // A fraction or an exponent: another way to write a number, left to JSON.parse.
  const next = i < end ? b[i] : 0;
  if (next === DOT || next === LOWER_E || next === UPPER_E) return -1;
  p = i;
  return v;
}

/** A JSON number ≥ 0 written as digits with an optional fraction (no sign, no exponent), at most 30 characters; -1 otherwise. */
function plainNumber(): number {
  const from = p;
  let i = from;
  let v = 0;
  while (i < end && b[i] >= ZERO && b[i] <= NINE) v = v * 10 + (b[i++] - ZERO);
  const whole = i - from;
  if (whole === 0 || (whole > 1 && b[from] === ZERO)) return -1;
  let fraction = false;
  if (i < end && b[i] === DOT) {
    const f = ++i;
    while (i < end && b[i] >= ZERO && b[i] <= NINE) i++;
    if (i === f) return -1;
    fraction = true;
  }
  const next = i < end ? b[i] : 0;
  // Long enough to overflow (the schema wants a finite number) or not: JSON.parse and the schema decide.
  if (next === LOWER_E || next === UPPER_E || i - from > 30) return -1;
  p = i;
  if (!fraction && whole <= 15) return v;
  let text = '';
  for (let k = from; k < i; k++) text += String.fromCharCode(b[k]);
  const x = Number(text);
  // The line writer writes String(x): another text (a trailing zero, more digits than a double keeps) is not canonical.
  if (String(x) !== text) asWritten = false;
  return x;
}

const TRUE = lit('true');
const FALSE = lit('false');
const NULL = lit('null');
const bool = (): number => (take(TRUE) ? 1 : take(FALSE) ? 0 : -1);

/** Whether the last string read is `l`. */
function strIs(l: Uint8Array): boolean {
  const n = l.length;
  if (strTo - strFrom !== n) return false;
  for (let i = 0; i < n; i++) if (b[strFrom + i] !== l[i]) return false;
  return true;
}

/** Index of `"…"` in the list, -1 when it is none of them. */
function oneOf(list: readonly Uint8Array[]): number {
  if (!quoted()) return -1;
  for (let i = 0; i < list.length; i++) if (strIs(list[i])) return i;
  return -1;
}

/** A JSON value that holds no object or array: a string, a plain number, true, false or null. */
function scalar(): boolean {
  if (takeByte(QUOTE)) return str();
  if (take(TRUE) || take(FALSE) || take(NULL)) return true;
  takeByte(MINUS);
  return plainNumber() >= 0;
}

const NEW = lit('{"new":');
const OLD_FIRST = lit('{"old":');
const OLD = lit(',"old":');
const PATH_FIRST = lit('{"path":"');
const PATH = lit(',"path":"');

/** A fieldChange as the exporter writes it: keys among new, old, path in that order, path a string, values scalars. */
function fieldChange(): boolean {
  let first = true;
  if (take(NEW)) {
    if (!scalar()) return false;
    first = false;
  }
  if (take(first ? OLD_FIRST : OLD)) {
    if (!scalar()) return false;
    first = false;
  }
  return take(first ? PATH_FIRST : PATH) && str() && takeByte(125);
}

/** `[` items `]`, each read by `item`. */
function array(item: () => boolean): boolean {
  if (!takeByte(91)) return false;
  if (takeByte(93)) return true;
  for (;;) {
    if (!item()) return false;
    if (takeByte(93)) return true;
    if (!takeByte(44)) return false;
  }
}

const OPS = ['add', 'update', 'delete'].map(lit);
const DELTA_NAMES = ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync', 'ReplacedAll', 'SyncAll', 'Bookmark'];
const DELTAS = DELTA_NAMES.map(lit);
const SOURCE_NAMES = ['list', 'watchlist', 'event', 'bookmark'];
const SOURCES = SOURCE_NAMES.map(lit);
const CHANGE_NAMES = CHANGES.map(lit);
const ENQUEUE_TOMBSTONES = ['replace-queued', 'replace-known'].map(lit);

/**
 * The string table's refs of strings read from the bytes, by their bytes: a string seen before
 * costs its hash and a comparison, no string made (open addressing; entries are where the string
 * was first read in the file, which stays in memory while it is read).
 */
class ByteInterner {
  private slots = new Int32Array(1 << 12);
  private from: number[] = [];
  private len: number[] = [];
  private refs: number[] = [];
  /** Whether redaction would change the string (the line writer then writes another text). */
  private changed: boolean[] = [];

  constructor(private readonly strings: StringTable) {}

  /** The ref of the last string read (str()); a string redaction would change clears asWritten. */
  ref(): number {
    const n = strTo - strFrom;
    let mask = this.slots.length - 1;
    let at = strHash & mask;
    for (;;) {
      const slot = this.slots[at];
      if (slot === 0) break;
      const e = slot - 1;
      if (this.len[e] === n && this.same(this.from[e], n)) {
        if (this.changed[e]) asWritten = false;
        return this.refs[e];
      }
      at = (at + 1) & mask;
    }
    let text = '';
    for (let k = strFrom; k < strTo; k++) text += String.fromCharCode(b[k]);
    const ref = this.strings.ref(text);
    const changed = redacting && redactText(text) !== text;
    if (changed) asWritten = false;
    this.changed.push(changed);
    this.from.push(strFrom);
    this.len.push(n);
    this.refs.push(ref);
    this.slots[at] = this.refs.length;
    if (this.refs.length * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2);
      mask = this.slots.length - 1;
      for (let e = 0; e < this.refs.length; e++) {
        let h = 0;
        for (let k = this.from[e]; k < this.from[e] + this.len[e]; k++) h = (Math.imul(h, 31) + b[k]) | 0;
        let i = h & mask;
        while (this.slots[i] !== 0) i = (i + 1) & mask;
        this.slots[i] = e + 1;
      }
    }
    return ref;
  }

  private same(from: number, n: number): boolean {
    for (let i = 0; i < n; i++) if (b[from + i] !== b[strFrom + i]) return false;
    return true;
  }
}

// The row being read: what encodeRow would write. A string field is kept as where it lies
// (its ref is taken once the whole line has been read, in encodeRow's order).
interface Span {
  from: number;
  to: number;
  hash: number;
}
const spanOf = (x: Span): void => {
  x.from = strFrom;
  x.to = strTo;
  x.hash = strHash;
};
const KEY: Span = { from: 0, to: 0, hash: 0 };
const NAME: Span = { from: 0, to: 0, hash: 0 };
const RV: Span = { from: 0, to: 0, hash: 0 };
const OLD_RV: Span = { from: 0, to: 0, hash: 0 };
let hasKey = false;
let hasRv = false;
let hasOldRv = false;
/** The name column's string when it is not a span of the line (an enum), else undefined. */
let nameText: string | undefined;
let flags = 0;
let n1 = 0;
let n2 = 0;

const F_CHANGE = lit(',"change":');
const F_HANDLER = lit(',"handler":');
const F_INITIAL_LIST = lit(',"initialList":');
const F_IS_SYNC = lit(',"isSync":');
const F_KEY = lit(',"key":');
const F_OLD_RV = lit(',"oldRv":');
const F_OP = lit(',"op":');
const F_PENDING = lit(',"pending":');
const F_RV = lit(',"rv":');
const F_TOMBSTONE = lit(',"tombstone":');
const F_DELTA = lit(',"delta":');
const F_DEPTH_DELTAS = lit(',"depthDeltas":');
const F_DEPTH_KEYS = lit(',"depthKeys":');
const F_DELTAS = lit(',"deltas":[');
const F_IS_IN_INITIAL_LIST = lit(',"isInInitialList":');
const F_DELIVERED = lit(',"delivered":');
const F_DIFF = lit(',"diff":');
const F_SKIPPED = lit(',"skipped":');
const F_ACCEPTED = lit(',"accepted":');
const F_EVENT_TYPE = lit(',"eventType":');
const F_INITIAL_EVENTS_END = lit(',"initialEventsEnd":');
const F_SOURCE = lit(',"source":');

/** The change field's bits (none when absent), -1 when it is not one of CHANGES. */
function change(): number {
  if (!take(F_CHANGE)) return 0;
  const i = oneOf(CHANGE_NAMES);
  return i < 0 ? -1 : (i + 1) << CHANGE_SHIFT;
}

/** `,"name":<count>` fitting a count column; -1 when absent or otherwise. */
function countField(l: Uint8Array): number {
  if (!take(l)) return -1;
  const v = count();
  return v > MAX_COUNT ? -1 : v;
}

/** `,"name":true|false`: 1, 0, or -1 when absent or otherwise. */
function boolField(l: Uint8Array): number {
  return take(l) ? bool() : -1;
}

/** `,"name":"…"` into the span; false when absent or otherwise. */
function strField(l: Uint8Array, into: Span): boolean {
  if (!take(l) || !quoted()) return false;
  spanOf(into);
  return true;
}

// Each type's fields in sorted order as the schema (informer-trace-v1.schema.json) defines them
// and the row holds them; false: not this form (the line is read as importTrace reads it).

function notify(): boolean {
  const c = change();
  if (c < 0 || !strField(F_HANDLER, NAME)) return false;
  let extra = 0;
  if (take(F_INITIAL_LIST)) {
    const x = bool();
    if (x < 0) return false;
    extra = HAS_INITIAL_LIST | (x ? INITIAL_LIST : 0);
  }
  const sync = boolField(F_IS_SYNC);
  if (sync < 0 || !(hasKey = strField(F_KEY, KEY))) return false;
  if (take(F_OLD_RV)) {
    if (!quoted()) return false;
    spanOf(OLD_RV);
    hasOldRv = true;
  }
  const op = take(F_OP) ? oneOf(OPS) : -1;
  n1 = countField(F_PENDING);
  if (op < 0 || n1 < 0 || !(hasRv = strField(F_RV, RV))) return false;
  if (take(F_TOMBSTONE)) {
    const x = bool();
    if (x < 0) return false;
    extra |= HAS_TOMBSTONE | (x ? TOMBSTONE : 0);
  }
  flags = op | c | (sync ? IS_SYNC : 0) | extra;
  return true;
}

function fifoEnqueue(): boolean {
  const delta = take(F_DELTA) ? oneOf(DELTAS) : -1;
  n2 = countField(F_DEPTH_DELTAS);
  n1 = countField(F_DEPTH_KEYS);
  if (delta < 0 || n1 < 0 || n2 < 0 || !(hasKey = strField(F_KEY, KEY)) || !(hasRv = strField(F_RV, RV))) return false;
  nameText = DELTA_NAMES[delta];
  if (take(F_TOMBSTONE)) {
    const x = oneOf(ENQUEUE_TOMBSTONES);
    if (x < 0) return false;
    flags = HAS_TOMBSTONE | (x === 1 ? TOMBSTONE : 0);
  }
  return true;
}

/** The joined delta lists seen, by their codes (base 9, at most 8 deltas). */
const joinedDeltas = new Map<number, string>();

function fifoPop(): boolean {
  if (!take(F_DELTAS)) return false;
  let code = 0;
  let n = 0;
  if (!takeByte(93)) {
    for (;;) {
      const d = oneOf(DELTAS);
      if (d < 0 || ++n > 8) return false;
      code = code * 9 + d + 1;
      if (takeByte(93)) break;
      if (!takeByte(44)) return false;
    }
  }
  let joined = joinedDeltas.get(code);
  if (joined === undefined) {
    const names: string[] = [];
    for (let x = code; x > 0; x = Math.floor(x / 9)) names.unshift(DELTA_NAMES[(x % 9) - 1]);
    joined = names.join(',');
    joinedDeltas.set(code, joined);
  }
  nameText = joined;
  n2 = countField(F_DEPTH_DELTAS);
  n1 = countField(F_DEPTH_KEYS);
  const initial = boolField(F_IS_IN_INITIAL_LIST);
  if (n1 < 0 || n2 < 0 || initial < 0 || !(hasKey = strField(F_KEY, KEY))) return false;
  flags = initial ? IN_INITIAL_LIST : 0;
  return true;
}

function distribute(): boolean {
  const c = change();
  n1 = countField(F_DELIVERED);
  if (c < 0 || n1 < 0) return false;
  let diff = 0;
  if (take(F_DIFF)) {
    const at = p;
    if (!array(fieldChange)) return false;
    diff = HAS_DIFF;
    // A diff's items (paths, values, redaction of a Secret's payload) are left to the line writer.
    if (p !== at + 2) asWritten = false;
  }
  const sync = boolField(F_IS_SYNC);
  if (sync < 0 || !(hasKey = strField(F_KEY, KEY))) return false;
  if (take(F_OLD_RV)) {
    if (!quoted()) return false;
    spanOf(OLD_RV);
    hasOldRv = true;
  }
  const op = take(F_OP) ? oneOf(OPS) : -1;
  if (op < 0) return false;
  if (take(F_RV)) {
    if (!quoted()) return false;
    spanOf(RV);
    hasRv = true;
  }
  n2 = countField(F_SKIPPED);
  if (n2 < 0) return false;
  flags = op | c | (sync ? IS_SYNC : 0) | diff;
  return true;
}

function watchEvent(): boolean {
  const accepted = boolField(F_ACCEPTED);
  if (accepted < 0 || !strField(F_EVENT_TYPE, NAME)) return false;
  let extra = 0;
  if (take(F_INITIAL_EVENTS_END)) {
    const x = bool();
    if (x < 0) return false;
    extra = HAS_INITIAL_EVENTS_END | (x ? INITIAL_EVENTS_END : 0);
  }
  if (take(F_KEY)) {
    if (!quoted()) return false;
    spanOf(KEY);
    hasKey = true;
  }
  if (!(hasRv = strField(F_RV, RV))) return false;
  flags = (accepted ? ACCEPTED : 0) | extra;
  return true;
}

function rvEvent(): boolean {
  if (!(hasRv = strField(F_RV, RV)) || !take(F_SOURCE)) return false;
  const source = oneOf(SOURCES);
  if (source < 0) return false;
  nameText = SOURCE_NAMES[source];
  return true;
}

/** The row types in ROW_TYPES order, their names as bytes and their readers. */
const TYPES = ['notify', 'fifo.enqueue', 'fifo.pop', 'distribute', 'watch.event', 'rv'].map(lit);
const READERS = [notify, fifoEnqueue, fifoPop, distribute, watchEvent, rvEvent];

/** The interner of the file being read. */
let interner: ByteInterner | undefined;

/** The ref of a span's string. */
function refOf(x: Span): number {
  strFrom = x.from;
  strTo = x.to;
  strHash = x.hash;
  return interner!.ref();
}

/** A resource version's cell as encodeRv stores it: its number when it is a plain decimal of at most 15 digits, else -(string ref). */
function rvCell(x: Span): number {
  const n = x.to - x.from;
  if (n === 0 || n > 15 || (n > 1 && b[x.from] === ZERO)) return -refOf(x);
  let v = 0;
  for (let i = x.from; i < x.to; i++) {
    const c = b[i];
    if (c < ZERO || c > NINE) return -refOf(x);
    v = v * 10 + (c - ZERO);
  }
  return v;
}

const SEQ = lit('{"seq":');
const T = lit(',"t":');
const TYPE = lit(',"type":"');

/**
 * Writes row i from bytes[from, to) when it is an event of the numerous types in the exporter's
 * form that the schema accepts and a row holds: the same row encodeRow writes for the event
 * JSON.parse gives (its strings added to the table in the same order). False, and nothing
 * written, otherwise. `strings` must be the one table of the file being read (`begin`).
 */
function decodeRowLine(from: number, to: number, cols: EventColumnArrays, i: number, strings: StringTable): boolean {
  p = from;
  end = to;
  asWritten = true;
  if (!take(SEQ)) return false;
  const seq = count();
  if (seq < 0 || !take(T)) return false;
  const t = plainNumber();
  if (t < 0 || !take(TYPE) || !str()) return false;
  let code = 0;
  while (code < TYPES.length && !strIs(TYPES[code])) code++;
  if (code === TYPES.length) return false;
  hasKey = hasRv = hasOldRv = false;
  nameText = undefined;
  flags = n1 = n2 = 0;
  // The whole line and nothing after the event's closing brace.
  if (!READERS[code]() || !takeByte(125) || p !== to) return false;
  // Strings go into the table in encodeRow's order, so the table is the one encodeBatch makes.
  // (notify: handler, key, rv, oldRv; fifo.enqueue: key, delta, rv; fifo.pop: key, deltas;
  // distribute: key, rv, oldRv; watch.event: key, eventType, rv; rv: rv, source.)
  let nameRef = code === 0 ? refOf(NAME) : 0;
  const keyRef = hasKey ? refOf(KEY) : 0;
  if (code === 4) nameRef = refOf(NAME);
  else if (code === 1 || code === 2) nameRef = strings.ref(nameText!);
  const rvValue = hasRv ? rvCell(RV) : NaN;
  if (code === 5) nameRef = strings.ref(nameText!);
  const oldRvValue = hasOldRv ? rvCell(OLD_RV) : NaN;
  cols.seq[i] = seq;
  cols.t[i] = t;
  cols.type[i] = code;
  cols.key[i] = keyRef;
  cols.rv[i] = rvValue;
  cols.oldRv[i] = oldRvValue;
  cols.name[i] = nameRef;
  cols.n1[i] = n1;
  cols.n2[i] = n2;
  cols.flags[i] = flags;
  return true;
}

export interface ColumnLines extends ScannedLines {
  batch: ColumnBatch;
  /** How many lines were decoded straight into their rows (the others were parsed). */
  decoded: number;
  /** 1 for a line decoded straight into its row that is exactly what the line writer writes for its event (isCanonicalText need not read it again). */
  asWritten: Uint8Array;
}

/**
 * The trace in `bytes` as columns when it has the exporter's line layout, each line is one
 * event on its own and importTrace would accept it (exactly readTraceLines's files, with the
 * columns encodeBatch makes of its events); undefined otherwise. Never throws.
 */
export function readTraceColumns(bytes: Uint8Array): ColumnLines | undefined {
  const lines = scanTraceLines(bytes);
  if (!lines) return undefined;
  const { offsets, ends } = lines;
  const n = offsets.length;
  const cols = allocateColumns(n);
  const strings = new StringTable();
  const extras: RecordedEvent[] = [];
  const written = new Uint8Array(n);
  b = bytes;
  redacting = lines.header.redacted !== false;
  interner = new ByteInterner(strings);
  let decoded = 0;
  try {
    let last = -1;
    for (let i = 0; i < n; i++) {
      if (decodeRowLine(offsets[i], ends[i], cols, i, strings)) {
        decoded++;
        if (asWritten) written[i] = 1;
      } else {
        const e = lineEvent(lines, i);
        if (!e) return undefined;
        if (!encodeRow(e, cols, i, strings)) {
          cols.seq[i] = e.seq;
          cols.t[i] = e.t;
          cols.type[i] = EXTRA;
          extras.push(e);
        }
      }
      // Seqs are integers ≥ 0 (the schema): each above the last.
      if (i > 0 && !(cols.seq[i] > last)) return undefined;
      last = cols.seq[i];
    }
  } finally {
    b = new Uint8Array(0);
    interner = undefined;
  }
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const c of COLUMN_NAMES) columns[c] = cols[c].buffer as ArrayBuffer;
  return { ...lines, batch: { count: n, columns, strings: strings.strings, extras }, decoded, asWritten: written };
}
