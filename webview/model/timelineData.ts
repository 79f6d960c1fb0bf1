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
import { DELTA_TYPES, MarkKind, REFLECTOR_STATES, RELIST_REASONS, codeOf } from './codes';
import { notifyKind, rowNotifyKind } from './notifyKind';
import { OverviewLanes } from './overviewLanes';
import { filterActive, handlerShown, passes, type TimelineFilter } from './filter';
import { PackedLane } from './packed';
import { EventStore } from './eventStore';
import {
  CHANGE_MASK,
  CHANGE_SHIFT,
  CHANGES,
  EXTRA,
  HAS_TOMBSTONE,
  OP_MASK,
  OPS,
  ROW_TYPES,
  TOMBSTONE,
  batchArrays,
  type ColumnBatch,
} from '../../src/protocol/eventColumns';

const ROW = Object.fromEntries(ROW_TYPES.map((type, code) => [type, code])) as Record<(typeof ROW_TYPES)[number], number>;
const IDENTICAL_BITS = (CHANGES.indexOf('identical') + 1) << CHANGE_SHIFT;
const UPDATE = OPS.indexOf('update');

const markSpec = { t: Float64Array, kind: Uint8Array, seq: Float64Array, duration: Float64Array, reason: Uint8Array };
const pointSpec = { t: Float64Array, code: Uint8Array, seq: Float64Array };
const depthSpec = { t: Float64Array, keys: Float64Array, deltas: Float64Array };

export type MarkLane = PackedLane<typeof markSpec>;
export type PointLane = PackedLane<typeof pointSpec>;
export type DepthLane = PackedLane<typeof depthSpec>;

/** A spilled range read back from the host: its events as columns and the time span of its chunks. */
export interface LoadedRange {
  batch: ColumnBatch;
  t0: number;
  t1: number;
  /** The read covered every chunk of the range asked for. */
  complete: boolean;
}

export class TimelineData {
  /** reflector.state rows: code = index in REFLECTOR_STATES. */
  readonly states: PointLane = new PackedLane(pointSpec);
  /** lists, watches, relists, resyncs, bookmarks, faults, consistency checks, synced. */
  readonly marks: MarkLane = new PackedLane(markSpec);
  /** FIFO depth after each enqueue/pop. */
  readonly depth: DepthLane = new PackedLane(depthSpec);
  /** fifo.enqueue rows: code = index in DELTA_TYPES. */
  readonly deltas: PointLane = new PackedLane(pointSpec);
  /** distribute rows of identical updates (code 0). */
  readonly identical: PointLane = new PackedLane(pointSpec);
  /** Tombstones entering the FIFO (code 0) or handed to a handler (code 1). */
  readonly tombstones: PointLane = new PackedLane(pointSpec);
  /** One lane per handler, in the order handlers first appear; code = NotifyKind. */
  readonly handlers = new Map<string, PointLane>();

  /** The summary's stale-cache windows (the host computes them; set with every summary). */
  staleWindows: readonly StaleWindow[] = [];

