/**
 * A trace file read event by event (docs/trace-format.md, "Opening a trace without its
 * companion"). In the layout the exporter writes — the header, then `"events": [` and a line
 * break, one event per line (a comma after every one but the last), then `]` and `}` — each
 * event is parsed on its own line, where it starts in the file is known (the binary companion's
 * line offsets), and whether the file is the canonical text an export writes can be checked line
 * by line without writing it.
 *
 * readTraceLines accepts exactly the files importTrace accepts, with the same values, and
 * answers undefined for anything else: a file in another layout (minified, one event over
 * several lines, a byte-order mark, CRLF line ends) or with any problem at all. The caller then
 * gives the text to importTrace, the one reader that names a problem. It never throws.
 */
import { isAscii } from 'node:buffer';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { TRACE_FORMAT } from './recorder';
import { eventValid, MAX_NESTING, nestsDeeper, topLevelValid } from './traceFile';
import { eventWriter } from './traceExport';
import { openingText } from './traceWrite';

/** A file in the exporter's layout, its top level and header checked, its events not read yet. */
export interface ScannedLines {
  header: TraceHeader;
  /** Where each event's text starts in the file (its '{'), in bytes. */
  offsets: Float64Array;
  /** Where each event's text ends (before its comma or line break), in bytes. */
  ends: Float64Array;
  /** The file's bytes. */
  bytes: Uint8Array;
  /** The file is ASCII text (one character per byte). */
  ascii: boolean;
}

export interface TraceLines extends ScannedLines {
  events: RecordedEvent[];
}

const EVENTS_OPEN = Buffer.from('"events": [\n', 'utf8');
const SPACE = 32;
const NEWLINE = 10;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
/** What may follow the events array: the top-level object's end, with JSON whitespace around it. */
const CLOSING = /^[ \t\r\n]*\}[ \t\r\n]*$/;

const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** JSON.parse that answers undefined instead of throwing. */
function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The file's layout, top level and header when it has the exporter's line layout and the schema
 * accepts its top level and header; undefined otherwise. Its events are not read: `lineEvent`
 * reads one.
 */
export function scanTraceLines(bytes: Uint8Array): ScannedLines | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const open = buf.indexOf(EVENTS_OPEN);
  if (open < 0) return undefined;
  // Where each line starts and ends, in arrays grown by doubling (a guess of a line per 128 bytes to start).
  let offsets = new Float64Array(Math.max(16, bytes.byteLength >> 7));
  let ends = new Float64Array(offsets.length);
  let lines = 0;
  let pos = open + EVENTS_OPEN.length;
  let comma = false;
  let close = -1;
  while (close < 0) {
    const nl = buf.indexOf(NEWLINE, pos);
    let s = pos;
    while (buf[s] === SPACE) s++;
    if (buf[s] === CLOSE_BRACKET) {
      close = s;
      break;
    }
    // An event line after one without a comma, or no line end after it: not this layout.
    if (nl < 0 || buf[s] !== OPEN_BRACE || (lines > 0 && !comma)) return undefined;
    comma = buf[nl - 1] === COMMA;
    const e = comma ? nl - 1 : nl;
    if (buf[e - 1] !== CLOSE_BRACE) return undefined;
    if (lines === offsets.length) {
      offsets = grown(offsets);
      ends = grown(ends);
    }
    offsets[lines] = s;
    ends[lines] = e;
    lines++;
    pos = nl + 1;
  }
  if (comma) return undefined;
  const rest = buf.toString('utf8', close + 1);
  if (!CLOSING.test(rest)) return undefined;
  const doc = parse(`${buf.toString('utf8', 0, open + EVENTS_OPEN.length)}]${rest}`);
  if (!isPlainObject(doc) || doc.format !== TRACE_FORMAT || !Array.isArray(doc.events) || doc.events.length !== 0) return undefined;
  if (nestsDeeper(doc, MAX_NESTING) || !topLevelValid(doc)) return undefined;
  return { header: doc.header as TraceHeader, offsets: offsets.slice(0, lines), ends: ends.slice(0, lines), bytes, ascii: isAscii(buf) };
}

