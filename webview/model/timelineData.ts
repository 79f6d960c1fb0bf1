/**
 * The timeline's data provider: trace events in, one packed lane per track out. It keeps the
 * events as columns (eventStore.ts: rebuilt one at a time for the details pane, tooltips and
 * histories) and, per lane, only times, small codes and the seq of the event each row stands
 * for. Events arrive in seq order, as objects (a live delta) or as a snapshot's columns; a
 * snapshot replaces everything (reset + appendColumns).
 *
 * The end of the timeline (`endT`): for a live session the session's current engine time
 * (`nowT`, never behind the last event), so the current reflector state and the open watch run
 * up to now while nothing happens; for an ended or imported session its last event.
 */
import type { RecordedEvent } from '../../src/format/events';
import type { StaleWindow } from '../../src/format/trace';
import type { SpillOverview } from '../../src/format/spill';
import { OverviewLanes } from './overviewLanes';
import { handlerShown, type TimelineFilter } from './filter';
import { EventStore } from './eventStore';
import { LaneSet } from './laneSet';
import { batchArrays, rowsValid, type ColumnBatch } from '../../src/protocol/eventColumns';
import { isPacked, unpackColumns, unpackColumnsInto, type PackedColumns } from '../../src/protocol/columnPack';

export type { DepthLane, MarkLane, PointLane } from './laneSet';

/** A spilled range read back from the host: its events as columns and the time span of its chunks. */
export interface LoadedRange {
  batch: ColumnBatch;
  t0: number;
  t1: number;
  /** The read covered every chunk of the range asked for. */
  complete: boolean;
}

export class TimelineData extends LaneSet {
  /** The summary's stale-cache windows (the host computes them; set with every summary). */
  staleWindows: readonly StaleWindow[] = [];

  /** The first rows of `store` that are spilled events (the overview's exact ones and a loaded range); memory's rows follow. */
  private spilledRows = 0;
  private spill: SpillOverview | undefined;
  private loaded: LoadedRange | undefined;
  /** The overview's counted rows outside the loaded range, drawn with the lanes (undefined: nothing spilled). */
  overview: OverviewLanes | undefined;
  /** The session's engine time as last heard from the host (0: not heard). */
  private now = 0;
  private liveSession = false;

  get eventCount(): number {
    return this.store.length;
  }

  get lastSeq(): number {
    return this.store.length > 0 ? this.store.seqAt(this.store.length - 1) : -1;
  }

  /** Where the recording starts: its first spilled chunk, else its first event. */
  get firstT(): number {
    const held = this.store.length > 0 ? this.store.tAt(0) : undefined;
    const spilled = this.spill && this.spill.chunks.length > 0 ? this.spill.chunks[0].t0 : undefined;
    return Math.min(held ?? spilled ?? 0, spilled ?? held ?? 0);
  }

  /** The time span of the spilled events [first chunk start, last chunk end], if any. */
  get spilledSpan(): [number, number] | undefined {
    const c = this.spill?.chunks;
    return c && c.length > 0 ? [c[0].t0, c[c.length - 1].t1] : undefined;
  }

  /** How many events are on disk for this view (its overview's chunks). */
  get spilledEvents(): number {
    return this.spill?.chunks.reduce((n, c) => n + c.count, 0) ?? 0;
  }

  /** The spilled range whose events are loaded (a range read), if any. */
  get loadedRange(): Readonly<LoadedRange> | undefined {
    return this.loaded;
  }

  /** The overview the host sent with the snapshot, if anything was spilled. */
  get spillOverview(): SpillOverview | undefined {
    return this.spill;
  }

  /**
   * Takes the snapshot's overview of spilled events (and a loaded range of them to keep, if any):
   * call it after reset() and before the snapshot's own events. Its exact events become rows
   * like any other; the counted ones become the overview lanes.
   */
  setSpill(overview: SpillOverview | undefined, loaded?: LoadedRange): void {
    this.spill = overview && overview.chunks.length > 0 ? overview : undefined;
    this.loaded = this.spill ? loaded : undefined;
    this.rebuild();
  }

  /**
   * The events of a spilled range (a range read's columns): they replace the range loaded before
   * and are drawn exactly as events in memory. False (nothing changed) when the columns are malformed.
   */
  loadSpilled(range: LoadedRange | undefined): boolean {
    if (range && !batchArrays(range.batch)) return false;
    this.loaded = range;
    this.rebuild();
    return true;
  }

