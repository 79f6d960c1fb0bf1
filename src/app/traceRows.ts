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
  writeRow,
  type ColumnBatch,
  type ColumnName,
  type EventColumnArrays,
} from '../protocol/eventColumns';
import { isSecretResource } from '../trace/redact';
import { lineEvent, scanTraceLines, type ByteWindow, type ScannedLines } from '../trace/traceLines';
import {
  MAX_COUNT,
  array,
  atLineEnd,
  beginFile,
  beginWindow,
  beginLine,
  bool,
  count,
  endFile,
  fieldChange,
  lineAsWritten,
  field,
  lit,
  oneOf,
  plainNumber,
  quoted,
  refOf,
  rvCell,
  spanOf,
  str,
  strIs,
  take,
  takeByte,
  type Lit,
  type Span,
} from './traceLineLexer';

const OPS = ['add', 'update', 'delete'].map(lit);
const DELTA_NAMES = ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync', 'ReplacedAll', 'SyncAll', 'Bookmark'];
const DELTAS = DELTA_NAMES.map(lit);
const SOURCE_NAMES = ['list', 'watchlist', 'event', 'bookmark'];
const SOURCES = SOURCE_NAMES.map(lit);
const CHANGE_NAMES = CHANGES.map(lit);
const ENQUEUE_TOMBSTONES = ['replace-queued', 'replace-known'].map(lit);


// The row being read: what encodeRow would write. A string field is kept as where it lies
// (its ref is taken once the whole line has been read, in encodeRow's order).
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

const F_CHANGE = field(',"change":');
const F_HANDLER = field(',"handler":');
const F_INITIAL_LIST = field(',"initialList":');
const F_IS_SYNC = field(',"isSync":');
const F_KEY = field(',"key":');
const F_OLD_RV = field(',"oldRv":');
const F_OP = field(',"op":');
const F_PENDING = field(',"pending":');
const F_RV = field(',"rv":');
const F_TOMBSTONE = field(',"tombstone":');
const F_DELTA = field(',"delta":');
const F_DEPTH_DELTAS = field(',"depthDeltas":');
const F_DEPTH_KEYS = field(',"depthKeys":');
const F_DELTAS = field(',"deltas":[');
const F_IS_IN_INITIAL_LIST = field(',"isInInitialList":');
const F_DELIVERED = field(',"delivered":');
const F_DIFF = field(',"diff":');
const F_SKIPPED = field(',"skipped":');
const F_ACCEPTED = field(',"accepted":');
const F_EVENT_TYPE = field(',"eventType":');
const F_INITIAL_EVENTS_END = field(',"initialEventsEnd":');
const F_SOURCE = field(',"source":');

/** The change field's bits (none when absent), -1 when it is not one of CHANGES. */
function change(): number {
  if (!take(F_CHANGE)) return 0;
  const i = oneOf(CHANGE_NAMES);
  return i < 0 ? -1 : (i + 1) << CHANGE_SHIFT;
}

/** `,"name":<count>` fitting a count column; -1 when absent or otherwise. */
function countField(l: Lit): number {
  if (!take(l)) return -1;
  const v = count();
  return v > MAX_COUNT ? -1 : v;
}

/** `,"name":true|false`: 1, 0, or -1 when absent or otherwise. */
function boolField(l: Lit): number {
  return take(l) ? bool() : -1;
}

/** `,"name":"…"` into the span; false when absent or otherwise. */
function strField(l: Lit, into: Span): boolean {
  if (!take(l) || !quoted()) return false;
  spanOf(into);
  return true;
}

/** An optional `,"name":"…"` into the span: 1 when there, 0 when absent, -1 when not a string. */
function optStrField(l: Lit, into: Span): number {
  if (!take(l)) return 0;
  if (!quoted()) return -1;
  spanOf(into);
  return 1;
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
  const oldRvAt = optStrField(F_OLD_RV, OLD_RV);
  if (oldRvAt < 0) return false;
  hasOldRv = oldRvAt === 1;
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
    if (!array(fieldChange)) return false;
    diff = HAS_DIFF;
  }
  const sync = boolField(F_IS_SYNC);
  if (sync < 0 || !(hasKey = strField(F_KEY, KEY))) return false;
  const oldRvAt = optStrField(F_OLD_RV, OLD_RV);
  if (oldRvAt < 0) return false;
  hasOldRv = oldRvAt === 1;
  const op = take(F_OP) ? oneOf(OPS) : -1;
  if (op < 0) return false;
  const rvAt = optStrField(F_RV, RV);
  if (rvAt < 0) return false;
  hasRv = rvAt === 1;
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
  const keyAt = optStrField(F_KEY, KEY);
  if (keyAt < 0) return false;
  hasKey = keyAt === 1;
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

const SEQ = field('{"seq":');
const T = field(',"t":');
const TYPE = field(',"type":"');

