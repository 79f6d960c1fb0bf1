/**
 * A watch response body turned into the engine's Watcher, with the decoding rules of client-go's
 * StreamWatcher over the JSON framer (spec §1.9):
 *  - clean end of stream → end 'eof'; end in the middle of a JSON value → 'unexpected-eof';
 *  - connection reset / client-side timeout → 'reset' / 'timeout' (closed quietly);
 *  - anything undecodable → one synthetic ERROR event (Status 500 InternalError with causes
 *    UnexpectedServerResponse and ClientWatchDecoding), then the stream is closed.
 */
import { StringDecoder } from 'node:string_decoder';
import type { KubeObject } from '../engine/objects';
import type { Status, StreamEnd, WatchEvent, Watcher } from '../engine/listWatch';
import { watchDecodeErrorStatus } from '../engine/statusErrors';
import type { GetResponse } from './http';
import { statusFromWire } from './http';
import { scanWatchEvent } from './jsonScan';
import { detached, lazyObjectIn } from '../engine/lazyObject';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
/** Events decoded ahead of the consumer before the socket is paused (Go's channel is unbuffered; a little slack is harmless). */
const HIGH_WATER = 256;

export class DecodeError extends Error {}

/**
 * The streaming decoder's limit on one frame (apimachinery streaming.NewDecoder maxBytes, 16 MiB).
 * Counted in UTF-16 units, which equals bytes for the ASCII JSON the apiserver writes.
 */
export const MAX_FRAME_LENGTH = 16 * 1024 * 1024;
/** apimachinery's streaming.ErrObjectTooLarge. */
const OBJECT_TOO_LARGE = 'object to decode was longer than maximum allowed size';

/**
 * encoding/json's maxNestingDepth: the decoder client-go frames watch streams with refuses a value
 * nested deeper ("invalid character '[' exceeded max depth").
 */
export const MAX_NESTING_DEPTH = 10_000;

/**
 * Splits a stream of concatenated JSON objects (the apiserver writes one per line) into frames,
 * without assuming line boundaries.
 *
 * Two ways to frame, with the same frames and errors:
 *  - the line fast path (when the caller passes `parsed`): at a frame boundary, a line that starts
 *    with `{` and that JSON.parse reads whole is one object followed by whitespace, exactly the
 *    frame the scanner would cut; the line end is found with indexOf and the parsed value is handed
 *    back, so the text is read once, by JSON.parse. A line that could be nested deeper than
 *    MAX_NESTING_DEPTH (more brackets than that) or longer than MAX_FRAME_LENGTH, or that does not
 *    parse, goes to the scanner;
 *  - the scanner: each character looked at once, tracking strings, escapes and nesting. The text
 *    of a frame still open is kept as a list of pieces and joined when the frame closes, so a large
 *    frame arriving in many small chunks costs time linear in its size.
 */
export class JsonFramer {
  private pieces: string[] = [];
  private piecesLength = 0;
  private open = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private failure: string | undefined;

  /**
   * `lineParser` reads a line for the fast path (text[from, nl), starting with `{`): a value when
   * the line is one JSON object the scanner would frame whole, else undefined. By default
   * JSON.parse (parseLine).
   */
  constructor(private readonly lineParser: (text: string, from: number, nl: number) => unknown = parseLine) {}