/** A copy of `a` twice as long. */
function grown(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const out = new Float64Array(a.length * 2);
  out.set(a);
  return out;
}

/** The text of line i (its event, without the separator). */
export function lineText(lines: Pick<ScannedLines, 'offsets' | 'ends' | 'bytes' | 'ascii'>, i: number): string {
  const { offsets, ends, ascii, bytes } = lines;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(ascii ? 'latin1' : 'utf8', offsets[i], ends[i]);
}

/**
 * The event of line i as importTrace reads it — JSON.parse, then its type's compiled check of the
 * schema and the nesting limit (each event lies two levels below the document) — or undefined
 * when that line alone is not such an event.
 */
export function lineEvent(lines: Pick<ScannedLines, 'offsets' | 'ends' | 'bytes' | 'ascii'>, i: number): RecordedEvent | undefined {
  return eventOf(lineText(lines, i));
}

/** The event one line's text holds, read as lineEvent reads it. */
function eventOf(text: string): RecordedEvent | undefined {
  const e = parse(text);
  return isPlainObject(e) && eventValid(e) && !nestsDeeper(e, MAX_NESTING - 2) ? (e as unknown as RecordedEvent) : undefined;
}

/**
 * The trace in `bytes` (a file's content) when it has the exporter's line layout, each line is
 * one event on its own and importTrace would accept it; undefined otherwise (importTrace decides
 * and names the problem).
 */
export function readTraceLines(bytes: Uint8Array): TraceLines | undefined {
  const lines = scanTraceLines(bytes);
  if (!lines) return undefined;
  const n = lines.offsets.length;
  const events = new Array<RecordedEvent>(n);
  for (let i = 0; i < n; i++) {
    const e = lineEvent(lines, i);
    if (!e || (i > 0 && !(e.seq > events[i - 1].seq))) return undefined;
    events[i] = e;
  }
  return { ...lines, events };
}

/** Whether the bytes in [from, to) are exactly `text` (ASCII). */
function bytesAre(bytes: Uint8Array, from: number, to: number, text: string): boolean {
  if (to - from !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[from + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * Whether the file is the canonical text an export of its header and events writes
 * (exportTrace: the header as documented, each event's line as the line writer makes it after
 * redaction, the same separators), so that an export can copy its bytes. Without the events
 * (readTraceColumns keeps none), each line is read again as lineEvent reads it, except those its
 * reader marked as written as the line writer writes them (`asWritten`).
 */
export function isCanonicalText(lines: ScannedLines & { events?: readonly RecordedEvent[]; asWritten?: Uint8Array }): boolean {
  const { header, offsets, ends, bytes } = lines;
  const n = offsets.length;
  if (n === 0) return false;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // ASCII text has one character per byte: it is decoded once and lines are sliced from it.
  const ascii = lines.ascii ? buf.toString('latin1') : undefined;
  if (buf.toString('utf8', 0, offsets[0]) !== `${openingText(header)}[\n    `) return false;
  if (!bytesAre(bytes, ends[n - 1], bytes.length, '\n  ]\n}\n')) return false;
  const { redacted, line } = eventWriter(header);
  for (let i = 0; i < n; i++) {
    // ',\n    ' between two events (the scan saw the comma, the line break and spaces only).
    if (i > 0 && offsets[i] - ends[i - 1] !== 6) return false;
    // A line its reader found to be exactly what the line writer writes for its event.
    if (lines.asWritten?.[i] === 1) continue;
    const text = ascii !== undefined ? ascii.slice(offsets[i], ends[i]) : buf.toString('utf8', offsets[i], ends[i]);
    const e = lines.events ? lines.events[i] : eventOf(text);
    if (!e || text !== line(redacted(e))) return false;
  }
  return true;
}