/**
 * Writes row i from bytes[from, to) when it is an event of the numerous types in the exporter's
 * form that the schema accepts and a row holds: the same row encodeRow writes for the event
 * JSON.parse gives (its strings added to the table in the same order). False, and nothing
 * written, otherwise. `strings` must be the one table of the file being read (`begin`).
 */
function decodeRowLine(from: number, to: number, cols: EventColumnArrays, i: number, strings: StringTable): boolean {
  beginLine(from, to);
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
  if (!READERS[code]() || !takeByte(125) || !atLineEnd()) return false;
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
  writeRow(cols, i, seq, t, code, keyRef, rvValue, oldRvValue, nameRef, n1, n2, flags);
  return true;
}

export interface ColumnLines extends ScannedLines {
  batch: ColumnBatch;
  /** How many lines were decoded straight into their rows (the others were parsed). */
  decoded: number;
  /** 1 for a line decoded straight into its row that is exactly what the line writer writes for its event (isCanonicalText need not read it again). */
  asWritten: Uint8Array;
}

/** What redaction does to a file's strings when it is written (its header): decodeLines needs it to tell lines written as the line writer writes them. */
export interface Redaction {
  /** The header's redacted is not false. */
  redacted: boolean;
  /** A trace of Secrets. */
  secret: boolean;
}

export const redactionOf = (header: ScannedLines['header']): Redaction => ({ redacted: header.redacted !== false, secret: isSecretResource({ resource: header.resource }) });

/** Lines of a file: where each starts and ends in its bytes. */
export type LineSpans = Pick<ScannedLines, 'offsets' | 'ends' | 'window' | 'ascii'>;

/** Lines decoded into rows 0 … n - 1 (decodeLines). */
export interface DecodedRows {
  cols: EventColumnArrays;
  strings: StringTable;
  /** The EXTRA rows' events, in row order. */
  extras: RecordedEvent[];
  decoded: number;
  asWritten: Uint8Array;
}

/** decodeLines's calls while it decodes: `decoded` after every `every` rows (not after the last), with the rows so far. */
export interface BlockCalls {
  every: number;
  decoded: (rows: Pick<DecodedRows, 'cols' | 'strings' | 'extras'>, to: number) => void;
}

/**
 * Every line of `lines` decoded into rows 0 … n - 1 of `into` (fresh columns of n rows when not
 * given; `into` may be longer): a line of the numerous types in the exporter's form straight
 * from the bytes, any other as lineEvent reads it; the strings in a table of their own, in the
 * order encodeBatch adds them. Undefined when a line is not an event importTrace accepts or the
 * seqs do not increase.
 */
export function decodeLines(lines: LineSpans, redaction: Redaction, into?: { cols: EventColumnArrays; asWritten: Uint8Array }, blocks?: BlockCalls): DecodedRows | undefined {
  const { offsets, ends } = lines;
  const n = offsets.length;
  const cols = into?.cols ?? allocateColumns(n);
  const strings = new StringTable();
  const extras: RecordedEvent[] = [];
  const written = into?.asWritten ?? new Uint8Array(n);
  const w = lines.window;
  // The window's bytes as the lexer reads them (it moves on over a large file, and grows for a long line: FileWindow).
  let held = w.bytes;
  beginFile(held, strings, redaction.redacted, redaction.secret);
  let decoded = 0;
  try {
    let last = -1;
    for (let i = 0; i < n; i++) {
      const from = offsets[i];
      const to = ends[i];
      w.need(from, to);
      if (w.bytes !== held) beginWindow((held = w.bytes));
      const base = w.base;
      if (decodeRowLine(from - base, to - base, cols, i, strings)) {
        decoded++;
        if (lineAsWritten()) written[i] = 1;
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
      // A whole block decoded (not the last rows: the caller sends those once every line is read).
      if (blocks && (i + 1) % blocks.every === 0 && i + 1 < n) blocks.decoded({ cols, strings, extras }, i + 1);
    }
  } finally {
    endFile();
  }
  return { cols, strings, extras, decoded, asWritten: written };
}

/** The file's lines and their rows as readTraceColumns answers them. */
export function columnLines(lines: ScannedLines, rows: DecodedRows): ColumnLines {
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const c of COLUMN_NAMES) columns[c] = rows.cols[c].buffer as ArrayBuffer;
  return { ...lines, batch: { count: lines.offsets.length, columns, strings: rows.strings.strings, extras: rows.extras }, decoded: rows.decoded, asWritten: rows.asWritten };
}

/**
 * The trace in `file` (its bytes, or a window over it) as columns when it has the exporter's line
 * layout, each line is one event on its own and importTrace would accept it (exactly
 * readTraceLines's files, with the columns encodeBatch makes of its events); undefined otherwise.
 * Throws only when a FileWindow's file is cut short while it is read.
 */
export function readTraceColumns(file: Uint8Array | ByteWindow): ColumnLines | undefined {
  const lines = scanTraceLines(file);
  if (!lines) return undefined;
  const rows = decodeLines(lines, redactionOf(lines.header));
  return rows && columnLines(lines, rows);
}
