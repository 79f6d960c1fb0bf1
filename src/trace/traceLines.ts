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
import { readSync } from 'node:fs';
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
  /** The file's bytes: all of them, or a window moved over the file (ByteWindow). */
  window: ByteWindow;
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
 * A file's bytes as its lines are read: all of them in memory (memoryWindow), or a window moved
 * over the file (FileWindow: a large file is never all in memory; on these machines filling a
 * fresh buffer as large as the file costs more than scanning its lines). `bytes[i]` and `buf[i]`
 * are the file's byte at `base + i`, for i < length.
 */
export interface ByteWindow {
  readonly size: number;
  readonly bytes: Uint8Array;
  /** The bytes held, [0, length) of `bytes` (a search in it stops at their end). */
  readonly buf: Buffer;
  readonly base: number;
  readonly length: number;
  /** Makes the file's [from, to) present (0 ≤ from ≤ to ≤ size), and as much after it as the window holds. */
  need(from: number, to: number): void;
  /** Whether every byte the window has held is ASCII (one character per byte); for a FileWindow, once it has held them all. */
  readonly ascii: boolean;
}

/** All of a file's bytes as a ByteWindow. */
export function memoryWindow(bytes: Uint8Array): ByteWindow {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let ascii: boolean | undefined;
  return {
    size: bytes.byteLength,
    bytes,
    buf,
    base: 0,
    length: bytes.byteLength,
    need: () => {},
    get ascii() {
      return (ascii ??= isAscii(buf));
    },
  };
}

/** The file's bytes [from, to) of w as text (UTF-8, or Latin-1 for an ASCII file). */
export function windowText(w: ByteWindow, from: number, to: number, ascii: boolean): string {
  w.need(from, to);
  return w.buf.toString(ascii ? 'latin1' : 'utf8', from - w.base, to - w.base);
}

/**
 * Where the next line break at or after `pos` is in the file (-1: none before its end), moving
 * the window on to `pos` when it is not in what the window holds; the line [pos, nl] is then in it.
 */
function nextLineBreak(w: ByteWindow, pos: number): number {
  for (;;) {
    const rel = pos - w.base < w.length ? w.buf.indexOf(NEWLINE, pos - w.base) : -1;
    if (rel >= 0) return w.base + rel;
    const end = w.base + w.length;
    if (end >= w.size) return -1;
    // One byte past what is held: the window moves to pos and, for a line longer than it, grows.
    w.need(pos, end + 1);
  }
}

/**
 * The file's layout, top level and header when it has the exporter's line layout and the schema
 * accepts its top level and header; undefined otherwise. Its events are not read: `lineEvent`
 * reads one.
 */
