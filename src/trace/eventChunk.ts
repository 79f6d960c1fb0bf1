/**
 * The chunks of the recorder's in-memory window (eventWindow.ts): events are written into chunks
 * of typed-array slots and a per-chunk string table when recorded, and made into objects again
 * only when somebody reads them. A held event then costs a few 32-bit slots and its time instead of an object, its
 * strings, its arrays and its boxed numbers, each of which the garbage collector would copy and
 * promote one by one.
 *
 * Layout: a chunk holds up to `chunkSize` consecutive events. Per event: its type code
 * (Uint8Array), its t (Float64Array) and where its slots start (Uint32Array). The slots are 32-bit
 * integers (Int32Array); those of a packed event are a mask (bit f: field f is present; bit
 * WIDE_BIT + f: its value is wide) and then each present field of its type's schema in order.
 * Each field's value is first a number: a boolean 0 or 1; a string that spells a canonical
 * non-negative integer below 10^15 (resource versions) that number, any other string
 * -(1 + its index in the chunk's string table), interned per chunk; an array of delta types its
 * digits in base 9; an update diff the index of its JSON text. A number that is an int32 (and not
 * -0) is its own slot; any other (a large resource version, a fraction, NaN) is wide: it goes to
 * the chunk's Float64Array and its slot holds where. An event of another type, or one whose fields
 * do not fit its schema (an unexpected key, a value of another type), is kept as the object it is.
 * A full chunk gives back the room it reserved and did not use, and the index of its string table.
 *
 * What a read gives back is what the canonical export writes of the event (docs/trace-format.md):
 * the same fields and values; a field whose value was undefined is left out, and key order is
 * not kept (the export orders keys itself).
 */
import type { RecordedEvent, TraceEvent } from '../format/events';
import {
  BOOL, CACHE_SIZE, CACHE_SLOTS, CODES, DELTAS, FOR_FINDINGS, HAS_TEXT, JSON_TEXT, KINDS, NAMES, NUM, OBJECT, STR, TEXTS, TYPES, WIDE_BIT,
  deltasCode, deltasOf, integerOf, keyCount, narrow, type Kind,
} from './eventSchema';
import { PackedStringTable, packStrings, type PackedStrings } from './packedStrings';

const NO_WIDE = new Float64Array(0);

/**
 * A full chunk's contents as they travel from the engine worker to the host (Chunk.parts,
 * Chunk.fromParts): its typed arrays and its string table's bytes (packedStrings.ts), which the
 * message moves rather than copies, and the few table entries that are not strings, which it copies.
 */
export interface ChunkParts {
  count: number;
  types: Uint8Array;
  starts: Uint32Array;
  times: Float64Array;
  slots: Int32Array;
  wide: Float64Array;
  strings: PackedStrings;
}

export class Chunk {
  readonly types: Uint8Array;
  readonly starts: Uint32Array;
  readonly times: Float64Array;
  slots: Int32Array;
  used = 0;
  /** Values that are not int32 (see the file comment), allocated at the first. */
  wide: Float64Array = NO_WIDE;
  wideUsed = 0;
  count = 0;
  /** The string table of a chunk written here (entry() reads either table). */
  readonly strings: unknown[] = [];
  /** The string table of a chunk that came as parts, decoded when read. */
  private readonly packed: PackedStringTable | undefined;
  /** Where each interned string is in the table; dropped when the chunk is full. */
  private index: Map<string, number> | undefined = new Map<string, number>();

  constructor(readonly capacity: number, slotHint: number, parts?: ChunkParts) {
    if (parts) {
      // A full chunk made elsewhere (fromParts): it takes no more events.
      this.types = parts.types;
      this.starts = parts.starts;
      this.times = parts.times;
      this.slots = parts.slots;
      this.used = parts.slots.length;
      this.wide = parts.wide.length === 0 ? NO_WIDE : parts.wide;
      this.wideUsed = parts.wide.length;
      this.count = parts.count;
      this.packed = new PackedStringTable(parts.strings);
      this.index = undefined;
      return;
    }
    this.types = new Uint8Array(capacity);
    this.starts = new Uint32Array(capacity);
    this.times = new Float64Array(capacity);
    this.slots = new Int32Array(Math.max(16, slotHint));
  }

  /** A full chunk's contents (see ChunkParts); the caller may move its typed arrays' buffers away, after which the chunk must not be read. */
  parts(): ChunkParts {
    if (!this.full) throw new Error('Chunk.parts: the chunk is not full');
    return { count: this.count, types: this.types, starts: this.starts, times: this.times, slots: this.slots, wide: this.wide === NO_WIDE ? new Float64Array(0) : this.wide, strings: packStrings(this.strings) };
  }