  /**
   * Rebuilds the rows and lanes: the overview's exact events outside the loaded range, the loaded
   * range, then the rows that came from memory (the snapshot and deltas), in seq order.
   */
  private rebuild(): void {
    const old = this.store;
    const memoryFrom = this.spilledRows;
    const memoryFirst = memoryFrom < old.length ? old.seqAt(memoryFrom) : Number.POSITIVE_INFINITY;
    const fresh = new EventStore();
    const batch = this.loaded?.batch;
    const cols = batch ? batchArrays(batch) : undefined;
    // A range read after the snapshot may reach events this view holds from memory: those stay memory rows.
    let count = 0;
    if (batch && cols) while (count < batch.count && cols.seq[count] < memoryFirst) count++;
    const firstLoaded = count > 0 ? cols!.seq[0] : Number.POSITIVE_INFINITY;
    const lastLoaded = count > 0 ? cols!.seq[count - 1] : Number.NEGATIVE_INFINITY;
    const exact = this.spill?.exact ?? [];
    let k = 0;
    for (; k < exact.length && exact[k].seq < Math.min(firstLoaded, memoryFirst); k++) fresh.push(exact[k]);
    if (count > 0) fresh.pushPrefix(batch!, cols!, count);
    for (; k < exact.length && exact[k].seq < memoryFirst; k++) if (exact[k].seq > lastLoaded) fresh.push(exact[k]);
    this.spilledRows = fresh.length;
    fresh.appendFrom(old, memoryFrom, old.length);
    this.store = fresh;
    const skip: [number, number] | undefined = this.loaded ? [this.loaded.t0, this.loaded.t1] : undefined;
    this.overview = this.spill ? new OverviewLanes(this.spill.dense, skip, memoryFirst < Number.POSITIVE_INFINITY && memoryFrom < old.length ? old.tAt(memoryFrom) : this.spill.chunks[this.spill.chunks.length - 1].t1) : undefined;
    this.setFilter(this.filterBy);
  }

  /** The latest event time seen. */
  get lastEventT(): number {
    return this.lastT;
  }

  /** The session's current engine time: never behind the last event. */
  get nowT(): number {
    return Math.max(this.now, this.lastT);
  }

  get live(): boolean {
    return this.liveSession;
  }

  /** Where the timeline ends: now for a live session, the last event for an ended or imported one. */
  get endT(): number {
    return this.liveSession ? this.nowT : this.lastT;
  }

  /** Whether the session is live (its timeline then ends at now). */
  setLive(live: boolean): void {
    this.liveSession = live;
  }

  /** The session's current engine time from the host; time never goes back. */
  advanceNow(t: number): void {
    if (Number.isFinite(t) && t > this.now) this.now = t;
  }

  /** The index of the watch.start mark of a watch still open, or -1. */
  get openWatchMark(): number {
    return this.openWatch;
  }

  /** Every event, rebuilt (a new array each call: costly for a large trace; prefer eventAt and typeAt). */
  allEvents(): readonly RecordedEvent[] {
    const out: RecordedEvent[] = new Array(this.store.length);
    for (let i = 0; i < out.length; i++) out[i] = this.store.event(i);
    return out;
  }

  /** Every object key an event names, sorted (read from the key column; no event rebuilt). */
  objectKeys(): string[] {
    return this.store.objectKeys();
  }

  /** The event the search jumps to for a key (filter.ts's jumpTarget, on the columns). */
  jumpTarget(key: string): number | undefined {
    return this.store.jumpTarget(key);
  }

  bySeq(seq: number): RecordedEvent | undefined {
    const i = this.store.indexOfSeq(seq);
    return i < 0 ? undefined : this.store.event(i);
  }

  /** Position of an event in seq order, or -1. */
  indexOfSeq(seq: number): number {
    return this.store.indexOfSeq(seq);
  }

  /** The event at a position in seq order (0 ≤ i < eventCount), rebuilt from its columns. */
  eventAt(i: number): RecordedEvent {
    return this.store.event(i);
  }

  /** The type of the event at a position, without rebuilding it. */
  typeAt(i: number): string {
    return this.store.typeAt(i);
  }

  /** The object key the event at a position names, if any, without rebuilding it. */
  keyAt(i: number): string | undefined {
    return this.store.keyAt(i);
  }

  /** The columns of the events, for scans that compare keys by reference (object histories). */
  get events(): EventStore {
    return this.store;
  }