export function scanTraceLines(file: Uint8Array | ByteWindow): ScannedLines | undefined {
  const w = file instanceof Uint8Array ? memoryWindow(file) : file;
  // The head, up to and with the events array's opening, is read whole.
  w.need(0, Math.min(w.size, 1));
  let open = w.buf.indexOf(EVENTS_OPEN);
  while (open < 0) {
    if (w.length >= w.size) return undefined;
    w.need(0, Math.min(w.size, w.length * 2 + 1));
    open = w.buf.indexOf(EVENTS_OPEN);
  }
  const head = w.buf.toString('utf8', 0, open + EVENTS_OPEN.length);
  // Where each line starts and ends, in arrays grown by doubling (a guess of a line per 128 bytes to start).
  let offsets = new Float64Array(Math.max(16, w.size >> 7));
  let ends = new Float64Array(offsets.length);
  let lines = 0;
  let pos = open + EVENTS_OPEN.length;
  let comma = false;
  let close = -1;
  const at = (i: number): number => w.bytes[i - w.base];
  while (close < 0) {
    const nl = nextLineBreak(w, pos);
    if (nl < 0) w.need(pos, w.size);
    let s = pos;
    while (s < w.size && at(s) === SPACE) s++;
    if (s < w.size && at(s) === CLOSE_BRACKET) {
      close = s;
      break;
    }
    // An event line after one without a comma, or no line end after it: not this layout.
    if (nl < 0 || at(s) !== OPEN_BRACE || (lines > 0 && !comma)) return undefined;
    comma = at(nl - 1) === COMMA;
    const e = comma ? nl - 1 : nl;
    if (at(e - 1) !== CLOSE_BRACE) return undefined;
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
  const rest = windowText(w, close + 1, w.size, false);
  if (!CLOSING.test(rest)) return undefined;
  const doc = parse(`${head}]${rest}`);
  if (!isPlainObject(doc) || doc.format !== TRACE_FORMAT || !Array.isArray(doc.events) || doc.events.length !== 0) return undefined;
  if (nestsDeeper(doc, MAX_NESTING) || !topLevelValid(doc)) return undefined;
  // Views of the arrays as they grew, not copies: on a large file a copy is megabytes of fresh memory.
  return { header: doc.header as TraceHeader, offsets: offsets.subarray(0, lines), ends: ends.subarray(0, lines), window: w, ascii: w.ascii };
}

/**
 * A ByteWindow over an open file (read with readSync: the trace reader's worker may block), of
 * `capacity` bytes to start, grown for a line longer than it. Bytes the window held once are read
 * again when it comes back to them (the canonical check after the open).
 */
export class FileWindow implements ByteWindow {
  bytes: Uint8Array;
  buf: Buffer = Buffer.alloc(0);
  base = 0;
  length = 0;
  private allAscii = true;
  /** How far from the start every byte has been held (ascii is known once it reaches the size). */
  private seenTo = 0;

  constructor(private readonly fd: number, readonly size: number, capacity = 4 * 1024 * 1024) {
    this.bytes = new Uint8Array(Math.max(1, Math.min(capacity, size)));
  }

  need(from: number, to: number): void {
    if (from >= this.base && to <= this.base + this.length) return;
    if (to - from > this.bytes.length) {
      this.bytes = new Uint8Array(Math.max(to - from, this.bytes.length * 2));
    }
    const want = Math.min(this.bytes.length, this.size - from);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, this.bytes, got, want - got, from + got);
      if (n === 0) break;
      got += n;
    }
    if (got < to - from) throw new Error('the file changed while it was read');
    this.base = from;
    this.length = got;
    this.buf = Buffer.from(this.bytes.buffer, 0, got);
    if (from <= this.seenTo && from + got > this.seenTo) {
      this.allAscii &&= isAscii(this.bytes.subarray(this.seenTo - from, got));
      this.seenTo = from + got;
    }
  }

  get ascii(): boolean {
    return this.seenTo >= this.size && this.allAscii;
  }
}

/** A copy of `a` twice as long. */
function grown(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const out = new Float64Array(a.length * 2);
  out.set(a);
  return out;
}

/** The text of line i (its event, without the separator). */
export function lineText(lines: Pick<ScannedLines, 'offsets' | 'ends' | 'window' | 'ascii'>, i: number): string {
  return windowText(lines.window, lines.offsets[i], lines.ends[i], lines.ascii);
}

/**
 * The event of line i as importTrace reads it — JSON.parse, then its type's compiled check of the
 * schema and the nesting limit (each event lies two levels below the document) — or undefined
 * when that line alone is not such an event.
 */
export function lineEvent(lines: Pick<ScannedLines, 'offsets' | 'ends' | 'window' | 'ascii'>, i: number): RecordedEvent | undefined {
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

/**
 * Whether the file is the canonical text an export of its header and events writes
 * (exportTrace: the header as documented, each event's line as the line writer makes it after
 * redaction, the same separators), so that an export can copy its bytes. Without the events
 * (readTraceColumns keeps none), each line is read again as lineEvent reads it, except those its
 * reader marked as written as the line writer writes them (`asWritten`).
 */
export function isCanonicalText(lines: ScannedLines & { events?: readonly RecordedEvent[]; asWritten?: Uint8Array }): boolean {
  const { header, offsets, ends, window: w } = lines;
  const n = offsets.length;
  if (n === 0) return false;
  if (windowText(w, 0, offsets[0], false) !== `${openingText(header)}[\n    `) return false;
  const closing = '\n  ]\n}\n';
  if (w.size - ends[n - 1] !== closing.length || windowText(w, ends[n - 1], w.size, true) !== closing) return false;
  const { redacted, line } = eventWriter(header);
  for (let i = 0; i < n; i++) {
    // ',\n    ' between two events (the scan saw the comma, the line break and spaces only).
    if (i > 0 && offsets[i] - ends[i - 1] !== 6) return false;
    // A line its reader found to be exactly what the line writer writes for its event.
    if (lines.asWritten?.[i] === 1) continue;
    const text = lineText(lines, i);
    const e = lines.events ? lines.events[i] : eventOf(text);
    if (!e || text !== line(redacted(e))) return false;
  }
  return true;
}
