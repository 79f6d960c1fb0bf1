/**
 * Where the members of a JSON object, or the elements of a JSON array, are in its text. For text
 * already known to be valid JSON (a lazy object's text passed the scanner in src/kube/jsonScan.ts),
 * so nothing is validated here: strings are skipped to their closing quote, containers to their
 * matching bracket, and anything else to the next delimiter.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/** The next quote or bracket of any kind. */
const STRUCTURE = /["{}[\]]/g;
/** The next delimiter after a number or literal. */
const VALUE_END = /[\s,}\]]/g;

function ws(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** The index just past the string whose opening quote is at i. */
function stringEnd(s: string, i: number): number {
  for (let q = s.indexOf('"', i + 1); ; q = s.indexOf('"', q + 1)) {
    if (q === -1) return s.length;
    let b = q - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    // An even number of backslashes in front: the quote is not escaped.
    if ((q - 1 - b) % 2 === 0) return q + 1;
  }
}

/** The index just past the value at i. */
function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return stringEnd(s, i);
  if (c !== LBRACE && c !== LBRACKET) {
    VALUE_END.lastIndex = i;
    return VALUE_END.exec(s) === null ? s.length : VALUE_END.lastIndex - 1;
  }
  let depth = 0;
  let j = i;
  for (;;) {
    STRUCTURE.lastIndex = j;
    const m = STRUCTURE.exec(s);
    if (m === null) return s.length;
    const k = m.index;
    const d = s.charCodeAt(k);
    if (d === QUOTE) j = stringEnd(s, k);
    else {
      j = k + 1;
      if (d === LBRACE || d === LBRACKET) depth++;
      else if (--depth === 0) return j;
    }
  }
}

/**
 * The children of the object or array whose text starts at s[at]: for an object, each member's
 * key (unescaped), value start and value end, in text order (repeated keys included); for an
 * array, each element's start and end. Undefined for any other value.
 */
export function childSpans(s: string, at: number): (string | number)[] | undefined {
  const c = s.charCodeAt(at);
  if (c !== LBRACE && c !== LBRACKET) return undefined;
  const close = c === LBRACE ? RBRACE : RBRACKET;
  const out: (string | number)[] = [];
  let i = ws(s, at + 1);
  if (s.charCodeAt(i) === close) return out;
  for (;;) {
    if (c === LBRACE) {
      const keyEnd = stringEnd(s, i);
      const raw = s.slice(i + 1, keyEnd - 1);
      out.push(raw.indexOf('\\') === -1 ? raw : (JSON.parse(s.slice(i, keyEnd)) as string));
      i = ws(s, keyEnd);
      if (s.charCodeAt(i) !== COLON) return undefined;
      i = ws(s, i + 1);
    }
    const end = valueEnd(s, i);
    out.push(i, end);
    i = ws(s, end);
    const d = s.charCodeAt(i);
    if (d === close) return out;
    if (d !== COMMA) return undefined;
    i = ws(s, i + 1);
  }
}
