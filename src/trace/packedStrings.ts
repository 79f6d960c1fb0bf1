/**
 * A chunk's string table as it travels from the engine worker to the host (eventChunk.ts,
 * Chunk.parts / Chunk.fromParts): the strings' UTF-8 bytes in one buffer with where each ends,
 * moved with the message like the chunk's other typed arrays, instead of one string per entry
 * that the message would copy into the host's heap. The host decodes an entry when it is read, so
 * the events it holds cost it bytes outside its heap, and nothing per event for its collector to
 * copy and promote (a live session's host heap grew by its whole window of strings before).
 *
 * An entry that is not a string (an event kept as an object, an odd value), or a string that
 * UTF-8 cannot carry exactly (a lone surrogate), travels as it is in `others`, by its index.
 */

export interface PackedStrings {
  /** Every string entry's UTF-8 bytes, one after the other (a buffer of its own, so it can be moved). */
  text: Uint8Array;
  /** Where entry j's bytes end in text (they start where entry j - 1's end); an entry in others has none. */
  ends: Uint32Array;
  /** Whether every byte of text is ASCII (then decoded as Latin-1, one byte a character). */
  ascii: boolean;
  /** The entries kept as they are, and their indexes (increasing). */
  otherAt: Uint32Array;
  others: unknown[];
}

/** A lone surrogate: a string with one does not come back from UTF-8 as it was. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The table's entries as bytes and others (see the file comment). */
export function packStrings(entries: readonly unknown[]): PackedStrings {
  return packedAscii(entries) ?? packedUtf8(entries);
}

/** The most bytes one character takes in UTF-8. */
const UTF8_MAX_CHAR = 4;

/**
 * The common table, every entry an ASCII string: each character one byte, so the bytes are as
 * many as the characters and each string is written once; undefined for any other table. The
 * buffer has UTF8_MAX_CHAR bytes to spare: a string with a character beyond ASCII then always
 * writes more bytes than it has characters, also when the write is cut short (it stops less than
 * one character before the end, which is at least that many bytes past the string's length).
 */
function packedAscii(entries: readonly unknown[]): PackedStrings | undefined {
  const n = entries.length;
  const ends = new Uint32Array(n);
  let chars = 0;
  for (let j = 0; j < n; j++) {
    const v = entries[j];
    if (typeof v !== 'string') return undefined;
    chars += v.length;
  }
  const text = Buffer.from(new ArrayBuffer(chars + UTF8_MAX_CHAR));
  let pos = 0;
  for (let j = 0; j < n; j++) {
    const v = entries[j] as string;
    if (v.length > 0 && text.write(v, pos, 'utf8') !== v.length) return undefined;
    pos += v.length;
    ends[j] = pos;
  }
  return { text: new Uint8Array(text.buffer, 0, pos), ends, ascii: true, otherAt: new Uint32Array(0), others: [] };
}

/** Any table: each string entry as UTF-8, and the entries UTF-8 cannot carry exactly as they are. */
function packedUtf8(entries: readonly unknown[]): PackedStrings {
  const n = entries.length;
  const ends = new Uint32Array(n);
  const sizes = new Uint32Array(n);
  const otherAt: number[] = [];
  const others: unknown[] = [];
  let size = 0;
  let chars = 0;
  for (let j = 0; j < n; j++) {
    const v = entries[j];
    if (typeof v === 'string') {
      const bytes = Buffer.byteLength(v, 'utf8');
      // Only a string with characters beyond ASCII can hold a surrogate.
      if (bytes === v.length || !LONE_SURROGATE.test(v)) {
        sizes[j] = bytes;
        size += bytes;
        chars += v.length;
        continue;
      }
    }
    otherAt.push(j);
    others.push(v);
  }
  const text = Buffer.from(new ArrayBuffer(size));
  let pos = 0;
  let next = 0;
  for (let j = 0; j < n; j++) {
    if (next < otherAt.length && otherAt[next] === j) {
      next++;
      ends[j] = pos;
      continue;
    }
    if (sizes[j] > 0) pos += text.write(entries[j] as string, pos, sizes[j], 'utf8');
    ends[j] = pos;
  }
  return { text: new Uint8Array(text.buffer, 0, size), ends, ascii: size === chars, otherAt: Uint32Array.from(otherAt), others };
}

/** A table that came as bytes: entry j decoded when read. */
export class PackedStringTable {
  private readonly text: Buffer;
  private readonly ends: Uint32Array;
  private readonly encoding: 'latin1' | 'utf8';
  /** The entries kept as they are, at their indexes; undefined elsewhere (no entry is undefined). */
  private readonly kept: unknown[] | undefined;

  constructor(p: PackedStrings) {
    this.text = Buffer.from(p.text.buffer, p.text.byteOffset, p.text.byteLength);
    this.ends = p.ends;
    this.encoding = p.ascii ? 'latin1' : 'utf8';
    if (p.others.length > 0) {
      const kept: unknown[] = new Array<unknown>(p.ends.length);
      for (let k = 0; k < p.others.length; k++) kept[p.otherAt[k]] = p.others[k];
      this.kept = kept;
    }
  }

  /** Whether these parts fit together (they come from another thread). */
  static fits(p: PackedStrings): boolean {
    if (!(p.text instanceof Uint8Array && p.ends instanceof Uint32Array && p.otherAt instanceof Uint32Array && Array.isArray(p.others))) return false;
    if (p.otherAt.length !== p.others.length || typeof p.ascii !== 'boolean') return false;
    let last = 0;
    for (let j = 0; j < p.ends.length; j++) {
      if (p.ends[j] < last) return false;
      last = p.ends[j];
    }
    if (last > p.text.byteLength) return false;
    for (let k = 0; k < p.otherAt.length; k++) if (p.otherAt[k] >= p.ends.length || (k > 0 && p.otherAt[k] <= p.otherAt[k - 1])) return false;
    return true;
  }

  get length(): number {
    return this.ends.length;
  }

  entry(j: number): unknown {
    const kept = this.kept?.[j];
    if (kept !== undefined) return kept;
    return this.text.toString(this.encoding, j === 0 ? 0 : this.ends[j - 1], this.ends[j]);
  }
}
