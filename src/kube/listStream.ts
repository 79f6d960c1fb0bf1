/**
 * A successful LIST's body decoded as it streams in: each piece of text (UTF-8 decoded chunk by
 * chunk) is scanned at once, and every item whose text is complete is checked and copied out
 * (jsonScan.ts's Scan, with scanList's rules and depths), so that the body's whole text never
 * exists: what is carried from one piece to the next is the unfinished item (and the gap before
 * it), plus pieces not yet looked at. The list's other members (before or after `items`) are
 * kept as text, as are the gaps between items, so that the exact text can be rebuilt.
 *
 * Anything the walk does not take (invalid or cut JSON, a second `items`, an item that is not an
 * object or null, a field scanList declines, a Status body, no `items`) is not decided here: the
 * body's text is rebuilt exactly (head + gap + item + gap + … + the rest) and decodeList decodes
 * it, which gives the list or error it gives today.
 */
import { StringDecoder } from 'node:string_decoder';
import type { ObjectList } from '../engine/listWatch';
import { detached } from '../engine/lazyObject';
import { COLON, COMMA, DECLINE, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET, Scan, type ScannedFields } from './jsonScan';
import { decodeList, listOfItems } from './listDecode';
import { readBodyInto, type BodyCollector, type GetResponse } from './http';

/** Where the walk stands. */
const enum Phase {
  /** Before `items`' `[`: the text so far is all in `buf`. */
  Head,
  /** Inside `items`: `buf` is the text from the end of the last item taken. */
  Items,
  /** After `items`' `]`: `buf` is the text after it. */
  Tail,
  /** Not streamed: the rest is only kept, and decodeList decodes the rebuilt text. */
  Rebuild,
}

/** In the list object: expecting `{`, a key or `}` (after `{`), a key (after `,`), `,` or `}`, or only whitespace. */
type Top = 'open' | 'first' | 'member' | 'next' | 'end';
/** In `items`: an item or `]` (after `[`), an item (after `,`), `,` or `]` (after an item). */
type InItems = 'first' | 'item' | 'after';

/** What a walk over the text so far came to. */
type Walked = 'more' | 'items' | 'rebuild';

/**
 * Put after the text a walk scans (never part of `buf`): the scanner's steps read at most one
 * character past what they took, and at the end of the text so far that read finds END, which no
 * step takes (it is neither whitespace nor the start of a token, nor allowed in a string), instead
 * of reading past the end of the string. Such reads (charCodeAt out of bounds, NaN) deoptimized
 * jsonScan's optimized steps once per read site: 12 deopts in one cold decode of 10 000 Pods (8 in
 * the engine worker's first LIST), whose steps then ran in the slower tiers until optimized again
 * (the walk 1.37× the whole text's CPU cold, the sync 1.13× 142dcd5's; docs/BENCHMARKS.md "The
 * streamed LIST's sync"). The scanner's steps decline at END as they did at NaN.
 */
const END = '\u0000';

/** The gaps between items that recur (`,`, `,\n  `), one copy each; bounded. */
const GAPS = new Map<string, string>();

function gapOf(s: string): string {
  if (s.length === 0) return '';
  if (s === ',') return ',';
  const known = GAPS.get(s);
  if (known !== undefined) return known;
  const copy = detached(s);
  if (GAPS.size < 64 && s.length <= 64) GAPS.set(copy, copy);
  return copy;
}

/** A LIST body's text fed piece by piece (write), then end(): the list decodeList would give for the whole text. */
export class ListStream {
  private phase = Phase.Head;
  /** Text not yet taken (see Phase), then `pending` not yet joined to it. */
  private buf = '';
  private pending: string[] = [];
  private pendingLength = 0;
  /** The next walk waits until `buf` and `pending` hold this many characters (twice what the last walk left). */
  private walkAt = 0;
  /** Head and Tail: where the walk goes on in `buf`, and what it expects there. */
  private pos = 0;
  private top: Top = 'open';
  /** Items: where the walk goes on, from the start of `buf`, and what it expects. */
  private inItems: InItems = 'first';
  /** The text up to and including `items`' `[`; the gap before each item, its text ('null' for null) and fields; then the gap and `]`. */
  private head: string | undefined;
  private readonly gaps: string[] = [];
  private readonly raws: string[] = [];
  private readonly fields: (ScannedFields | undefined)[] = [];
  private closing: string | undefined;
  /** The members besides items, last of duplicates: where their values' text is in the head or the tail. */
  private readonly members = new Map<string, { tail: boolean; start: number; end: number }>();

