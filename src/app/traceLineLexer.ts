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

/** A literal that take() consumes: its bytes, and their first whole 4-byte words as little-endian 32-bit integers (compared four bytes at a time). */
export interface Lit {
  readonly bytes: Uint8Array;
  readonly words: Int32Array;
}
export function field(text: string): Lit {
  const bytes = lit(text);
  const view = new DataView(bytes.buffer);
  const words = new Int32Array(bytes.length >> 2);
  for (let k = 0; k < words.length; k++) words[k] = view.getInt32(4 * k, true);
  return { bytes, words };
}

// The line being decoded: the file's bytes, the position, and where the line ends. One line at a
// time on one thread, so module state rather than an object per line.
let b: Uint8Array = new Uint8Array(0);
/** The same bytes, for reading four at a time. */
let words: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
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
export function take(l: Lit): boolean {
  const bytes = l.bytes;
  const n = bytes.length;
  const at = p;
  if (at + n > end) return false;
  const w = l.words;
  const whole = w.length;
  for (let k = 0; k < whole; k++) if (words.getInt32(at + 4 * k, true) !== w[k]) return false;
  for (let i = whole * 4; i < n; i++) if (b[at + i] !== bytes[i]) return false;
  p = at + n;
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
  let i = p;
  // Four bytes at a time while none of them ends the string or is one JSON.parse must decide
  // (a quote, a backslash, a control character, DEL or a byte of a non-ASCII character); the
  // hash takes them one by one.
  for (; i + 4 <= end; i += 4) {
    const w = words.getInt32(i, true);
    if (((w - 0x20202020) & ~w) & 0x80808080 || w & 0x80808080 || hasZeroByte(w ^ 0x22222222) || hasZeroByte(w ^ 0x5c5c5c5c) || hasZeroByte(w ^ 0x7f7f7f7f)) break;
    h = (Math.imul(h, 31) + (w & 0xff)) | 0;
    h = (Math.imul(h, 31) + ((w >>> 8) & 0xff)) | 0;
    h = (Math.imul(h, 31) + ((w >>> 16) & 0xff)) | 0;
    h = (Math.imul(h, 31) + (w >>> 24)) | 0;
  }
  for (; i < end; i++) {
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

/** Whether one of w's four bytes is 0 (exact as a whole; which one it is, it does not tell). */
const hasZeroByte = (w: number): number => ((w - 0x01010101) & ~w) & 0x80808080;

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

const TRUE = field('true');
const FALSE = field('false');
const NULL = field('null');
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
    // A diff's string value is written after redaction (which leaves one of digits, '-', '.', '/' and '_' as it is).
    if (redacting && asWritten && !plainBytes() && redactText(lastString()) !== lastString()) asWritten = false;
    return true;
  }
  if (take(TRUE) || take(FALSE) || take(NULL)) return true;
  const minus = takeByte(MINUS);
  const v = plainNumber();
  // -0 is written 0.
  if (minus && v === 0) asWritten = false;
  return v >= 0;
}

const NEW = field('{"new":');
const OLD_FIRST = field('{"old":');
const OLD = field(',"old":');
const PATH_FIRST = field('{"path":"');
const PATH = field(',"path":"');

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
  if (redacting && asWritten && paths!.hasCredential()) asWritten = false;
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
 * Strings read from the bytes, told apart by their bytes: a string seen before costs its hash and
 * a comparison, no string made (open addressing). An entry keeps a copy of its bytes (the file may
 * be read through a window that moves on, beginWindow). Entries are numbered from 0 as they are
 * added; what they stand for is the caller's.
 */
class ByteKeys {
  private slots = new Int32Array(1 << 12);
  private from: number[] = [];
  private len: number[] = [];
  private hashes: number[] = [];
  /** The entries' bytes, one after another. */
  private kept = new Uint8Array(1 << 12);
  private keptWords = new DataView(this.kept.buffer);
  private keptUsed = 0;
  /** The free slot find() stopped at (where add() puts the string it did not find). */
  private free = 0;

