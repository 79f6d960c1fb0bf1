/**
 * The timeline's data provider: trace events in, one packed lane per track out. It keeps the
 * events themselves (for the details pane) and, per lane, only times, small codes and the seq
 * of the event each row stands for. Events must be appended in seq order; a snapshot replaces
 * everything (reset + append).
 *
 * The end of the timeline (`endT`): for a live session the session's current engine time
 * (`nowT`, never behind the last event), so the current reflector state and the open watch run
 * up to now while nothing happens; for an ended or imported session its last event.
 */
import type { RecordedEvent } from '../../src/format/events';
import type { StaleWindow } from '../../src/format/trace';
import { DELTA_TYPES, MarkKind, NotifyKind, REFLECTOR_STATES, RELIST_REASONS, codeOf } from './codes';
import { handlerShown, passes, type TimelineFilter } from './filter';
import { PackedLane, lowerBound } from './packed';

const markSpec = { t: Float64Array, kind: Uint8Array, seq: Float64Array, duration: Float64Array, reason: Uint8Array };
const pointSpec = { t: Float64Array, code: Uint8Array, seq: Float64Array };
const depthSpec = { t: Float64Array, keys: Float64Array, deltas: Float64Array };

export type MarkLane = PackedLane<typeof markSpec>;
export type PointLane = PackedLane<typeof pointSpec>;
export type DepthLane = PackedLane<typeof depthSpec>;

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

  private readonly events: RecordedEvent[] = [];
  private readonly seqs: number[] = [];
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
    return this.events.length;
  }

  get lastSeq(): number {
    return this.seqs.length > 0 ? this.seqs[this.seqs.length - 1] : -1;
  }

  get firstT(): number {
    return this.events.length > 0 ? this.events[0].t : 0;
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

  allEvents(): readonly RecordedEvent[] {
    return this.events;
  }

  bySeq(seq: number): RecordedEvent | undefined {
    const i = lowerBound(this.seqs, this.seqs.length, seq);
    return this.seqs[i] === seq ? this.events[i] : undefined;
  }

  /** Position of an event in seq order, or -1. */
  indexOfSeq(seq: number): number {
    const i = lowerBound(this.seqs, this.seqs.length, seq);
    return this.seqs[i] === seq ? i : -1;
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
    let lastT = 0;
    for (const e of this.events) {
      lastT = Math.max(e.t, lastT);
      this.ingest(e, lastT);
    }
  }

  reset(): void {
    this.clearLanes();
    this.staleWindows = [];
    this.events.length = 0;
    this.seqs.length = 0;
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
      this.events.push(e);
      this.seqs.push(e.seq);
      // Times are monotonic per engine clock; clamp so a lane's times never decrease.
      const t = Math.max(e.t, this.lastT);
      this.lastT = t;
      if (e.type === 'notify' || e.type === 'handler.added') this.handlerSet.add(e.handler);
      this.ingest(e, t);
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

function notifyKind(e: Extract<RecordedEvent, { type: 'notify' }>): NotifyKind {
  if (e.op === 'delete') return e.tombstone ? NotifyKind.Tombstone : NotifyKind.Delete;
  if (e.op === 'add') return e.isSync ? NotifyKind.Sync : NotifyKind.Add;
  if (e.change === 'identical') return NotifyKind.Identical;
  return e.isSync ? NotifyKind.Sync : NotifyKind.Update;
}
