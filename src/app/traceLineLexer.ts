/**
 * The byte-level reader behind traceRows.ts: one event line of a trace file, read from the
 * file's bytes without making a string for what it only checks. It accepts a narrow form of JSON
 * (no whitespace, strings of printable ASCII without escapes, plain decimal numbers) and answers
 * false for anything else, so its caller can leave that line to JSON.parse. Strings are interned
 * into the file's StringTable by their bytes.
 *
 * The state (the bytes, the position in the line, the last string read) lives in this module: one
 * line at a time on one thread, no object made per line.
 */
import type { StringTable } from '../protocol/eventColumns';
import { pathHasCredential, redactText } from '../trace/redact';

export const QUOTE = 34;
const BACKSLASH = 92;
const ZERO = 48;
const NINE = 57;
const DOT = 46;
const MINUS = 45;
const LOWER_E = 101;
const UPPER_E = 69;
export const MAX_COUNT = 0xffffffff;

/** A literal as the bytes it is written with (ASCII). */
export const lit = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

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
/** Whether the trace is of Secrets (redaction blanks their diffs' payload). */
let secret = false;
// The last string read: its bytes [strFrom, strTo) and their hash.
let strFrom = 0;
let strTo = 0;
let strHash = 0;

/** Consumes `l` when the line continues with it. */
export function take(l: Uint8Array): boolean {
  const n = l.length;
  if (p + n > end) return false;
  for (let i = 0; i < n; i++) if (b[p + i] !== l[i]) return false;
  p += n;
  return true;
}

/** Consumes one byte when it is `c`. */
export function takeByte(c: number): boolean {
  if (p >= end || b[p] !== c) return false;
  p++;
  return true;
}

/**
 * The rest of a string of printable ASCII without escapes (its opening quote consumed): sets
 * strFrom, strTo and strHash and consumes the closing quote. False for anything else (an escape,
 * a control character, a byte of a non-ASCII character: JSON.parse decides).
 */
export function str(): boolean {
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
export const quoted = (): boolean => takeByte(QUOTE) && str();

/** A JSON integer ≥ 0 written as `0` or digits without a leading zero, at most 15 of them (exact); -1 otherwise. */
export function count(): number {
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
export function plainNumber(): number {
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
export const bool = (): number => (take(TRUE) ? 1 : take(FALSE) ? 0 : -1);

/** Whether the last string read is `l`. */
export function strIs(l: Uint8Array): boolean {
  const n = l.length;
  if (strTo - strFrom !== n) return false;
  for (let i = 0; i < n; i++) if (b[strFrom + i] !== l[i]) return false;
  return true;
}

/** Index of `"…"` in the list, -1 when it is none of them. */
export function oneOf(list: readonly Uint8Array[]): number {
  if (!quoted()) return -1;
  for (let i = 0; i < list.length; i++) if (strIs(list[i])) return i;
  return -1;
}

/** A JSON value that holds no object or array: a string, a plain number, true, false or null. */
export function scalar(): boolean {
  if (takeByte(QUOTE)) {
    if (!str()) return false;
    // A diff's string value is written after redaction.
    if (redacting && asWritten && redactText(lastString()) !== lastString()) asWritten = false;
    return true;
  }
  if (take(TRUE) || take(FALSE) || take(NULL)) return true;
  const minus = takeByte(MINUS);
  const v = plainNumber();
  // -0 is written 0.
  if (minus && v === 0) asWritten = false;
  return v >= 0;
}

/** The last string read (str()), made. */
function lastString(): string {
  let text = '';
  for (let k = strFrom; k < strTo; k++) text += String.fromCharCode(b[k]);
  return text;
}

const NEW = lit('{"new":');
const OLD_FIRST = lit('{"old":');
const OLD = lit(',"old":');
const PATH_FIRST = lit('{"path":"');
const PATH = lit(',"path":"');

/**
 * A fieldChange as the exporter writes it: keys among new, old, path in that order, path a string,
 * values scalars. The line is not as written when redaction would change the item: any item of a
 * Secret's trace, a path naming a credential (its values blanked), a string value redactText changes.
 */
export function fieldChange(): boolean {
  if (redacting && secret) asWritten = false;
  let first = true;
  if (take(NEW)) {
    if (!scalar()) return false;
    first = false;
  }
  if (take(first ? OLD_FIRST : OLD)) {
    if (!scalar()) return false;
    first = false;
  }
  if (!take(first ? PATH_FIRST : PATH) || !str()) return false;
  if (redacting && asWritten && pathHasCredential(lastString())) asWritten = false;
  return takeByte(125);
}

/** `[` items `]`, each read by `item`. */
export function array(item: () => boolean): boolean {
  if (!takeByte(91)) return false;
  if (takeByte(93)) return true;
  for (;;) {
    if (!item()) return false;
    if (takeByte(93)) return true;
    if (!takeByte(44)) return false;
  }
}


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

/** Where a string lies in the bytes (and its hash): a string field kept until its ref is taken. */
export interface Span {
  from: number;
  to: number;
  hash: number;
}
/** The last string read as a span. */
export const spanOf = (x: Span): void => {
  x.from = strFrom;
  x.to = strTo;
  x.hash = strHash;
};

/** The interner of the file being read. */
let interner: ByteInterner | undefined;

/** The ref of a span's string. */
export function refOf(x: Span): number {
  strFrom = x.from;
  strTo = x.to;
  strHash = x.hash;
  return interner!.ref();
}

/** A resource version's cell as encodeRv stores it: its number when it is a plain decimal of at most 15 digits, else -(string ref). */
export function rvCell(x: Span): number {
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

/** Starts reading a file: its bytes, its string table, whether its strings are redacted when written, whether it is a trace of Secrets. */
export function beginFile(bytes: Uint8Array, strings: StringTable, redacted: boolean, ofSecrets: boolean): void {
  b = bytes;
  redacting = redacted;
  secret = ofSecrets;
  interner = new ByteInterner(strings);
}

/** Lets go of the file read. */
export function endFile(): void {
  b = new Uint8Array(0);
  interner = undefined;
}

/** Starts reading the line bytes[from, to). */
export function beginLine(from: number, to: number): void {
  p = from;
  end = to;
  asWritten = true;
}

/** Whether the whole line has been read. */
export const atLineEnd = (): boolean => p === end;

/** Whether the line read is exactly what the line writer writes for its event, as far as the reader saw (asWritten). */
export const lineAsWritten = (): boolean => asWritten;
