/**
 * The webview's events, kept as columns (src/protocol/eventColumns.ts) rather than objects: a
 * million events fit in a few tens of MB. Rows arrive one event at a time (a live delta) or as
 * a whole batch of columns (a snapshot). `event(i)` rebuilds an event when something asks for it
 * (a tooltip, the details pane, an object's history). A distribute event's diff is kept when it
 * came as an object; a snapshot's diffs stay with the host (`diffDeferred`).
 */
import {
  COLUMN_NAMES,
  EXTRA,
  HAS_DIFF,
  ROW_TYPES,
  StringTable,
  allocateColumns,
  decodeRow,
  encodeRow,
  type ColumnBatch,
  type EventColumnArrays,
} from '../../src/protocol/eventColumns';
import type { FieldChange, RecordedEvent } from '../../src/format/events';
import { lowerBound } from './packed';

const DISTRIBUTE = ROW_TYPES.indexOf('distribute');
const NOTIFY = ROW_TYPES.indexOf('notify');
const ENQUEUE = ROW_TYPES.indexOf('fifo.enqueue');

/** The key field of an event kept whole, when it names one (a non-empty string). */
function extraKey(e: RecordedEvent | undefined): string | undefined {
  const k = (e as { key?: unknown } | undefined)?.key;
  return typeof k === 'string' && k !== '' ? k : undefined;
}

export class EventStore {
  private cols: EventColumnArrays = allocateColumns(256);
  private capacity = 256;
  private n = 0;
  private strings = new StringTable();
  private readonly extras = new Map<number, RecordedEvent>();
  private readonly diffs = new Map<number, FieldChange[]>();

  get length(): number {
    return this.n;
  }

  clear(): void {
    // Fresh arrays: the ones held may be a batch's (pushBatch), which are never written.
    this.cols = allocateColumns(256);
    this.capacity = 256;
    this.n = 0;
    this.strings = new StringTable();
    this.extras.clear();
    this.diffs.clear();
  }

  /** The live columns, valid up to `length`; do not keep them across a push. */
  get columns(): Readonly<EventColumnArrays> {
    return this.cols;
  }

  /** The string a column cell refers to (key, name). */
  stringAt(ref: number): string | undefined {
    return this.strings.at(ref);
  }

  seqAt(i: number): number {
    return this.cols.seq[i];
  }

  tAt(i: number): number {
    return this.cols.t[i];
  }

  /** Row of the event with that seq, or -1. */
  indexOfSeq(seq: number): number {
    const i = lowerBound(this.cols.seq, this.n, seq);
    return i < this.n && this.cols.seq[i] === seq ? i : -1;
  }

  typeAt(i: number): string {
    const code = this.cols.type[i];
    return code === EXTRA ? (this.extras.get(i)?.type ?? '') : ROW_TYPES[code];
  }

  /** The object key the event names, if any. */
  keyAt(i: number): string | undefined {
    if (this.cols.type[i] !== EXTRA) return this.strings.at(this.cols.key[i]);
    const k = (this.extras.get(i) as { key?: unknown } | undefined)?.key;
    return typeof k === 'string' ? k : undefined;
  }

  /** The key's reference in the string table (0: no event names it as a row key). */
  keyRef(key: string): number {
    return this.strings.find(key);
  }

  keyRefAt(i: number): number {
    return this.cols.type[i] === EXTRA ? 0 : this.cols.key[i];
  }

  /**
   * Every object key an event names, sorted, read from the key column (each string-table entry
   * looked at once) and from the events kept whole: no event is rebuilt.
   */
  objectKeys(): string[] {
    const c = this.cols;
    const seen = new Uint8Array(this.strings.strings.length + 1);
    const keys = new Set<string>();
    for (let i = 0; i < this.n; i++) {
      if (c.type[i] === EXTRA) {
        const k = extraKey(this.extras.get(i));
        if (k !== undefined) keys.add(k);
        continue;
      }
      const ref = c.key[i];
      if (ref === 0 || seen[ref]) continue;
      seen[ref] = 1;
      const k = this.strings.at(ref);
      if (k) keys.add(k);
    }
    return [...keys].sort();
  }

  /**
   * The seq to jump to for a key: its latest notification or FIFO entry, else its latest event
   * naming it; undefined when none does. Rows are matched by key reference, from the end.
   */
  jumpTarget(key: string): number | undefined {
    if (key === '') return undefined;
    const c = this.cols;
    const ref = this.strings.find(key);
    let any: number | undefined;
    for (let i = this.n - 1; i >= 0; i--) {
      const code = c.type[i];
      let type: string | undefined;
      if (code === EXTRA) {
        const e = this.extras.get(i);
        if (extraKey(e) !== key) continue;
        type = e!.type;
      } else if (ref === 0 || c.key[i] !== ref) {
        continue;
      }
      if (code === NOTIFY || code === ENQUEUE || type === 'notify' || type === 'fifo.enqueue') return c.seq[i];
      any ??= c.seq[i];
    }
    return any;
  }

  isExtra(i: number): boolean {
    return this.cols.type[i] === EXTRA;
  }

  event(i: number): RecordedEvent {
    if (this.cols.type[i] === EXTRA) return this.extras.get(i)!;
    const e = decodeRow(this.cols, i, this.strings);
    const diff = this.diffs.get(i);
    if (diff) (e as { diff?: FieldChange[] }).diff = diff;
    return e;
  }

  /** The event had a diff that only the host has (it came in a snapshot's columns). */
  diffDeferred(i: number): boolean {
    return this.cols.type[i] === DISTRIBUTE && (this.cols.flags[i] & HAS_DIFF) !== 0 && !this.diffs.has(i);
  }