  /** The event with that seq had a diff that only the host holds (it came in a snapshot's columns). */
  diffDeferred(seq: number): boolean {
    const i = this.store.indexOfSeq(seq);
    return i >= 0 && this.store.diffDeferred(i);
  }

  /**
   * Applies a host delta batch (timeline protocol) if it follows on from what this data holds and
   * the recorder dropped nothing; returns false otherwise (the view must ask for a snapshot: it
   * missed a batch, the host restarted its stream, or this view would hold more than the cap).
   */
  applyDelta(p: { afterSeq: number; events: readonly RecordedEvent[]; live: boolean; nowT?: number; summary?: { staleWindows: readonly StaleWindow[] } }): boolean {
    if (p.afterSeq !== this.lastSeq || p.events.some((e) => e.type === 'trace.dropped')) return false;
    this.append(p.events);
    this.setLive(p.live);
    if (p.nowT !== undefined) this.advanceNow(p.nowT);
    if (p.summary) this.staleWindows = p.summary.staleWindows;
    return true;
  }

  /** Every handler of the trace, in the order each first appears (the handler filter's choices). */
  get handlerNames(): readonly string[] {
    return [...this.handlerSet];
  }

  /** The filter the per-object lanes are built with (model/filter.ts); a reset keeps it. */
  get filter(): TimelineFilter {
    return this.filterBy;
  }

  /** Rebuilds every lane from the events under a new filter (the events themselves are kept). */
  setFilter(f: TimelineFilter): void {
    this.filterBy = { ...f };
    this.clearLanes();
    const lastT = this.lastT;
    this.lastT = 0;
    this.ingestRows(0, this.store.length);
    this.lastT = Math.max(lastT, this.lastT);
    // Handlers seen only in the overview still get their lane (after those the rows made).
    for (const name of this.overview?.handlers.keys() ?? []) {
      this.handlerSet.add(name);
      if (handlerShown(this.filterBy, name)) this.handlerLane(name);
    }
  }

  reset(): void {
    this.clearLanes();
    this.store = new EventStore();
    this.spilledRows = 0;
    this.spill = undefined;
    this.loaded = undefined;
    this.overview = undefined;
    this.staleWindows = [];
    this.handlerSet.clear();
    this.lastT = 0;
    this.now = 0;
    this.liveSession = false;
  }

  append(batch: readonly RecordedEvent[]): void {
    for (const e of batch) {
      if (e.seq <= this.lastSeq) continue; // already have it (a snapshot overlapped a delta)
      this.store.push(e);
      // Times are monotonic per engine clock; clamp so a lane's times never decrease.
      const t = Math.max(e.t, this.lastT);
      this.lastT = t;
      if (e.type === 'notify' || e.type === 'handler.added') this.handlerSet.add(e.handler);
      this.ingest(e, t);
    }
  }

  /**
   * Appends a block of a snapshot sent in parts (SnapshotPartParams): rows `from` on, which must
   * be the rows held. False when it does not follow on or is malformed (the data must then be reset).
   */
  appendPart(p: { from: number; total: number; stringsFrom: number; columns: PackedColumns }): boolean {
    const block = p.columns;
    const n = block.count;
    if (p.from !== this.store.length || this.spill || !Number.isSafeInteger(n) || n < 0 || !Number.isSafeInteger(p.total) || p.total < p.from + n) return false;
    // Unpacked straight into the store's columns past its rows: no copy of the block is made.
    const cols = this.store.blockRoom(n, p.total);
    if (!unpackColumnsInto(block, cols) || !rowsValid(cols, n, block) || (n > 0 && cols.seq[0] <= this.lastSeq)) return false;
    if (!this.store.pushBlock(block, p.stringsFrom)) return false;
    this.ingestRows(p.from, this.store.length);
    return true;
  }

  /**
   * Appends a batch of columns (a snapshot's events, packed or not). False, and nothing
   * appended, when the batch is malformed or does not follow on from the events held (seqs
   * must increase).
   */
  appendColumns(columns: ColumnBatch | PackedColumns): boolean {
    const batch = isPacked(columns) ? unpackColumns(columns) : columns;
    if (!batch) return false;
    const cols = batchArrays(batch);
    if (!cols || (batch.count > 0 && cols.seq[0] <= this.lastSeq)) return false;
    const from = this.store.length;
    this.store.pushBatch(batch, cols);
    this.ingestRows(from, this.store.length);
    return true;
  }

}