  /**
   * Appends text and returns the complete frames. A stray top-level character, a value nested
   * deeper than MAX_NESTING_DEPTH or a frame over MAX_FRAME_LENGTH sets `error` instead: the
   * frames before it are still returned (they were complete before the bad byte arrived), and
   * nothing is framed after it. With `parsed`, one entry per returned frame is appended to it:
   * the frame's JSON value when the fast path already parsed it, else undefined.
   */
  push(text: string, parsed?: unknown[]): string[] {
    if (this.failure !== undefined) return [];
    const frames: string[] = [];
    let i = this.open ? this.scan(text, 0, frames, parsed) : 0;
    while (i < text.length && this.failure === undefined) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      if (c === 0x7b && parsed) {
        const nl = text.indexOf('\n', i);
        const value = nl === -1 ? undefined : this.lineParser(text, i, nl);
        if (value !== undefined) {
          frames.push(text.slice(i, nl));
          parsed.push(value);
          i = nl + 1;
          continue;
        }
      }
      i = this.scan(text, i, frames, parsed);
    }
    return frames;
  }

  /**
   * The scanner: frames at most one value from `from` (continuing the open one, if any) and
   * returns where it stopped: just after the frame's last byte, or the end of the text.
   */
  private scan(text: string, from: number, frames: string[], parsed: unknown[] | undefined): number {
    // Where the open frame's text starts in `text` (0 when it began in an earlier chunk).
    let start = from;
    // The first backslash at or after the last search (text.length: none).
    let nextBackslash = -1;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (!this.open) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (c !== 0x7b) return this.fail(`invalid character ${goRune(text[i])} looking for beginning of value`, text.length);
        this.open = true;
        this.depth = 1;
        start = i;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        else {
          // Inside a string only a quote or a backslash matters: go on at the next one.
          let q = text.indexOf('"', i + 1);
          if (q === -1) q = text.length;
          if (nextBackslash <= i) {
            nextBackslash = text.indexOf('\\', i + 1);
            if (nextBackslash === -1) nextBackslash = text.length;
          }
          i = Math.min(q, nextBackslash) - 1;
        }
        continue;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++this.depth > MAX_NESTING_DEPTH) return this.fail(`invalid character ${goRune(text[i])} exceeded max depth`, text.length);
      } else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) {
          const tail = text.slice(start, i + 1);
          if (this.piecesLength + tail.length > MAX_FRAME_LENGTH) return this.fail(OBJECT_TOO_LARGE, text.length);
          frames.push(this.pieces.length === 0 ? tail : this.pieces.join('') + tail);
          parsed?.push(undefined);
          this.pieces = [];
          this.piecesLength = 0;
          this.open = false;
          return i + 1;
        }
      }
    }
    if (this.open) {
      const rest = text.slice(start);
      this.pieces.push(rest);
      this.piecesLength += rest.length;
      // A value still open past the limit can only end as too large: stop buffering it now.
      if (this.piecesLength > MAX_FRAME_LENGTH) return this.fail(OBJECT_TOO_LARGE, text.length);
    }
    return text.length;
  }

  /** True when the input ended inside a JSON value (Go's decoder: io.ErrUnexpectedEOF). */
  get partial(): boolean {
    return this.failure === undefined && this.open;
  }

  /** The framing error (Go's decoder text), once the input could not be framed any further. */
  get error(): string | undefined {
    return this.failure;
  }

  private fail(message: string, end: number): number {
    this.failure = message;
    this.pieces = [];
    this.piecesLength = 0;
    this.open = false;
    return end;
  }
}

/**
 * The line text[from, nl) parsed, when it is one JSON object (it starts with `{`) that the scanner
 * would accept: at most MAX_NESTING_DEPTH brackets (so no deeper nesting) and at most
 * MAX_FRAME_LENGTH long. Undefined otherwise, or when it does not parse.
 */
function parseLine(text: string, from: number, nl: number): unknown {
  if (nl - from > MAX_FRAME_LENGTH) return undefined;
  if (nl - from > MAX_NESTING_DEPTH && bracketsExceed(text, from, nl, MAX_NESTING_DEPTH)) return undefined;
  try {
    return JSON.parse(text.slice(from, nl));
  } catch {
    return undefined;
  }
}

/** Whether text[from, to) holds more than `limit` opening brackets. */
function bracketsExceed(text: string, from: number, to: number, limit: number): boolean {
  let n = 0;
  for (const open of ['{', '[']) {
    for (let j = text.indexOf(open, from); j !== -1 && j < to; j = text.indexOf(open, j + 1)) {
      if (++n > limit) return true;
    }
  }
  return false;
}

function goRune(c: string): string {
  return c === "'" ? "'\\''" : `'${c}'`;
}

/**
 * The watch event in the line text[from, nl) with a lazy object (lazyObject.ts), when the line is
 * one JSON object (plus whitespace) the scanner reads whole and the event is an ordinary one: a
 * known type other than ERROR, an object with a kind. Undefined otherwise: the line then takes
 * the JSON.parse path, which gives the same event or the decoding error.
 */
export function lazyWatchEvent(text: string, from: number, nl: number): WatchEvent | undefined {
  if (nl - from > MAX_FRAME_LENGTH) return undefined;
  // A copy of the line: the object's text and the fields read from it are slices of the line,
  // which must not keep the whole chunk it came in alive.
  return lazyWatchLine(detached(text.slice(from, nl)));
}

/**
 * lazyWatchEvent of a whole line (no line end), a string of its own: the lazy object keeps the
 * line and its object's span in it (no slice of it to keep alive beside the line).
 */