  push(e: RecordedEvent): void {
    this.reserve(this.n + 1);
    const i = this.n;
    if (encodeRow(e, this.cols, i, this.strings)) {
      if (e.type === 'distribute' && Array.isArray(e.diff)) this.diffs.set(i, e.diff);
    } else {
      this.cols.seq[i] = e.seq;
      this.cols.t[i] = e.t;
      this.cols.type[i] = EXTRA;
      this.extras.set(i, e);
    }
    this.n++;
  }

  /** Appends a batch's rows (checked by batchArrays); string references are translated to this store's table. */
  pushBatch(batch: ColumnBatch, cols: EventColumnArrays): void {
    const from = this.n;
    const count = batch.count;
    if (from === 0 && count > this.capacity && this.strings.strings.length === 0) {
      // An empty store takes a large batch's arrays as they are (no copy; a snapshot's million rows
      // are not held twice). It never writes below its length, and grows into new arrays.
      this.cols = cols;
      this.capacity = count;
      this.strings = new StringTable(batch.strings.slice());
      for (let i = 0, next = 0; i < count; i++) if (cols.type[i] === EXTRA) this.extras.set(i, batch.extras[next++]);
      this.n = count;
      return;
    }
    this.reserve(from + count);
    for (const name of COLUMN_NAMES) (this.cols[name] as Float64Array).set(cols[name] as unknown as Float64Array, from);
    if (from === 0 && this.strings.strings.length === 0) {
      this.strings = new StringTable(batch.strings.slice());
    } else {
      const map = batch.strings.map((s) => this.strings.ref(s));
      const ref = (r: number) => (r > 0 ? (map[r - 1] ?? 0) : 0);
      const rv = (x: number) => (x < 0 ? -ref(-x) : x);
      for (let i = from; i < from + count; i++) {
        this.cols.key[i] = ref(this.cols.key[i]);
        this.cols.name[i] = ref(this.cols.name[i]);
        this.cols.rv[i] = rv(this.cols.rv[i]);
        this.cols.oldRv[i] = rv(this.cols.oldRv[i]);
      }
    }
    let next = 0;
    for (let i = from; i < from + count; i++) if (this.cols.type[i] === EXTRA) this.extras.set(i, batch.extras[next++]);
    this.n += count;
  }

  /**
   * Room for a block of a snapshot sent in parts, `count` rows after those held (at the first
   * block, room for all `total` rows of the snapshot: one allocation), as views of the store's own
   * columns that the block is unpacked into (columnPack.unpackColumnsInto). The rows count once
   * `pushBlock` takes them; until then the store is as it was.
   */
  blockRoom(count: number, total: number): EventColumnArrays {
    const from = this.n;
    if (from === 0 && total > this.capacity) {
      this.cols = allocateColumns(total);
      this.capacity = total;
    }
    this.reserve(from + count);
    const views = {} as Record<string, unknown>;
    for (const name of COLUMN_NAMES) views[name] = (this.cols[name] as Float64Array).subarray(from, from + count);
    return views as EventColumnArrays;
  }

  /**
   * Takes the block whose rows were written into `blockRoom`'s views (checked by rowsValid): its
   * string references are those of the sender's whole table, which this store's follows exactly —
   * the block brings the strings from `stringsFrom` on. False when the table does not follow on
   * (the store must then be cleared).
   */
  pushBlock(block: { count: number; strings: string[]; extras: RecordedEvent[] }, stringsFrom: number): boolean {
    if (stringsFrom !== this.strings.strings.length) return false;
    let known = stringsFrom;
    for (const s of block.strings) if (this.strings.ref(s) !== ++known) return false;
    const from = this.n;
    if (block.extras.length > 0) for (let i = from, next = 0; i < from + block.count; i++) if (this.cols.type[i] === EXTRA) this.extras.set(i, block.extras[next++]);
    this.n += block.count;
    return true;
  }

  /** Appends the first `count` rows of a batch (checked by batchArrays). */
  pushPrefix(batch: ColumnBatch, cols: EventColumnArrays, count: number): void {
    if (count >= batch.count) return this.pushBatch(batch, cols);
    const sub = {} as EventColumnArrays;
    for (const name of COLUMN_NAMES) (sub as Record<string, unknown>)[name] = (cols[name] as Float64Array).subarray(0, count);
    this.pushBatch({ ...batch, count }, sub);
  }

  /** Appends rows [from, to) of another store (with their diffs), translating its string references. */
  appendFrom(other: EventStore, from: number, to: number): void {
    if (to <= from) return;
    const sub = {} as EventColumnArrays;
    for (const name of COLUMN_NAMES) (sub as Record<string, unknown>)[name] = (other.cols[name] as Float64Array).subarray(from, to);
    const extras: RecordedEvent[] = [];
    for (let i = from; i < to; i++) if (other.cols.type[i] === EXTRA) extras.push(other.extras.get(i)!);
    const base = this.n;
    this.pushBatch({ count: to - from, columns: {} as ColumnBatch['columns'], strings: other.strings.strings, extras }, sub);
    for (const [i, diff] of other.diffs) if (i >= from && i < to) this.diffs.set(base + i - from, diff);
  }

  private reserve(size: number): void {
    if (size <= this.capacity) return;
    let cap = this.capacity;
    while (cap < size) cap *= 2;
    const next = allocateColumns(cap);
    for (const name of COLUMN_NAMES) (next[name] as Float64Array).set((this.cols[name] as Float64Array).subarray(0, this.n));
    this.cols = next;
    this.capacity = cap;
  }
}
