/**
 * The recorder's in-memory window: recorded events in seq order, packed into chunks
 * (eventChunk.ts: the layout) when recorded and made into objects again only when read.
 */
import type { RecordedEvent, TraceEvent } from '../format/events';
import type { TypedEvents } from './findings/types';
import { Chunk } from './eventChunk';

export { packedLayout, type PackedLayout } from './eventSchema';

/**
 * Recorded events in seq order, packed. Seqs are contiguous: the i-th held event has seq
 * firstSeq + i. Events leave only from the front.
 */
export class EventWindow {
  private chunks: Chunk[] = [];
  /**
   * Where each chunk's first event is, counted from chunks[0]'s first. While every chunk but the
   * last holds chunkSize events (uniform), the chunk of an index is found by division.
   */
  private offsets: number[] = [];
  private uniform = true;
  /** Events of chunks[0] already gone. */
  private head = 0;
  private size = 0;
  private first = 0;
  private slotHint = 0;

  /** @param chunkSize events per chunk (the recorder's eviction count, so an eviction frees whole chunks). */
  constructor(private readonly chunkSize: number) {}

  get length(): number {
    return this.size;
  }

  /** The seq of the oldest held event (the next seq to come when none is held). */
  get firstSeq(): number {
    return this.first;
  }

  /**
   * Appends e as the event with seq firstSeq + length (a seq e carries is not kept). owned: the
   * caller hands e over, so an event kept as an object is e itself, else a shallow copy.
   */
  push(e: TraceEvent, owned: boolean): void {
    this.tail().add(e, owned);
    this.size++;
  }

  /**
   * Starts an event of a packed type (code: packedLayout's) with seq firstSeq + length: the
   * returned chunk takes its fields (Chunk.begin), then end(chunk, t) appends it.
   */
  begin(code: number): Chunk {
    const c = this.tail();
    c.begin(code);
    return c;
  }

  /** Appends the event begun on c (begin); false when one of its fields did not fit (nothing appended). */
  end(c: Chunk, t: number): boolean {
    if (!c.end(t)) return false;
    this.size++;
    return true;
  }

  /** The chunk the next event goes to. */
  private tail(): Chunk {
    let last = this.chunks[this.chunks.length - 1];
    if (last === undefined || last.full) {
      if (last) this.slotHint = last.used;
      // The first chunk starts small and grows; later ones reserve about what the last full one used.
      last = new Chunk(this.chunkSize, this.slotHint > 0 ? Math.ceil(this.slotHint * 1.05) : Math.min(this.chunkSize * 8, 1 << 16));
      this.addChunk(last);
    }
    return last;
  }

  private addChunk(c: Chunk): void {
    const n = this.chunks.length;
    const last = this.chunks[n - 1];
    this.offsets.push(n === 0 ? 0 : this.offsets[n - 1] + last.count);
    if ((last !== undefined && last.count !== this.chunkSize) || c.capacity !== this.chunkSize) this.uniform = false;
    this.chunks.push(c);
  }

  /**
   * Appends the events of a full chunk made elsewhere (an engine worker's batch, Chunk.fromParts),
   * with seqs from firstSeq + length on: the chunk becomes part of the window as it is.
   */
  append(c: Chunk): void {
    if (!c.full) throw new Error('EventWindow.append: the chunk is not full');
    if (c.count === 0) return;
    this.addChunk(c);
    this.size += c.count;
  }

  /** Which chunk holds the event at j (counted from chunks[0]'s first event). */
  private chunkOf(j: number): number {
    if (this.uniform) return Math.floor(j / this.chunkSize);
    const o = this.offsets;
    let lo = 0;
    let hi = o.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (o[mid] <= j) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The held event at this index (0 = the oldest); forFindings: see Chunk.read. */
  at(i: number, forFindings = false): RecordedEvent {
    const j = i + this.head;
    const c = this.chunkOf(j);
    return this.chunks[c].read(j - this.offsets[c], this.first + i, forFindings);
  }

  /** The type of the held event at this index, without making it. */
  private typeAt(i: number): string {
    const j = i + this.head;
    const c = this.chunkOf(j);
    return this.chunks[c].typeOf(j - this.offsets[c]);
  }

  /** The held events with index from ≤ i < to, as objects. */
  slice(from = 0, to = this.size): RecordedEvent[] {
    const a = Math.max(0, Math.min(this.size, Math.floor(from)));
    const b = Math.max(a, Math.min(this.size, Math.floor(to)));
    const out: RecordedEvent[] = new Array(b - a);
    for (let i = a; i < b; i++) out[i - a] = this.at(i);
    return out;
  }

  /**
   * A copy of the held events from index `from` on, packed in a chunk of their own (a batch for
   * the host, Chunk.parts), made slot by slot without objects; undefined when there are none.
   */
  copyFrom(from: number): Chunk | undefined {
    const a = Math.max(0, Math.min(this.size, Math.floor(from)));
    const b = this.size;
    if (a === b) return undefined;
    const out = new Chunk(b - a, (b - a) * 8);
    let i = a + this.head;
    const end = b + this.head;
    while (i < end) {
      const k = this.chunkOf(i);
      const c = this.chunks[k];
      const base = this.offsets[k];
      const stop = Math.min(end, base + c.count);
      const memo = new Int32Array(c.entries);
      for (; i < stop; i++) out.copyFrom(c, i - base, memo);
    }
    return out;
  }

  /**
   * The held events by type, made into objects only for the types asked for (one pass over the
   * type codes at the first ask). A view of the window as it is now: events pushed or dropped
   * later are not in it, and it must not be read after a drop.
   */
  byType(): TypedEvents {
    let index: Map<string, number[]> | undefined;
    const size = this.size;
    const indexOf = (): Map<string, number[]> => {
      if (index) return index;
      index = new Map();
      for (let i = 0; i < size; i++) {
        const type = this.typeAt(i);
        const list = index.get(type);
        if (list) list.push(i);
        else index.set(type, [i]);
      }
      return index;
    };
    return {
      // Diffs parsed only when read: the findings rules do not read them.
      ofType: (type) => (indexOf().get(type) ?? []).map((i) => this.at(i, true)),
      all: () => this.slice(0, size),
    };
  }

  /** An empty window's next event gets this seq (a copy of a window that began later than seq 0). */
  startAt(seq: number): void {
    if (this.size !== 0) throw new Error('EventWindow.startAt: the window is not empty');
    this.first = seq;
  }

  /** Removes the oldest count events. */
  dropFirst(count: number): void {
    const n = Math.max(0, Math.min(this.size, Math.floor(count)));
    this.size -= n;
    this.first += n;
    this.head += n;
    while (this.chunks.length > 1 && this.head >= this.offsets[1]) {
      this.chunks.shift();
      this.offsets.shift();
      const base = this.offsets[0];
      for (let k = 0; k < this.offsets.length; k++) this.offsets[k] -= base;
      this.head -= base;
    }
    if (this.size === 0) {
      this.chunks = [];
      this.offsets = [];
      this.uniform = true;
      this.head = 0;
    }
  }
}