  /** The chunk whose parts these are; throws when they do not fit together (they come from another thread). */
  static fromParts(p: ChunkParts): Chunk {
    const n = p.count;
    const ok =
      Number.isInteger(n) && n > 0 && p.types instanceof Uint8Array && p.types.length === n && p.starts instanceof Uint32Array && p.starts.length === n &&
      p.times instanceof Float64Array && p.times.length === n && p.slots instanceof Int32Array && p.wide instanceof Float64Array && PackedStringTable.fits(p.strings) &&
      p.starts.every((at) => at < p.slots.length);
    if (!ok) throw new Error('a packed batch whose parts do not fit together');
    return new Chunk(n, 0, p);
  }

  /** Entry j of the string table. */
  entry(j: number): unknown {
    return this.packed === undefined ? this.strings[j] : this.packed.entry(j);
  }

  /** How many entries the string table has. */
  get entries(): number {
    return this.packed === undefined ? this.strings.length : this.packed.length;
  }

  get full(): boolean {
    return this.count >= this.capacity;
  }

  /** Room for n more slots. */
  reserve(n: number): void {
    if (this.used + n <= this.slots.length) return;
    const grown = new Int32Array(Math.max(this.used + n, this.slots.length * 2));
    grown.set(this.slots.subarray(0, this.used));
    this.slots = grown;
  }

  /** Puts x into the wide array; its index there. */
  private putWide(x: number): number {
    if (this.wideUsed === this.wide.length) {
      const grown = new Float64Array(Math.max(16, this.wide.length * 2));
      grown.set(this.wide);
      this.wide = grown;
    }
    this.wide[this.wideUsed] = x;
    return this.wideUsed++;
  }

  /** The last string each cache slot interned, and its index. */
  private readonly lastString: (string | undefined)[] = new Array<string | undefined>(CACHE_SIZE).fill(undefined);
  private readonly lastIndex = new Int32Array(CACHE_SIZE);

  /** intern(s), answered from the slot's last string when it is the same. */
  private internAt(slot: number, s: string): number {
    if (this.lastString[slot] === s) return this.lastIndex[slot];
    const i = this.intern(s);
    this.lastString[slot] = s;
    this.lastIndex[slot] = i;
    return i;
  }

