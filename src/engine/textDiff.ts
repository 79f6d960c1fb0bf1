/**
 * Where two JSON texts of one member differ, found from the texts: the smallest value of the old
 * text whose outside is the same text in both (the common prefix and suffix reach around it).
 * Only that value is parsed on each side and walked; everything outside it is the same text, so it
 * parses to deep-equal values in the same places and the walk would find no change there.
 *
 * Why that is the walk's answer: with A = X + RA + Y and B = X + RB + Y, where RA is one whole
 * value in A and RB one whole value in B (its end found by reading B from the same start), the
 * parser reads X the same way in both, then one value, then Y the same way: B is A with RA
 * replaced by RB at the same path. The changes are then those of RA against RB, below that path —
 * unless a later member of an object on the path has the same key and replaces the value
 * (JSON.parse keeps the last one). That is searched for by the key's text; when a repeat cannot
 * be ruled out (the key's text occurs again, a key on the path has an escape, a `\u` escape
 * follows) the next larger value is taken, up to the member's whole value. It declines (returns
 * undefined) only past MAX_WINDOW_DEPTH levels of nesting. Both texts must be valid JSON (the
 * scanner has checked them).
 */

/** The smallest value around the differences: its path below the member, and its span in each text. */
export interface DiffWindow {
  /** Object keys and array indices from the member down to the value. */
  keys: (string | number)[];
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** Nesting the prefix scan follows; the scanner accepts 256 levels at most. */
export const MAX_WINDOW_DEPTH = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index after the closing quote of the string that opens at i. */
function stringEnd(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return s.length;
    let slashes = 0;
    while (s.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the number or literal (true, false, null) that starts at i. */
function scalarEnd(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c !== c || c === COMMA || c === RBRACE || c === RBRACKET || isSpace(c)) return i; // c !== c: past the end
    i++;
  }
}

/** The index after the value that starts at i. */
export function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return stringEnd(s, i);
  if (c !== LBRACE && c !== LBRACKET) return scalarEnd(s, i);
  let depth = 0;
  for (;;) {
    const d = s.charCodeAt(i);
    if (d !== d) return i;
    if (d === QUOTE) {
      i = stringEnd(s, i);
      continue;
    }
    if (d === LBRACE || d === LBRACKET) depth++;
    else if (d === RBRACE || d === RBRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
}

/** How many characters a[i, i+max) and b[j, j+max) have in common at their start (32 at a time compared natively, then one by one). */
function commonPrefix(a: string, i: number, b: string, j: number, max: number): number {
  let n = 0;
  while (n + 32 <= max && a.slice(i + n, i + n + 32) === b.slice(j + n, j + n + 32)) n += 32;
  while (n < max && a.charCodeAt(i + n) === b.charCodeAt(j + n)) n++;
  return n;
}

/**
 * The containers open at a position of a text, read from the value's start: per level its start,
 * and the key (span) or index it is at; `key` marks an object that expects a key next.
 */
class OpenContainers {
  depth = 0;
  readonly start = new Int32Array(MAX_WINDOW_DEPTH);
  readonly isObject = new Uint8Array(MAX_WINDOW_DEPTH);
  readonly expectsKey = new Uint8Array(MAX_WINDOW_DEPTH);
  /** Objects: the current key's span (inside the quotes); arrays: keyStart is the element's index. */
  readonly keyStart = new Int32Array(MAX_WINDOW_DEPTH);
  readonly keyEnd = new Int32Array(MAX_WINDOW_DEPTH);
  /** Where the scan stopped: the start of the token the limit falls in or starts, or -1 (between tokens). */
  token = -1;
  /** Whether that token is an object key. */
  tokenIsKey = false;

  /** Reads s from i up to limit; false when nesting passes MAX_WINDOW_DEPTH. */
  scan(s: string, i: number, limit: number): boolean {
    this.depth = 0;
    this.token = -1;
    this.tokenIsKey = false;
    while (i < limit) {
      const c = s.charCodeAt(i);
      const d = this.depth - 1;
      if (c === QUOTE) {
        const e = stringEnd(s, i);
        const isKey = d >= 0 && this.expectsKey[d] === 1;
        if (e > limit) {
          this.token = i;
          this.tokenIsKey = isKey;
          return true;
        }
        if (isKey) {
          this.keyStart[d] = i + 1;
          this.keyEnd[d] = e - 1;
          this.expectsKey[d] = 0;
        }
        i = e;
      } else if (c === LBRACE || c === LBRACKET) {
        if (this.depth >= MAX_WINDOW_DEPTH) return false;
        const o = c === LBRACE ? 1 : 0;
        this.start[this.depth] = i;
        this.isObject[this.depth] = o;
        this.expectsKey[this.depth] = o;
        this.keyStart[this.depth] = 0;
        this.depth++;
        i++;
      } else if (c === RBRACE || c === RBRACKET) {
        this.depth--;
        i++;
      } else if (c === COMMA) {
        if (this.isObject[d] === 1) this.expectsKey[d] = 1;
        else this.keyStart[d]++;
        i++;
      } else if (isSpace(c) || c === 0x3a) {
        i++;
      } else {
        const e = scalarEnd(s, i);
        if (e >= limit) {
          // The difference is in this number or literal, or right after it (`5` against `50`).
          this.token = i;
          return true;
        }
        i = e;
      }
    }
    // At the limit: a value starts there unless it is a key, a separator or a close.
    const c = s.charCodeAt(limit);
    const d = this.depth - 1;
    const key = c === QUOTE && d >= 0 && this.expectsKey[d] === 1;
    if (c !== COMMA && c !== RBRACE && c !== RBRACKET && c !== 0x3a && !isSpace(c) && c === c) {
      this.token = limit;
      this.tokenIsKey = key;
    }
    return true;
  }

  /** The keys and indices of the first `levels` levels (a key decoded; undefined if one has an escape). */
  keys(s: string, levels: number): (string | number)[] | undefined {
    const out: (string | number)[] = [];
    for (let d = 0; d < levels; d++) {
      if (this.isObject[d] === 0) {
        out.push(this.keyStart[d]);
        continue;
      }
      const key = s.slice(this.keyStart[d], this.keyEnd[d]);
      if (key.includes('\\')) return undefined;
      out.push(key);
    }
    return out;
  }
}

const open = new OpenContainers();

/**
 * Whether a key on the path could appear again in `rest` (the old member's text after the value:
 * a later duplicate replaces the value): its quoted text occurs there, or a `\u` escape does
 * (another spelling), or for a key with a `/` any backslash (`\/`). Keys with a quote or
 * backslash never get here (keys()).
 */
function mayRepeat(rest: string, keys: (string | number)[]): boolean {
  const slash = rest.indexOf('\\');
  if (slash < 0) return keys.some((k) => typeof k === 'string' && occursQuoted(rest, k));
  if (rest.includes('\\u', slash)) return true;
  return keys.some((k) => typeof k === 'string' && (k.includes('/') || occursQuoted(rest, k)));
}

/** Whether `"k"` occurs in s at least `times` times (found by k, whose first character is rarer in JSON than the quote). */
function occursQuoted(s: string, k: string, times = 1): boolean {
  let seen = 0;
  for (let at = s.indexOf(k, 1); at >= 0; at = s.indexOf(k, at + 1)) {
    if (s.charCodeAt(at - 1) === QUOTE && s.charCodeAt(at + k.length) === QUOTE && ++seen >= times) return true;
  }
  return false;
}

/**
 * The values in a[as, ae) (one member's value text in the old object) that hold every difference
 * from b[bs, be) (the same member in the new one), in text order: the smallest value around all
 * of them, or several values of one container when the differences are in some of its members
 * (siblingWindows); undefined past MAX_WINDOW_DEPTH.
 */
export function diffWindow(a: string, as: number, ae: number, b: string, bs: number, be: number): DiffWindow[] | undefined {
  const p = commonPrefix(a, as, b, bs, Math.min(ae - as, be - bs));
  if (!open.scan(a, as, as + p)) return undefined;
  // The candidates, innermost first: the value at the first difference, then each open container.
  let level = open.depth;
  let start = open.token >= 0 && !open.tokenIsKey ? open.token : -1;
  for (;;) {
    if (start < 0) {
      level--;
      if (level < 0) return undefined;
      start = open.start[level];
    }
    const oldEnd = valueEnd(a, start);
    const newStart = start - as + bs;
    const newEnd = valueEnd(b, newStart);
    if (newEnd > newStart) {
      // The rest after the value the same text on both sides (the part before it is in the common prefix).
      const rest = ae - oldEnd === be - newEnd ? a.slice(oldEnd, ae) : undefined;
      if (rest !== undefined && rest === b.slice(newEnd, be)) {
        const keys = open.keys(a, level);
        if (keys !== undefined && !mayRepeat(rest, keys)) return [{ keys, oldStart: start, oldEnd, newStart, newEnd }];
      } else if (level === open.depth && level > 0) {
        const siblings = siblingWindows(a, ae, b, be, { keys: [], oldStart: start, oldEnd, newStart, newEnd });
        if (siblings !== undefined) return siblings;
      }
    }
    start = -1;
  }
}

/**
 * When the value at the first difference is not the only one that differs: the members of its
 * container C (open.depth - 1) that differ, each a window, when every difference is in a member
 * of C and the texts are the same outside them. Then the parser reads the two texts alike but for
 * those values (each whole in both texts, at the same place in C), so the changes are those of
 * each pair of values below its path, and in text order they are in the walk's order: C has no
 * backslash (no key spelled two ways), and each window's key is not digit-first (JSON.parse puts
 * those first) and occurs in C once (a repeated key takes the first place and the last value).
 * Above C, as for one window: no key on the path to C occurs again after it (mayRepeat).
 * Undefined when any of that fails; the caller then takes a larger value.
 */
function siblingWindows(a: string, ae: number, b: string, be: number, first: DiffWindow): DiffWindow[] | undefined {
  const c = open.depth - 1;
  const isObject = open.isObject[c] === 1;
  const cStart = open.start[c];
  const cEnd = valueEnd(a, cStart);
  const cText = a.slice(cStart, cEnd);
  const base = open.keys(a, c);
  if (base === undefined || cText.includes('\\')) return undefined;
  /** The key a[ks, ke) when it may name a window: not digit-first, and `"key"` once in C. */
  const keyAt = (ks: number, ke: number): string | undefined => {
    const key = a.slice(ks, ke);
    const d = key.charCodeAt(0);
    return (d >= 0x30 && d <= 0x39) || occursQuoted(cText, key, 2) ? undefined : key;
  };
  let index = open.keyStart[c];
  const firstKey = isObject ? keyAt(open.keyStart[c], open.keyEnd[c]) : index;
  if (firstKey === undefined) return undefined;
  first.keys = [...base, firstKey];
  const out = [first];
  let w = first;
  for (;;) {
    if (ae - w.oldEnd === be - w.newEnd && a.slice(w.oldEnd, ae) === b.slice(w.newEnd, be)) break;
    const d = w.oldEnd + commonPrefix(a, w.oldEnd, b, w.newEnd, Math.min(ae - w.oldEnd, be - w.newEnd));
    // The next member of C whose value holds d (a number or literal also when d is just after it: `5` against `50`).
    let i = w.oldEnd;
    let found: DiffWindow | undefined;
    while (found === undefined) {
      i = skipSpace(a, i);
      if (a.charCodeAt(i) !== COMMA || i >= d) return undefined;
      i = skipSpace(a, i + 1);
      let key: string | number = ++index;
      if (isObject) {
        const ke = stringEnd(a, i);
        if (ke > d) return undefined;
        const k = keyAt(i + 1, ke - 1);
        if (k === undefined) return undefined;
        key = k;
        i = skipSpace(a, ke);
        if (a.charCodeAt(i) !== 0x3a) return undefined;
        i = skipSpace(a, i + 1);
      }
      if (d < i) return undefined;
      const end = valueEnd(a, i);
      const v = a.charCodeAt(i);
      if (d < end || (d === end && v !== QUOTE && v !== LBRACE && v !== LBRACKET)) {
        const newStart = i - w.oldEnd + w.newEnd;
        const newEnd = valueEnd(b, newStart);
        if (newEnd <= newStart) return undefined;
        found = { keys: [...base, key], oldStart: i, oldEnd: end, newStart, newEnd };
      }
      i = end;
    }
    if (found.oldEnd >= cEnd) return undefined;
    out.push(found);
    w = found;
  }
  return mayRepeat(a.slice(cEnd, ae), base) ? undefined : out;
}

function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}