export function lazyWatchLine(line: string): WatchEvent | undefined {
  if (line.length > MAX_FRAME_LENGTH) return undefined;
  const e = scanWatchEvent(line, 0, line.length);
  if (e === undefined || e.type === undefined || e.type === 'ERROR' || !EVENT_TYPES.has(e.type)) return undefined;
  if (e.fields.kind === undefined || e.fields.kind === '') return undefined;
  return { type: e.type as WatchEvent['type'], object: lazyObjectIn(line, e.objectStart, e.objectEnd, e.fields) };
}

/** Decodes one frame the way client-go's watch Decoder does (into metav1.WatchEvent, then the object as unstructured). */
export function decodeFrame(frame: string): WatchEvent {
  const lazy = lazyWatchEvent(frame, 0, frame.length);
  if (lazy !== undefined) return lazy;
  let raw: unknown;
  try {
    raw = JSON.parse(frame);
  } catch (e) {
    throw new DecodeError((e as Error).message);
  }
  return decodeParsedFrame(raw);
}

/** decodeFrame for a frame the framer has already parsed (a JSON object). */
export function decodeParsedFrame(raw: unknown): WatchEvent {
  const ev = raw as { type?: unknown; object?: unknown };
  if (ev.type !== undefined && typeof ev.type !== 'string') {
    throw new DecodeError(`json: cannot unmarshal ${jsonKind(ev.type)} into Go struct field WatchEvent.type of type string`);
  }
  const type = (ev.type as string | undefined) ?? '';
  if (!EVENT_TYPES.has(type)) throw new DecodeError(`got invalid watch event type: ${type}`);
  const obj = ev.object;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new DecodeError(`unable to decode watch event: Object 'Kind' is missing in '${obj === undefined ? '' : JSON.stringify(obj)}'`);
  }
  const o = obj as KubeObject;
  if (typeof o.kind !== 'string' || o.kind === '') {
    throw new DecodeError(`unable to decode watch event: Object 'Kind' is missing in '${truncate(JSON.stringify(o), 300)}'`);
  }
  if (type === 'ERROR' && o.kind === 'Status') return { type, object: statusFromWire(o as Status) as KubeObject };
  return { type, object: o };
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

/** The ERROR event StreamWatcher sends for a decode error (NewClientErrorReporter(500, "GET", "ClientWatchDecoding")). */
export function decodeErrorEvent(err: string): WatchEvent {
  return { type: 'ERROR', object: watchDecodeErrorStatus(err) as KubeObject };
}

/** A Watcher that has already ended (the REST client's watch.NewEmptyWatch after exhausted retries). */
export class EmptyWatcher implements Watcher {
  constructor(readonly end: StreamEnd) {}
  async next(): Promise<WatchEvent | null> {
    return null;
  }
  stop(): void {}
}

export class StreamWatcher implements Watcher {
  private readonly queue: WatchEvent[] = [];
  private waiter: ((e: WatchEvent | null) => void) | undefined;
  private readonly framer = new JsonFramer(lazyWatchEvent);
  private readonly text = new StringDecoder('utf8');
  /** The next bytes go to the text way first (see onData). */
  private textMode = false;
  private finished = false;
  private paused = false;
  private _end: StreamEnd | undefined;
  private pendingEnd: StreamEnd | undefined;

  /**
   * Takes the body at once (construct it from GetOptions.onResponse): every byte that arrives is
   * decoded into the queue right away, so a connection that breaks just after its last bytes
   * still hands out every complete event before the end, as client-go's decoder reads them.
   */
  constructor(private readonly res: GetResponse) {
    const body = res.body;
    body.on('data', (chunk: Buffer) => this.onData(chunk));
    body.on('end', () => {
      // A gzip body ends cleanly on the bytes it got even when the response under it was cut short.
      if (res.failure()) onBroken();
      else this.finish(this.framer.partial ? { kind: 'unexpected-eof' } : { kind: 'eof' });
    });
    const onBroken = () => {
      if (this.finished) return;
      // Bytes still buffered in the body (it was paused, or they came with the break) are events
      // that reached the client: decode them before the end.
      for (let c: Buffer | null; !this.finished && (c = body.read() as Buffer | null) !== null; ) this.onData(c);
      if (this.finished) return;
      const f = res.failure();
      if (f === 'aborted') this.finish({ kind: 'stopped' });
      else if (f?.kind === 'timeout') this.finish({ kind: 'timeout', message: f.message });
      else if (f?.kind === 'connection-reset') this.finish({ kind: 'reset', message: f.message });
      // A FIN in the middle of the chunked body: Go's decoder reads io.ErrUnexpectedEOF.
      else this.finish({ kind: 'unexpected-eof' });
    };
    body.on('error', onBroken);
    body.on('close', () => {
      if (!body.readableEnded) onBroken();
    });
  }