  private store = new EventStore();
  /** The first rows of `store` that are spilled events (the overview's exact ones and a loaded range); memory's rows follow. */
  private spilledRows = 0;
  private spill: SpillOverview | undefined;
  private loaded: LoadedRange | undefined;
  /** The overview's counted rows outside the loaded range, drawn with the lanes (undefined: nothing spilled). */
  overview: OverviewLanes | undefined;
  /** Index in `marks` of the watch.start whose watch has not ended yet. */
  private openWatch = -1;
  private lastT = 0;
  /** The session's engine time as last heard from the host (0: not heard). */
  private now = 0;
  private liveSession = false;
  private filterBy: TimelineFilter = {};
  /** Every handler of the trace in order of appearance, whatever the filter hides. */
  private readonly handlerSet = new Set<string>();

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
  applyDelta(p: {
    afterSeq: number;
    events: readonly RecordedEvent[];
    columns?: readonly ColumnBatch[];
    live: boolean;
    nowT?: number;
    summary?: { staleWindows: readonly StaleWindow[] };
  }): boolean {
    const dropped = (events: readonly RecordedEvent[]) => events.some((e) => e?.type === 'trace.dropped');
    if (p.afterSeq !== this.lastSeq || dropped(p.events) || (p.columns ?? []).some((c) => dropped(c.extras))) return false;
    for (const c of p.columns ?? []) if (!this.appendColumns(c)) return false;
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

  private clearLanes(): void {
    for (const lane of [this.states, this.marks, this.depth, this.deltas, this.identical, this.tombstones]) lane.clear();
    this.handlers.clear();
    this.openWatch = -1;
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
   * A snapshot's events: its `columns`, its `chunks`, then its objects. False when a batch is
   * malformed or out of order (what was appended stays; the caller resets).
   */
  appendSnapshot(p: { columns?: ColumnBatch; chunks?: readonly ColumnBatch[]; events: readonly RecordedEvent[] }): boolean {
    if (p.columns !== undefined && !this.appendColumns(p.columns)) return false;
    for (const c of p.chunks ?? []) if (!this.appendColumns(c)) return false;
    this.append(p.events);
    return true;
  }

  /**
   * Appends a batch of columns (a snapshot's events). False, and nothing appended, when the
   * batch is malformed or does not follow on from the events held (seqs must increase).
   */
  appendColumns(batch: ColumnBatch): boolean {
    const cols = batchArrays(batch);
    if (!cols || (batch.count > 0 && cols.seq[0] <= this.lastSeq)) return false;
    const from = this.store.length;
    this.store.pushBatch(batch, cols);
    this.ingestRows(from, this.store.length);
    return true;
  }

  /**
   * Lanes from stored rows, read straight from the columns (no event objects): the same rows
   * `ingest` makes from the events; events kept whole, and every row while a filter is active,
   * go through `ingest`.
   */
  private ingestRows(from: number, to: number): void {
    if (filterActive(this.filterBy)) {
      for (let i = from; i < to; i++) {
        const e = this.store.event(i);
        const t = Math.max(e.t, this.lastT);
        this.lastT = t;
        if (e.type === 'notify' || e.type === 'handler.added') this.handlerSet.add(e.handler);
        this.ingest(e, t);
      }
      return;
    }
    const c = this.store.columns;
    const deltaCodes = new Map<number, number>();
    const handlerLanes = new Map<number, PointLane>();
    for (let i = from; i < to; i++) {
      const t = Math.max(c.t[i], this.lastT);
      this.lastT = t;
      const seq = c.seq[i];
      const flags = c.flags[i];
      switch (c.type[i]) {
        case ROW['fifo.enqueue']: {
          this.depth.push({ t, keys: c.n1[i], deltas: c.n2[i] });
          let code = deltaCodes.get(c.name[i]);
          if (code === undefined) {
            const delta = this.store.stringAt(c.name[i]) ?? '';
            code = delta === 'Bookmark' ? -1 : codeOf(DELTA_TYPES, delta as never);
            deltaCodes.set(c.name[i], code);
          }
          if (code >= 0) this.deltas.push({ t, code, seq });
          if (flags & HAS_TOMBSTONE) this.tombstones.push({ t, code: 0, seq });
          break;
        }
        case ROW['fifo.pop']:
          this.depth.push({ t, keys: c.n1[i], deltas: c.n2[i] });
          break;
        case ROW.distribute:
          if ((flags & OP_MASK) === UPDATE && (flags & CHANGE_MASK) === IDENTICAL_BITS) this.identical.push({ t, code: 0, seq });
          break;
        case ROW.notify: {
          let lane = handlerLanes.get(c.name[i]);
          if (!lane) {
            const handler = this.store.stringAt(c.name[i]) ?? '';
            this.handlerSet.add(handler);
            lane = this.handlerLane(handler);
            handlerLanes.set(c.name[i], lane);
          }
          const tombstone = (flags & HAS_TOMBSTONE) !== 0 && (flags & TOMBSTONE) !== 0;
          lane.push({ t, code: rowNotifyKind(flags, tombstone), seq });
          if (tombstone) this.tombstones.push({ t, code: 1, seq });
          break;
        }
        case ROW['watch.event']:
          if (this.store.stringAt(c.name[i]) === 'BOOKMARK') this.mark(t, MarkKind.Bookmark, seq);
          break;
        case EXTRA: {
          const e = this.store.event(i);
          if (e.type === 'notify' || e.type === 'handler.added') this.handlerSet.add(e.handler);
          this.ingest(e, t);
          break;
        }
        default:
          break;
      }
    }
  }

  private ingest(e: RecordedEvent, t: number): void {
    const seq = e.seq;
    switch (e.type) {
      case 'reflector.state':
        this.states.push({ t, code: codeOf(REFLECTOR_STATES, e.state), seq });
        break;
      case 'list.done':
        this.mark(t, MarkKind.List, seq, e.durationMs);
        break;
      case 'list.error':
        this.mark(t, MarkKind.ListError, seq);
        break;
      case 'watch.start':
        this.openWatch = this.mark(t, MarkKind.WatchStart, seq);
        break;
      case 'watch.end':
        this.mark(t, MarkKind.WatchEnd, seq, e.durationMs);
        if (this.openWatch >= 0) this.marks.set(this.openWatch, 'duration', e.durationMs);
        this.openWatch = -1;
        break;
      case 'relist':
        this.mark(t, MarkKind.Relist, seq, 0, Math.min(codeOf(RELIST_REASONS, e.reason), RELIST_REASONS.length - 1));
        break;
      case 'fifo.resync':
        this.mark(t, MarkKind.Resync, seq);
        break;
      case 'watch.event':
        if (e.eventType === 'BOOKMARK') this.mark(t, MarkKind.Bookmark, seq);
        break;
      case 'rest.retry':
        this.mark(t, MarkKind.RestRetry, seq);
        break;
      case 'fault.injected':
        this.mark(t, MarkKind.Fault, seq);
        break;
      case 'consistency.check':
        this.mark(t, MarkKind.Consistency, seq);
        break;
      case 'synced':
        this.mark(t, MarkKind.Synced, seq);
        break;
      case 'fifo.enqueue':
        this.depth.push({ t, keys: e.depthKeys, deltas: e.depthDeltas });
        if (!passes(this.filterBy, e)) break;
        if (e.delta !== 'Bookmark') this.deltas.push({ t, code: codeOf(DELTA_TYPES, e.delta), seq });
        if (e.tombstone) this.tombstones.push({ t, code: 0, seq });
        break;
      case 'fifo.pop':
        this.depth.push({ t, keys: e.depthKeys, deltas: e.depthDeltas });
        break;
      case 'distribute':
        if (e.op === 'update' && e.change === 'identical' && passes(this.filterBy, e)) this.identical.push({ t, code: 0, seq });
        break;
      case 'notify':
        if (!handlerShown(this.filterBy, e.handler)) break;
        // The lane exists even when the filter hides all its rows (it is still that handler's lane).
        if (passes(this.filterBy, e)) {
          this.handlerLane(e.handler).push({ t, code: notifyKind(e), seq });
          if (e.tombstone) this.tombstones.push({ t, code: 1, seq });
        } else this.handlerLane(e.handler);
        break;
      case 'handler.added':
        if (handlerShown(this.filterBy, e.handler)) this.handlerLane(e.handler);
        break;
      default:
        break;
    }
  }

  private mark(t: number, kind: MarkKind, seq: number, duration = 0, reason = 0): number {
    return this.marks.push({ t, kind, seq, duration, reason });
  }

  private handlerLane(name: string): PointLane {
    let lane = this.handlers.get(name);
    if (!lane) {
      lane = new PackedLane(pointSpec, 64);
      this.handlers.set(name, lane);
    }
    return lane;
  }
}

