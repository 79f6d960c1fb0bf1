/**
 * The lanes of the timeline and how trace events become their rows: one packed lane per track,
 * filled from event objects (`ingest`) or straight from a snapshot's columns (`ingestRows`).
 * TimelineData (timelineData.ts) adds the events' store, spill, liveness and the filter's API.
 */
import type { RecordedEvent } from '../../src/format/events';
import { DELTA_TYPES, MarkKind, REFLECTOR_STATES, RELIST_REASONS, codeOf } from './codes';
import { notifyKind, rowNotifyKind } from './notifyKind';
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

export abstract class LaneSet {
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

  protected store = new EventStore();
  /** Index in `marks` of the watch.start whose watch has not ended yet. */
  protected openWatch = -1;
  protected lastT = 0;
  protected filterBy: TimelineFilter = {};
  /** Every handler of the trace in order of appearance, whatever the filter hides. */
  protected readonly handlerSet = new Set<string>();

  protected clearLanes(): void {
    for (const lane of [this.states, this.marks, this.depth, this.deltas, this.identical, this.tombstones]) lane.clear();
    this.handlers.clear();
    this.openWatch = -1;
  }

  /**
   * Lanes from stored rows, read straight from the columns (no event objects): the same rows
   * `ingest` makes from the events; events kept whole, and every row while a filter is active,
   * go through `ingest`.
   */
  protected ingestRows(from: number, to: number): void {
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
    const notifyRows = this.reserveRows(from, to);
    const deltaCodes = new Map<number, number>();
    const handlerLanes = new Map<number, PointLane>();
    const bookmarks = new Map<number, boolean>();
    for (let i = from; i < to; i++) {
      const t = Math.max(c.t[i], this.lastT);
      this.lastT = t;
      const seq = c.seq[i];
      const flags = c.flags[i];
      switch (c.type[i]) {
        case ROW['fifo.enqueue']: {
          this.depth.push3(t, c.n1[i], c.n2[i]);
          let code = deltaCodes.get(c.name[i]);
          if (code === undefined) {
            const delta = this.store.stringAt(c.name[i]) ?? '';
            code = delta === 'Bookmark' ? -1 : codeOf(DELTA_TYPES, delta as never);
            deltaCodes.set(c.name[i], code);
          }
          if (code >= 0) this.deltas.push3(t, code, seq);
          if (flags & HAS_TOMBSTONE) this.tombstones.push3(t, 0, seq);
          break;
        }
        case ROW['fifo.pop']:
          this.depth.push3(t, c.n1[i], c.n2[i]);
          break;
        case ROW.distribute:
          if ((flags & OP_MASK) === UPDATE && (flags & CHANGE_MASK) === IDENTICAL_BITS) this.identical.push3(t, 0, seq);
          break;
        case ROW.notify: {
          let lane = handlerLanes.get(c.name[i]);
          if (!lane) {
            const handler = this.store.stringAt(c.name[i]) ?? '';
            this.handlerSet.add(handler);
            lane = this.handlerLane(handler);
            lane.reserve(notifyRows.get(c.name[i]) ?? 0);
            handlerLanes.set(c.name[i], lane);
          }
          const tombstone = (flags & HAS_TOMBSTONE) !== 0 && (flags & TOMBSTONE) !== 0;
          lane.push3(t, rowNotifyKind(flags, tombstone), seq);
          if (tombstone) this.tombstones.push3(t, 1, seq);
          break;
        }
        case ROW['watch.event']: {
          let bookmark = bookmarks.get(c.name[i]);
          if (bookmark === undefined) bookmarks.set(c.name[i], (bookmark = this.store.stringAt(c.name[i]) === 'BOOKMARK'));
          if (bookmark) this.mark(t, MarkKind.Bookmark, seq);
          break;
        }
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

  /**
   * Room in the lanes the numerous rows go to (depth, deltas, identical updates) for rows `from`
   * … `to`, counted from the type column first, so that a snapshot's million rows grow each lane
   * once; and the notify rows per handler name (its lane reserves them when the rows reach it: the
   * lanes keep the order handlers first appear in).
   */
  private reserveRows(from: number, to: number): Map<number, number> {
    const notifies = new Map<number, number>();
    if (to - from < 1024) return notifies;
    const c = this.store.columns;
    let enqueues = 0;
    let pops = 0;
    let identical = 0;
    for (let i = from; i < to; i++) {
      const type = c.type[i];
      if (type === ROW['fifo.enqueue']) enqueues++;
      else if (type === ROW['fifo.pop']) pops++;
      else if (type === ROW.notify) notifies.set(c.name[i], (notifies.get(c.name[i]) ?? 0) + 1);
      else if (type === ROW.distribute && (c.flags[i] & OP_MASK) === UPDATE && (c.flags[i] & CHANGE_MASK) === IDENTICAL_BITS) identical++;
    }
    this.depth.reserve(enqueues + pops);
    this.deltas.reserve(enqueues);
    this.identical.reserve(identical);
    return notifies;
  }

  protected ingest(e: RecordedEvent, t: number): void {
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

  protected mark(t: number, kind: MarkKind, seq: number, duration = 0, reason = 0): number {
    return this.marks.push({ t, kind, seq, duration, reason });
  }

  protected handlerLane(name: string): PointLane {
    let lane = this.handlers.get(name);
    if (!lane) {
      lane = new PackedLane(pointSpec, 64);
      this.handlers.set(name, lane);
    }
    return lane;
  }
}