  intern(s: string): number {
    const index = (this.index ??= new Map<string, number>());
    let i = index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      index.set(s, i);
    }
    return i;
  }

  /** A value kept as it is (an event object, a diff's text): its index in the table. */
  keep(v: unknown): number {
    this.strings.push(v);
    return this.strings.length - 1;
  }

  add(e: TraceEvent, owned: boolean): void {
    const at = this.used;
    const wideAt = this.wideUsed;
    const code = CODES.get(e.type);
    if (code === undefined || !this.pack(e, code)) {
      this.used = at;
      this.wideUsed = wideAt;
      this.reserve(1);
      this.slots[this.used++] = this.keep(owned ? e : { ...e });
      this.types[this.count] = OBJECT;
    } else this.types[this.count] = code;
    this.starts[this.count++] = at;
    if (this.full) this.settle();
  }

  /** A full chunk gives back the room it reserved and did not use, and its table's index. */
  private settle(): void {
    if (this.used < this.slots.length) this.slots = this.slots.slice(0, this.used);
    if (this.wideUsed < this.wide.length) this.wide = this.wideUsed === 0 ? NO_WIDE : this.wide.slice(0, this.wideUsed);
    this.index = undefined;
    this.lastString.fill(undefined);
  }

  /**
   * The slot value of v as a field of this kind (see the file comment), before the wide check;
   * NaN when v does not fit the kind (the event is then kept as an object), which only a NUM
   * field's own NaN shares (callers tell them apart by typeof). cacheSlot: the field's slot in
   * the last-string cache.
   */
  private valueOf(kind: Kind, v: unknown, cacheSlot: number): number {
    switch (kind) {
      case NUM:
        return typeof v === 'number' ? v : NaN;
      case BOOL:
        return typeof v === 'boolean' ? (v ? 1 : 0) : NaN;
      case STR: {
        if (typeof v !== 'string') return NaN;
        const n = integerOf(v);
        return n >= 0 ? n : -1 - this.internAt(cacheSlot, v);
      }
      case DELTAS: {
        const x = deltasCode(v);
        return x < 0 ? -1 - this.keep(v) : x;
      }
      default: {
        let text: string | undefined;
        try {
          text = JSON.stringify(v);
        } catch {
          text = undefined;
        }
        // A value JSON cannot hold as it is (a function, a cycle) is kept as it is.
        return text === undefined ? -1 - this.keep(v) : this.keep(text);
      }
    }
  }

  /** Writes the slot value x of field f at p (wide when it is not an int32); the new mask. */
  private put(p: number, f: number, x: number, mask: number): number {
    if (narrow(x)) {
      this.slots[p] = x;
      return mask | (1 << f);
    }
    this.slots[p] = this.putWide(x);
    return mask | (1 << f) | (1 << (WIDE_BIT + f));
  }

  /** Writes e's slots; false when e does not fit the schema (the caller then keeps the object). */
  private pack(e: TraceEvent, code: number): boolean {
    if (typeof e.t !== 'number') return false;
    const names = NAMES[code];
    const kinds = KINDS[code];
    const slotsOfCache = CACHE_SLOTS[code];
    const o = e as unknown as Record<string, unknown>;
    this.reserve(names.length + 1);
    const maskAt = this.used;
    let p = maskAt + 1;
    let mask = 0;
    let keys = 'seq' in o ? 3 : 2;
    for (let f = 0; f < names.length; f++) {
      const v = o[names[f]];
      if (v === undefined) {
        if (names[f] in o) keys++;
        continue;
      }
      const x = this.valueOf(kinds[f], v, slotsOfCache[f]);
      if (Number.isNaN(x) && (kinds[f] !== NUM || typeof v !== 'number')) return false;
      mask = this.put(p++, f, x, mask);
      keys++;
    }
    if (keyCount(o) !== keys) return false;
    this.slots[maskAt] = mask;
    this.times[this.count] = e.t;
    this.used = p;
    return true;
  }

  /** The event being written field by field (begin … field calls … end). */
  private wCode = 0;
  private wAt = 0;
  private wWide = 0;
  private wMask = 0;
  private wNext = 0;
  private wLast = -1;
  private wFits = true;

  /**
   * Starts writing an event of a packed type (code) after the last one. Its fields follow, each
   * with its index in the type's schema, in increasing order (str, num, bool, deltas, json; an
   * undefined value: the field is absent), then end. What that adds is what add adds of the
   * object with those fields; a value that does not fit its field makes end add nothing.
   */
  begin(code: number): void {
    this.reserve(KINDS[code].length + 1);
    this.wCode = code;
    this.wAt = this.used;
    this.wWide = this.wideUsed;
    this.wMask = 0;
    this.wNext = this.used + 1;
    this.wLast = -1;
    this.wFits = true;
  }

  /** Whether field f comes next in order and is of this kind; if not, the event will not be added. */
  private takes(f: number, kind: Kind): boolean {
    if (f <= this.wLast || KINDS[this.wCode][f] !== kind) this.wFits = false;
    this.wLast = f;
    return this.wFits;
  }

  private write(f: number, x: number): void {
    this.wMask = this.put(this.wNext++, f, x, this.wMask);
  }

  str(f: number, v: string | undefined): void {
    if (v === undefined || !this.takes(f, STR)) return;
    if (typeof v !== 'string') this.wFits = false;
    else this.write(f, this.valueOf(STR, v, CACHE_SLOTS[this.wCode][f]));
  }

  num(f: number, v: number | undefined): void {
    if (v === undefined || !this.takes(f, NUM)) return;
    if (typeof v !== 'number') this.wFits = false;
    else this.write(f, v);
  }

  bool(f: number, v: boolean | undefined): void {
    if (v === undefined || !this.takes(f, BOOL)) return;
    if (typeof v !== 'boolean') this.wFits = false;
    else this.write(f, v ? 1 : 0);
  }

  /** A delta list or a JSON-text field (by the schema's kind). */
  other(f: number, v: unknown): void {
    if (v === undefined) return;
    const kind = KINDS[this.wCode][f];
    if ((kind !== DELTAS && kind !== JSON_TEXT) || !this.takes(f, kind)) {
      this.wFits = false;
      return;
    }
    this.write(f, this.valueOf(kind, v, 0));
  }

  /** A JSON-text field given as its text (what other() keeps of a value whose JSON.stringify is `text`). */
  json(f: number, text: string): void {
    if (!this.takes(f, JSON_TEXT)) return;
    this.write(f, this.keep(text));
  }

  /** Adds the event begun with its time t; false when a field did not fit (nothing added). */
  end(t: number): boolean {
    if (!this.wFits) {
      this.wideUsed = this.wWide;
      return false;
    }
    this.slots[this.wAt] = this.wMask;
    this.times[this.count] = t;
    this.used = this.wNext;
    this.types[this.count] = this.wCode;
    this.starts[this.count++] = this.wAt;
    if (this.full) this.settle();
    return true;
  }

  /**
   * Appends a copy of src's i-th event, slot by slot, as add would append that event read back
   * (no object is made). memo: for src's string table, 1 + the index in this chunk's table of each
   * entry copied so far (0: not yet), kept by the caller across the events of one src.
   */
  copyFrom(src: Chunk, i: number, memo: Int32Array): void {
    const code = src.types[i];
    let p = src.starts[i];
    const at = this.used;
    const ss = src.slots;
    if (code === OBJECT) {
      this.reserve(1);
      this.slots[this.used++] = this.copyString(src, ss[p], memo);
    } else {
      const mask = ss[p++];
      const kinds = KINDS[code];
      this.reserve(kinds.length + 1);
      const slots = this.slots;
      let q = this.used;
      slots[q++] = mask;
      for (let f = 0; f < kinds.length; f++) {
        if ((mask & (1 << f)) === 0) continue;
        const x = ss[p++];
        if ((mask & (1 << (WIDE_BIT + f))) !== 0) slots[q++] = this.putWide(src.wide[x]);
        else if (x < 0 && kinds[f] !== NUM) slots[q++] = -1 - this.copyString(src, -1 - x, memo);
        else if (x >= 0 && kinds[f] === JSON_TEXT) slots[q++] = this.copyString(src, x, memo);
        else slots[q++] = x;
      }
      this.used = q;
    }
    this.types[this.count] = code;
    this.times[this.count] = src.times[i];
    this.starts[this.count++] = at;
    if (this.full) this.settle();
  }

  /** The index here of src's string-table entry j (copied at its first use; memo: see copyFrom). */
  private copyString(src: Chunk, j: number, memo: Int32Array): number {
    const known = memo[j];
    if (known !== 0) return known - 1;
    const k = this.keep(src.entry(j));
    memo[j] = k + 1;
    return k;
  }

  /**
   * The i-th event as an object with this seq. forFindings: a field kept as JSON text (an
   * update's diff) is not an own property but parsed when read, through a getter of the object's
   * prototype (FOR_FINDINGS): a rule reading it gets it, enumerating the object does not list it.
   */
  read(i: number, seq: number, forFindings = false): RecordedEvent {
    const code = this.types[i];
    let p = this.starts[i];
    const slots = this.slots;
    if (code === OBJECT) {
      const e = this.entry(slots[p]) as TraceEvent;
      return { ...e, seq } as RecordedEvent;
    }
    const names = NAMES[code];
    const kinds = KINDS[code];
    const mask = slots[p];
    const o: Record<string, unknown> = forFindings && HAS_TEXT[code] ? Object.create(FOR_FINDINGS) : {};
    o.type = TYPES[code];
    o.t = this.times[i];
    p += 1;
    for (let f = 0; f < names.length; f++) {
      if ((mask & (1 << f)) === 0) continue;
      const x = (mask & (1 << (WIDE_BIT + f))) === 0 ? slots[p++] : this.wide[slots[p++]];
      switch (kinds[f]) {
        case NUM:
          o[names[f]] = x;
          break;
        case BOOL:
          o[names[f]] = x === 1;
          break;
        case STR:
          o[names[f]] = x >= 0 ? String(x) : this.entry(-1 - x);
          break;
        case DELTAS:
          o[names[f]] = x >= 0 ? deltasOf(x) : this.entry(-1 - x);
          break;
        default:
          if (x < 0) o[names[f]] = this.entry(-1 - x);
          else if (forFindings) (o as { [TEXTS]?: Record<string, string> })[TEXTS] = { [names[f]]: this.entry(x) as string };
          else o[names[f]] = JSON.parse(this.entry(x) as string);
      }
    }
    o.seq = seq;
    return o as unknown as RecordedEvent;
  }

  /** The type of the i-th event without making it. */
  typeOf(i: number): string {
    const code = this.types[i];
    return code === OBJECT ? (this.entry(this.slots[this.starts[i]]) as TraceEvent).type : TYPES[code];
  }
}
