/**
 * A trace file written as it is read: the header, then every event from its source (an array,
 * or an async source such as a spill segment followed by memory), never the whole text in
 * memory. The bytes are exactly what exportTrace (traceFile.ts) makes of the same header and
 * events.
 *
 * Events are turned into text in runs: an array is walked synchronously between writes, an
 * async source is read a whole pending run at a time where it allows (arrays it yields are taken
 * whole). The writer can also note where each event's line starts in the file (its byte offset),
 * which the binary companion keeps (traceCompanion.ts) to read one event back on demand.
 */
import { open } from 'node:fs/promises';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { TRACE_FORMAT } from './recorder';
import { canonicalHeader, eventWriter } from './traceExport';

/** Written to the file in pieces of about this many characters. */
const CHUNK_CHARS = 1 << 20;

export type EventSource = AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>;

/** The file's text up to the events array: `{`, the format, the header pretty-printed, `"events": `. */
export function openingText(header: TraceHeader): string {
  const headerText = JSON.stringify(canonicalHeader({ ...header, format: TRACE_FORMAT }), null, 2).replace(/\n/g, '\n  ');
  return `{\n  "format": ${JSON.stringify(TRACE_FORMAT)},\n  "header": ${headerText},\n  "events": `;
}

/** Line starts (byte offsets in the file), growing as lines are written. */
class OffsetList {
  private data = new Float64Array(1024);
  length = 0;

  push(x: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }

  toArray(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * Builds the file's text piece by piece. With `offsets`, the byte offset of every event line;
 * a piece of ASCII text (the usual case) has one byte per character, so offsets are counted in
 * characters and checked once per piece, and only a piece with other characters is measured
 * line by line.
 */
class TextBuilder {
  private piece = '';
  private pieceLines: number[] = [];
  private bytes = 0;
  count = 0;

  private readonly redacted: (e: RecordedEvent) => RecordedEvent;
  private readonly line: (e: RecordedEvent) => string;

  constructor(
    header: TraceHeader,
    private readonly offsets: OffsetList | undefined,
    /** Receives every event as the file holds it (redacted). */
    private readonly written?: RecordedEvent[],
  ) {
    ({ redacted: this.redacted, line: this.line } = eventWriter(header));
    this.piece = openingText(header);
  }

  add(event: RecordedEvent): void {
    const sep = this.count === 0 ? '[\n    ' : ',\n    ';
    const e = this.redacted(event);
    this.written?.push(e);
    const text = this.line(e);
    if (this.offsets) {
      this.piece += sep;
      this.pieceLines.push(this.piece.length);
      this.piece += text;
    } else {
      this.piece += sep + text;
    }
    this.count++;
  }

  get full(): boolean {
    return this.piece.length >= CHUNK_CHARS;
  }

  /** The text so far (its line offsets noted); starts a new piece. */
  take(): string {
    const piece = this.piece;
    if (this.offsets) {
      const size = Buffer.byteLength(piece, 'utf8');
      if (size === piece.length) {
        for (const at of this.pieceLines) this.offsets.push(this.bytes + at);
      } else {
        let from = 0;
        let bytes = this.bytes;
        for (const at of this.pieceLines) {
          bytes += Buffer.byteLength(piece.slice(from, at), 'utf8');
          from = at;
          this.offsets.push(bytes);
        }
      }
      this.bytes += size;
      this.pieceLines = [];
    }
    this.piece = '';
    return piece;
  }

  end(): string {
    this.piece += (this.count === 0 ? '[]' : '\n  ]') + '\n}\n';
    return this.take();
  }
}

function isAsync(x: EventSource): x is AsyncIterable<RecordedEvent> {
  return typeof (x as AsyncIterable<RecordedEvent>)[Symbol.asyncIterator] === 'function';
}

async function* pieces(b: TextBuilder, events: EventSource): AsyncGenerator<string> {
  if (!isAsync(events)) {
    for (const e of events) {
      b.add(e);
      if (b.full) yield b.take();
    }
  } else {
    for await (const e of events) {
      b.add(e);
      if (b.full) yield b.take();
    }
  }
  yield b.end();
}

/** The trace file's text in pieces, in order; joined they equal exportTrace({ header, events }). */
export function traceChunks(header: TraceHeader, events: EventSource): AsyncGenerator<string> {
  return pieces(new TextBuilder(header, undefined), events);
}

export interface WrittenTrace {
  count: number;
  /** With `lineOffsets`: the byte offset in the file of each event's line, and the events as written (redacted). */
  offsets?: Float64Array;
  events?: RecordedEvent[];
}

/**
 * Writes the trace file at `path` (replacing it). An array (or other iterable) is turned into
 * text without awaiting per event; take a copy of an array that may change meanwhile.
 */
export async function writeTrace(path: string, header: TraceHeader, events: EventSource, opts: { lineOffsets?: boolean } = {}): Promise<WrittenTrace> {
  const offsets = opts.lineOffsets ? new OffsetList() : undefined;
  const written: RecordedEvent[] | undefined = opts.lineOffsets ? [] : undefined;
  const b = new TextBuilder(header, offsets, written);
  const file = await open(path, 'w');
  try {
    for await (const piece of pieces(b, events)) await file.write(piece);
  } finally {
    await file.close();
  }
  return { count: b.count, ...(offsets ? { offsets: offsets.toArray(), events: written } : {}) };
}

/** Writes the trace file at `path` (replacing it); resolves with the number of events written. */
export async function writeTraceFile(path: string, header: TraceHeader, events: EventSource): Promise<number> {
  return (await writeTrace(path, header, events)).count;
}