  /** The entry of the last string read (str()), or -1. */
  find(): number {
    const n = strTo - strFrom;
    const mask = this.slots.length - 1;
    let at = strHash & mask;
    for (;;) {
      const slot = this.slots[at];
      if (slot === 0) break;
      const e = slot - 1;
      if (this.len[e] === n && this.hashes[e] === strHash && this.same(this.from[e], n)) return e;
      at = (at + 1) & mask;
    }
    this.free = at;
    return -1;
  }

  /** Whether the n kept bytes at x are the last string's (four at a time). */
  private same(x: number, n: number): boolean {
    const kw = this.keptWords;
    const y = strFrom;
    let i = 0;
    for (; i + 4 <= n; i += 4) if (kw.getInt32(x + i, true) !== words.getInt32(y + i, true)) return false;
    for (; i < n; i++) if (this.kept[x + i] !== b[y + i]) return false;
    return true;
  }

  /** Adds the last string read, which find() has just not found; its entry. */
  add(): number {
    const e = this.from.length;
    const n = strTo - strFrom;
    if (this.keptUsed + n > this.kept.length) {
      const grown = new Uint8Array(Math.max(this.keptUsed + n, this.kept.length * 2));
      grown.set(this.kept.subarray(0, this.keptUsed));
      this.kept = grown;
      this.keptWords = new DataView(grown.buffer);
    }
    this.kept.set(b.subarray(strFrom, strTo), this.keptUsed);
    this.from.push(this.keptUsed);
    this.keptUsed += n;
    this.len.push(n);
    this.hashes.push(strHash);
    this.slots[this.free] = e + 1;
    if (this.from.length * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2);
      const mask = this.slots.length - 1;
      for (let k = 0; k < this.from.length; k++) {
        let i = this.hashes[k] & mask;
        while (this.slots[i] !== 0) i = (i + 1) & mask;
        this.slots[i] = k + 1;
      }
    }
    return e;
  }
}

/** Whether the last string read has only digits, '-', '.', '/' and '_' (a text no redaction rule changes: see redact.ts, plainText). */
function plainBytes(): boolean {
  for (let k = strFrom; k < strTo; k++) {
    const c = b[k];
    if (!((c >= 45 && c <= 57) || c === 95)) return false;
  }
  return true;
}

/** The last string read (str()), made. */
function lastString(): string {
  let text = '';
  for (let k = strFrom; k < strTo; k++) text += String.fromCharCode(b[k]);
  return text;
}

/** The string table's refs of strings read from the bytes (ByteKeys: a string seen before makes no string). */
class ByteInterner {
  private readonly keys = new ByteKeys();
  private readonly refs: number[] = [];
  /** Whether redaction would change the string (the line writer then writes another text). */
  private readonly changed: boolean[] = [];

  constructor(private readonly strings: StringTable) {}

  /** The ref of the last string read (str()); a string redaction would change clears asWritten. */
  ref(): number {
    const e = this.keys.find();
    if (e >= 0) {
      if (this.changed[e]) asWritten = false;
      return this.refs[e];
    }
    this.keys.add();
    const text = lastString();
    const ref = this.strings.ref(text);
    const changed = redacting && redactText(text) !== text;
    if (changed) asWritten = false;
    this.changed.push(changed);
    this.refs.push(ref);
    return ref;
  }
}

/** Whether the last string read, a diff item's path, names a credential (pathHasCredential), remembered by its bytes. */
class CredentialPaths {
  private readonly keys = new ByteKeys();
  private readonly answers: boolean[] = [];

  hasCredential(): boolean {
    const e = this.keys.find();
    if (e >= 0) return this.answers[e];
    this.keys.add();
    const answer = pathHasCredential(lastString());
    this.answers.push(answer);
    return answer;
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

/** The interner of the file being read, and the diff paths it holds. */
let interner: ByteInterner | undefined;
let paths: CredentialPaths | undefined;

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
  beginWindow(bytes);
  redacting = redacted;
  secret = ofSecrets;
  interner = new ByteInterner(strings);
  paths = new CredentialPaths();
}

/** The file's lines are read from these bytes from now on (the strings seen so far stay known). */
export function beginWindow(bytes: Uint8Array): void {
  b = bytes;
  words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Lets go of the file read. */
export function endFile(): void {
  b = new Uint8Array(0);
  words = new DataView(new ArrayBuffer(0));
  interner = undefined;
  paths = undefined;
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