  /** Characters held besides the items taken (tests: what is carried over is bounded). */
  get carried(): number {
    return this.buf.length + this.pendingLength;
  }

  write(text: string): void {
    if (text.length === 0) return;
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.phase !== Phase.Rebuild && this.buf.length + this.pendingLength >= this.walkAt) this.walk(false);
  }

  /** The body is complete: its list (or, by decode(), the error decodeList gives). */
  end(): StreamedList {
    if (this.phase !== Phase.Rebuild) this.walk(true);
    if (this.phase === Phase.Tail && this.top === 'end') {
      const tail = this.buf;
      const head = this.head as string;
      const members = this.members;
      const { raws, fields } = this;
      return new StreamedList(
        () =>
          listOfItems(
            (key) => {
              const m = members.get(key);
              return m === undefined ? undefined : (m.tail ? tail : head).slice(m.start, m.end);
            },
            raws.length,
            (k) => (fields[k] === undefined ? undefined : raws[k]),
            (k) => fields[k],
          ),
        true,
      );
    }
    const text = this.text();
    return new StreamedList(() => decodeList(text), false);
  }

  /** The body's text so far, exactly (the streamed parts and what is held). */
  private text(): string {
    const parts: string[] = [];
    if (this.head !== undefined) {
      parts.push(this.head);
      for (let k = 0; k < this.raws.length; k++) parts.push(this.gaps[k], this.raws[k]);
      if (this.closing !== undefined) parts.push(this.closing);
    }
    parts.push(this.buf, ...this.pending);
    return parts.join('');
  }

  private walk(final: boolean): void {
    // The text to scan: buf, the pending pieces and END, joined into one flat string (join copies;
    // `+` would make a rope that the first read flattens anyway).
    this.pending.push(END);
    let s = (this.buf.length === 0 ? this.pending : [this.buf, ...this.pending]).join('');
    this.pending = [];
    this.pendingLength = 0;
    this.buf = s.slice(0, s.length - 1);
    try {
      for (;;) {
        if (this.phase === Phase.Items) {
          if (!this.walkItems(s, final)) break;
          // `]` passed: buf is what follows it, and s from there on.
          s = s.slice(s.length - 1 - this.buf.length);
        } else if (this.phase === Phase.Head || this.phase === Phase.Tail) {
          const w = this.walkTop(s, final);
          if (w === 'rebuild') this.phase = Phase.Rebuild;
          if (w !== 'items') break;
          // `[` is at pos: the head ends with it.
          this.head = detached(s.slice(0, this.pos + 1));
          s = s.slice(this.pos + 1);
          this.buf = s.slice(0, s.length - 1);
          this.phase = Phase.Items;
          this.pos = 0;
        } else break;
      }
    } catch {
      // Not the scanner's DECLINE (caught where it is thrown): whatever it is, decodeList decides.
      this.phase = Phase.Rebuild;
    }
    this.walkAt = 2 * this.buf.length;
  }

  /** The members of the list object from pos in s (buf + END): up to `items`' `[` (Head), or to the end (Tail). */
  private walkTop(s: string, final: boolean): Walked {
    const n = s.length - 1;
    const scan = new Scan(s);
    const tail = this.phase === Phase.Tail;
    for (;;) {
      const i = scan.ws(this.pos);
      if (i >= n) return 'more';
      const c = s.charCodeAt(i);
      if (this.top === 'open') {
        if (c !== LBRACE) return 'rebuild';
        this.pos = i + 1;
        this.top = 'first';
        continue;
      }
      if (this.top === 'end') return 'rebuild';
      if ((this.top === 'first' || this.top === 'next') && c === RBRACE) {
        this.pos = i + 1;
        this.top = 'end';
        continue;
      }
      if (this.top === 'next') {
        if (c !== COMMA) return 'rebuild';
        this.pos = i + 1;
        this.top = 'member';
        continue;
      }
      if (c !== QUOTE) return 'rebuild';
      const keyEnd = ended(() => scan.stringEnd(i));
      if (keyEnd < 0) return 'more';
      const key = scan.stringValue(i, keyEnd);
      let at = scan.ws(keyEnd);
      if (at >= n) return 'more';
      if (s.charCodeAt(at) !== COLON) return 'rebuild';
      at = scan.ws(at + 1);
      if (at >= n) return 'more';
      if (key === 'items') {
        // A second `items` replaces the first: decodeList takes it.
        if (tail || s.charCodeAt(at) !== LBRACKET) return 'rebuild';
        this.pos = at;
        return 'items';
      }
      const end = ended(() => scan.value(at, 1));
      if (end < 0 || (!final && numberGoesOn(s, at, end, n))) return 'more';
      this.members.delete(key);
      this.members.set(key, { tail, start: at, end });
      this.pos = end;
      this.top = 'next';
    }
  }

  /** The items in s (buf + END; from its start, which is the gap after the last item taken): true once `]` is passed. */
  private walkItems(s: string, final: boolean): boolean {
    const n = s.length - 1;
    const scan = new Scan(s);
    // The text before `from` is taken; i is where the walk goes on.
    let from = 0;
    let i = this.pos;
    try {
      for (;;) {
        const j = scan.ws(i);
        if (j >= n) return false;
        const c = s.charCodeAt(j);
        if (this.inItems === 'after') {
          if (c === COMMA) {
            i = j + 1;
            this.inItems = 'item';
            continue;
          }
          if (c !== RBRACKET) return this.rebuild();
          this.closing = gapOf(s.slice(from, j + 1));
          from = i = j + 1;
          this.phase = Phase.Tail;
          this.top = 'next';
          return true;
        }
        if (c === RBRACKET && this.inItems === 'first') {
          this.closing = gapOf(s.slice(from, j + 1));
          from = i = j + 1;
          this.phase = Phase.Tail;
          this.top = 'next';
          return true;
        }
        let end: number;
        let fields: ScannedFields | undefined;
        if (c === LBRACE) {
          const o = item(scan, j);
          if (o === undefined) {
            if (final) return this.rebuild();
            return false;
          }
          end = o.end;
          fields = o.fields;
        } else if (s.startsWith('null', j)) {
          end = j + 4;
        } else {
          if (!final && n - j < 4 && 'null'.startsWith(s.slice(j, n))) return false;
          return this.rebuild();
        }
        this.gaps.push(gapOf(s.slice(from, j)));
        this.raws.push(fields === undefined ? 'null' : detached(s.slice(j, end)));
        this.fields.push(fields);
        from = i = end;
        this.inItems = 'after';
      }
    } finally {
      // What is not taken stays (a slice of s until the next piece is joined to it).
      this.buf = s.slice(from, n);
      this.pos = i - from;
    }
  }

  private rebuild(): false {
    this.phase = Phase.Rebuild;
    return false;
  }
}