  get end(): StreamEnd | undefined {
    return this._end;
  }

  /**
   * Bytes arrive in two ways, with the same events and ends:
   *  - lines (`lines`): at a frame boundary, each complete line that starts with `{` is decoded
   *    from the bytes into a string of its own and read by lazyWatchLine; this is the way of an
   *    ordinary stream, and the line's string is the lazy object's text (no chunk-sized string,
   *    no copy of the line);
   *  - text (`onText`): the bytes from the first line lazyWatchLine does not take (or that has no
   *    line end yet) go through the UTF-8 decoder and the framer, which frame, decode and fail
   *    exactly as they do alone. The bytes go back to lines after a line end that leaves the
   *    framer with no open frame (the decoder then holds no part of a character either).
   */
  private onData(chunk: Buffer): void {
    if (this.finished) return;
    let i = 0;
    if (this.textMode) {
      const nl = chunk.indexOf(0x0a);
      i = nl === -1 ? chunk.length : nl + 1;
      this.onText(chunk, 0, i);
    }
    if (!this.textMode && !this.finished) i = this.lines(chunk, i);
    if (i < chunk.length && !this.finished) this.onText(chunk, i, chunk.length);
    if (this.queue.length >= HIGH_WATER && !this.paused && !this.finished) {
      this.paused = true;
      this.res.body.pause();
    }
  }

  /**
   * Delivers the complete lines of chunk[i, …) that lazyWatchLine reads (and the whitespace between
   * them); returns where it stopped: the end of the chunk, or the first byte left to the text way.
   */
  private lines(chunk: Buffer, i: number): number {
    const n = chunk.length;
    while (i < n) {
      const c = chunk[i];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      if (c !== 0x7b) return i;
      const nl = chunk.indexOf(0x0a, i);
      if (nl === -1 || nl - i > MAX_FRAME_LENGTH) return i;
      const e = lazyWatchLine(chunk.toString('utf8', i, nl));
      if (e === undefined) return i;
      this.deliver(e);
      i = nl + 1;
    }
    return i;
  }

  /** chunk[from, to) through the UTF-8 decoder and the framer. */
  private onText(chunk: Buffer, from: number, to: number): void {
    if (this.finished || from === to) return;
    // The framer's fast path hands back lazy events (lazyWatchEvent); other frames are decoded here.
    const parsed: (WatchEvent | undefined)[] = [];
    const frames = this.framer.push(this.text.write(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to)), parsed);
    // A frame still open, or a last byte that may leave part of a character in the decoder.
    this.textMode = this.framer.partial || chunk[to - 1] >= 0x80;
    let decodeFailure: string | undefined;
    for (let k = 0; k < frames.length; k++) {
      const value = parsed[k];
      try {
        this.deliver(value ?? decodeFrame(frames[k]));
      } catch (e) {
        decodeFailure = (e as Error).message;
        break;
      }
    }
    // Frames complete before a framing error are decoded first, as Go's decoder reads them first.
    decodeFailure ??= this.framer.error;
    if (decodeFailure !== undefined) {
      this.deliver(decodeErrorEvent(decodeFailure));
      this.finish({ kind: 'eof' });
      this.res.close();
    }
  }

  private deliver(e: WatchEvent): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(e);
    } else this.queue.push(e);
  }

  private finish(end: StreamEnd): void {
    if (this.finished) return;
    this.finished = true;
    this.res.close();
    // Events already decoded are still handed out before the end, like a closing Go channel.
    this.pendingEnd = end;
    if (this.queue.length === 0) this.settleEnd();
  }

  private settleEnd(): void {
    if (this._end || !this.pendingEnd) return;
    this._end = this.pendingEnd;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(null);
    }
  }

  next(): Promise<WatchEvent | null> {
    const e = this.queue.shift();
    if (e) {
      if (this.paused && this.queue.length < HIGH_WATER / 2) {
        this.paused = false;
        this.res.body.resume();
      }
      return Promise.resolve(e);
    }
    if (this.finished) {
      this.settleEnd();
      return Promise.resolve(null);
    }
    return new Promise((resolve) => (this.waiter = resolve));
  }

  stop(): void {
    if (this._end) return;
    this.queue.length = 0;
    if (!this.finished) {
      this.finished = true;
      this.res.close();
    }
    this.pendingEnd = { kind: 'stopped' };
    this.settleEnd();
  }
}