/**
 * Whether the value s[at, end) is a number that the next piece may go on with: only characters
 * of a number follow it up to n, the end of the text so far (`-12.5` of `-12.5e` then `+3`).
 */
function numberGoesOn(s: string, at: number, end: number, n: number): boolean {
  const c = s.charCodeAt(at);
  if (c !== 0x2d && (c < 0x30 || c > 0x39)) return false;
  for (let i = end; i < n; i++) {
    const d = s.charCodeAt(i);
    if (!((d >= 0x30 && d <= 0x39) || d === 0x2b || d === 0x2d || d === 0x2e || d === 0x45 || d === 0x65)) return false;
  }
  return true;
}

/** A scanner step's end, or -1 where it declines (or the text ends too soon). */
function ended(step: () => number): number {
  try {
    return step();
  } catch (e) {
    if (e === DECLINE) return -1;
    throw e;
  }
}

/** The item object at s[at] as scanList reads it (at its depth), or undefined where it declines or the text ends too soon. */
function item(scan: Scan, at: number): { end: number; fields: ScannedFields } | undefined {
  try {
    return scan.kubeObject(at, 2);
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** What a LIST body streamed into: its list, or the error decodeList gives for it (thrown by decode()). */
export class StreamedList {
  constructor(
    private readonly make: () => ObjectList,
    /** Whether the items were taken as the body streamed in (false: decodeList decoded the rebuilt text). */
    readonly streamed: boolean,
  ) {}

  decode(): ObjectList {
    return this.make();
  }
}

/** A LIST body's chunks into a ListStream (UTF-8 decoded as utf8Collector does). */
export function listCollector(): BodyCollector<StreamedList> {
  const decoder = new StringDecoder('utf8');
  const stream = new ListStream();
  return {
    add: (c) => stream.write(decoder.write(c)),
    done: () => {
      stream.write(decoder.end());
      return stream.end();
    },
  };
}

/** readBody for a successful LIST: its items decoded as the body streams in. */
export function readList(res: GetResponse, maxBytes = 512 << 20): Promise<StreamedList> {
  return readBodyInto(res, maxBytes, listCollector());
}
