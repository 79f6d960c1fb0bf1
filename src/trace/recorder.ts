/**
 * The bounded trace recorder: the one place engine events are kept. It is an EventSink, so the
 * engine, the fault injector and the consistency check all write into it without knowing it.
 *
 * Invariants:
 * - every stored event has a seq; seqs are 0,1,2,... in emission order and never reused, so a
 *   consumer that remembers the last seq it saw can ask for exactly what is new (since());
 * - at most `cap` events are held in memory; when full, the oldest ~10% leave at once: to the
 *   spill segment when the recorder has one and it has room (segments.ts; allEvents() reads them
 *   back), else they are dropped and the drop is itself recorded as a 'trace.dropped' event and
 *   counted in header().dropped, so a reader always sees that something is missing;
 * - unless the header says redacted:false, every event is redacted (redact.ts) before it is
 *   stored, so secrets never sit in memory, in a view or in an export.
 */
import type { EventSink, FieldChange, RecordedEvent, TraceEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { notifyLiteral, type TracePacker } from '../engine/sink';
import { mayChangeText, redactEvent, type RedactionContext } from './redact';
import { plainDiffJson } from './diffJson';
import type { SpillOverview } from '../format/spill';
import { readSegment, type SegmentFile, type SpillState } from './segments';
import { SpillOverviewBuilder } from './spillOverview';
import { EventWindow, packedLayout, type PackedLayout } from './eventWindow';
import type { Chunk, ChunkParts } from './eventChunk';
import type { TypedEvents } from './findings/types';
import { SummaryModel } from './summary';

export const TRACE_FORMAT = 'informer-trace/v1';
export const DEFAULT_TRACE_CAP = 200_000;
/** Below this the recorder could not hold an event and the drop marker that precedes it. */
export const MIN_TRACE_CAP = 2;

/** How many of the oldest events leave the memory window at once when it is full (a tenth, at least 2). */
export function evictionCount(cap: number, held: number): number {
  return Math.min(held, Math.max(2, Math.ceil(cap / 10)));
}

type BatchListener = (batch: RecordedEvent[]) => void;

/**
 * A consumer told of each recorded event without being handed an object (a live session's
 * batches, eventBatches.ts): it reads what is new packed (packedSince) when it wants to.
 */
export interface RecorderTap {
  /** One more event was recorded (its seq is nextSeq - 1), and counted in the summary. */
  recorded(): void;
  /** The events with seq below untilSeq are about to leave the window (spilled or dropped). */
  leaving(untilSeq: number): void;
}

/** Slots of TraceRecorder.lastPlain, by field. */
const [PLAIN_KEY, PLAIN_RV, PLAIN_OLD_RV, PLAIN_EVENT_TYPE, PLAIN_SOURCE, PLAIN_DELTA, PLAIN_CHANGE, PLAIN_HANDLER, PLAIN_OP] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

type TraceNotify = Extract<TraceEvent, { type: 'notify' }>;

const WATCH_EVENT = packedLayout('watch.event');
const RV = packedLayout('rv');
const ENQUEUE = packedLayout('fifo.enqueue');
const POP = packedLayout('fifo.pop');
const DISTRIBUTE = packedLayout('distribute');
const NOTIFY = packedLayout('notify');

export class TraceRecorder implements EventSink, TracePacker {
  private readonly head: Omit<TraceHeader, 'dropped'>;
  private readonly redaction: RedactionContext | undefined;
  private readonly buffer: EventWindow;
  private readonly listeners = new Set<BatchListener>();
  /** The tap, and the counts of the events recorded since tap() (from their fields, spilled or dropped ones too). */
  private tapped: { tap: RecorderTap; summary: SummaryModel } | undefined;
  private nextSeq = 0;
  private droppedCount = 0;
  private readonly spill: SegmentFile | undefined;
  private readonly overview = new SpillOverviewBuilder();

  /**
   * @param cap default 200 000 events (the header's own `cap` is overwritten with the effective
   * value). Values below MIN_TRACE_CAP are raised to it.
   * @param spill where the oldest events go when memory is full (default: nowhere, they are dropped).
   */
  constructor(header: Omit<TraceHeader, 'dropped'>, cap?: number, spill?: SegmentFile) {
    this.spill = spill;
    const effectiveCap = Math.max(MIN_TRACE_CAP, Math.floor(cap ?? header.cap ?? DEFAULT_TRACE_CAP));
    this.head = { ...header, cap: effectiveCap };
    this.buffer = new EventWindow(evictionCount(effectiveCap, effectiveCap));
    this.redaction = header.redacted === false ? undefined : { resource: header.resource };
  }

  get dropped(): number {
    return this.droppedCount;
  }

  /** Records a copy of e (at most one copy: a redacted one is already ours); e stays as it was. */
  emit(e: TraceEvent): void {
    this.record(e, false);
  }

  /**
   * Records e itself (EventSink.adopt: the caller hands it over and never touches it again): it
   * gets its seq in place, with no copy, unless redaction had to copy it.
   */
  adopt(e: TraceEvent): void {
    this.record(e, true);
  }

  private record(e: TraceEvent, owned: boolean): void {
    const marker = this.buffer.length >= this.head.cap ? this.evictOldest(e.t) : undefined;
    const clean = this.redaction ? redactEvent(e, this.redaction) : e;
    this.buffer.push(clean, owned || clean !== e);
    const seq = this.nextSeq++;
    const tp = this.tapped;
    if (tp) {
      tp.summary.add(clean, seq);
      tp.tap.recorded();
    }
    if (this.listeners.size === 0) return;
    let recorded: RecordedEvent;
    if (clean === e && !owned) recorded = { ...e, seq };
    else {
      recorded = clean as RecordedEvent;
      recorded.seq = seq;
    }
    this.announce(marker ? [marker, recorded] : [recorded]);
  }

  /** Calls every subscriber with this batch. */
  private announce(batch: RecordedEvent[]): void {
    for (const fn of this.listeners) {
      try {
        fn(batch);
      } catch {
        // A broken consumer must not break the engine (EventSink.emit must not throw).
      }
    }
  }

  /**
   * The chunk that takes the fields of a packed event of this layout (EventWindow.begin), after
   * making room; undefined when a packed event cannot be recorded now: a subscriber gets each
   * event as an object, so the caller makes it.
   */
  private begin(layout: PackedLayout, t: number): Chunk {
    this.packMarker = this.buffer.length >= this.head.cap ? this.evictOldest(t) : undefined;
    return this.buffer.begin(layout.code);
  }

  /** The drop marker that making room for the packed event being written recorded (begin). */
  private packMarker: RecordedEvent | undefined = undefined;

  /** The last string each PLAIN_* slot found plain (a handler's name, an op, a key come again and again). */
  private readonly lastPlain: (string | undefined)[] = new Array<string | undefined>(9).fill(undefined);

  /**
   * Whether redaction leaves s as it is (always without redaction; exact, like redactEvent's
   * check); slot: the field's place in the cache of the last plain string.
   */
  private plain(slot: number, s: string | undefined): boolean {
    if (this.redaction === undefined || s === undefined || s === this.lastPlain[slot]) return true;
    if (mayChangeText(s)) return false;
    this.lastPlain[slot] = s;
    return true;
  }

  /** Records the event begun on c at t; false when a field did not fit (nothing recorded). */
  private commit(c: Chunk, t: number): boolean {
    if (this.buffer.end(c, t)) {
      this.nextSeq++;
      return true;
    }
    // The caller records the event as an object after the marker, which its subscribers get now.
    if (this.packMarker !== undefined && this.listeners.size > 0) this.announce([this.packMarker]);
    return false;
  }

  /**
   * Hands a packed event to the subscribers as the object the engine's literal would be (the
   * same fields in the same order, its seq last), after the drop marker its recording made, if any.
   */
  private announcePacked(e: TraceEvent): true {
    (e as RecordedEvent).seq = this.nextSeq - 1;
    this.announce(this.packMarker ? [this.packMarker, e as RecordedEvent] : [e as RecordedEvent]);
    return true;
  }

  packWatchEvent(t: number, eventType: string, key: string | undefined, rv: string, accepted: boolean): boolean {
    if (!this.plain(PLAIN_EVENT_TYPE, eventType) || !this.plain(PLAIN_KEY, key) || !this.plain(PLAIN_RV, rv)) return false;
    const c = this.begin(WATCH_EVENT, t);
    const at = WATCH_EVENT.at;
    c.str(at.eventType, eventType);
    c.str(at.key, key);
    c.str(at.rv, rv);
    c.bool(at.accepted, accepted);
    if (!this.commit(c, t)) return false;
    const tp = this.tapped;
    if (tp) {
      tp.summary.watchEvent(t, key, eventType, accepted, undefined);
      tp.tap.recorded();
    }
    return this.listeners.size === 0 || this.announcePacked({ t, type: 'watch.event', eventType, key, rv, accepted });
  }

  packRv(t: number, rv: string, source: string): boolean {
    if (!this.plain(PLAIN_RV, rv) || !this.plain(PLAIN_SOURCE, source)) return false;
    const c = this.begin(RV, t);
    c.str(RV.at.rv, rv);
    c.str(RV.at.source, source);
    if (!this.commit(c, t)) return false;
    const tp = this.tapped;
    if (tp) {
      tp.summary.rv(rv);
      tp.tap.recorded();
    }
    return this.listeners.size === 0 || this.announcePacked({ t, type: 'rv', rv, source } as TraceEvent);
  }

  packEnqueue(t: number, key: string, delta: string, rv: string, depthKeys: number, depthDeltas: number): boolean {
    if (!this.plain(PLAIN_KEY, key) || !this.plain(PLAIN_DELTA, delta) || !this.plain(PLAIN_RV, rv)) return false;
    const c = this.begin(ENQUEUE, t);
    const at = ENQUEUE.at;
    c.str(at.key, key);
    c.str(at.delta, delta);
    c.str(at.rv, rv);
    c.num(at.depthKeys, depthKeys);
    c.num(at.depthDeltas, depthDeltas);
    if (!this.commit(c, t)) return false;
    const tp = this.tapped;
    if (tp) {
      tp.summary.enqueue(t, this.nextSeq - 1, key, delta, undefined, rv, depthKeys, depthDeltas);
      tp.tap.recorded();
    }
    return this.listeners.size === 0 || this.announcePacked({ t, type: 'fifo.enqueue', key, delta, rv, depthKeys, depthDeltas } as TraceEvent);
  }

  packPop(t: number, key: string, deltas: readonly string[], isInInitialList: boolean, depthKeys: number, depthDeltas: number): boolean {
    if (!this.plain(PLAIN_KEY, key)) return false;
    for (let i = 0; i < deltas.length; i++) if (!this.plain(PLAIN_DELTA, deltas[i])) return false;
    const c = this.begin(POP, t);
    const at = POP.at;
    c.str(at.key, key);
    c.other(at.deltas, deltas);
    c.bool(at.isInInitialList, isInInitialList);
    c.num(at.depthKeys, depthKeys);
    c.num(at.depthDeltas, depthDeltas);
    if (!this.commit(c, t)) return false;
    const tp = this.tapped;
    if (tp) {
      tp.summary.pop(depthKeys, depthDeltas);
      tp.tap.recorded();
    }
    return this.listeners.size === 0 || this.announcePacked({ t, type: 'fifo.pop', key, deltas, isInInitialList, depthKeys, depthDeltas } as TraceEvent);
  }

  packDistribute(
    t: number, op: string, key: string, isSync: boolean, delivered: number, skipped: number,
    change: string | undefined, diff: FieldChange[] | undefined, oldRv: string | undefined, rv: string,
  ): boolean {
    if (!this.plain(PLAIN_OP, op) || !this.plain(PLAIN_KEY, key) || !this.plain(PLAIN_CHANGE, change) || !this.plain(PLAIN_OLD_RV, oldRv) || !this.plain(PLAIN_RV, rv)) return false;
    // The diff's JSON text, checked for redaction on the way (null: the chunk stringifies it).
    let diffText: string | null | undefined = null;
    if (diff !== undefined && this.redaction !== undefined) {
      diffText = plainDiffJson(diff, this.redaction);
      if (diffText === undefined) return false;
    }
    const c = this.begin(DISTRIBUTE, t);
    const at = DISTRIBUTE.at;
    c.str(at.op, op);
    c.str(at.key, key);
    c.bool(at.isSync, isSync);
    c.num(at.delivered, delivered);
    c.num(at.skipped, skipped);
    c.str(at.change, change);
    if (diffText !== null) c.json(at.diff, diffText);
    else c.other(at.diff, diff);
    c.str(at.oldRv, oldRv);
    c.str(at.rv, rv);
    if (!this.commit(c, t)) return false;
    const tp = this.tapped;
    if (tp) {
      tp.summary.distribute(op, op === 'update' ? change : undefined);
      tp.tap.recorded();
    }
    if (this.listeners.size === 0) return true;
    const e =
      op === 'update'
        ? { t, type: 'distribute', op, key, isSync, delivered, skipped, change, diff, oldRv, rv }
        : { t, type: 'distribute', op, key, isSync, delivered, skipped, rv };
    return this.announcePacked(e as TraceEvent);
  }

  packNotify(
    t: number, handler: string, key: string, pending: number, op: TraceNotify['op'], rv: string,
    oldRv: string | undefined, isSync: boolean, initialList: boolean | undefined, tombstone: boolean | undefined, change: TraceNotify['change'],
  ): boolean {
    if (!this.plain(PLAIN_HANDLER, handler) || !this.plain(PLAIN_KEY, key) || !this.plain(PLAIN_OP, op) || !this.plain(PLAIN_RV, rv) || !this.plain(PLAIN_OLD_RV, oldRv) || !this.plain(PLAIN_CHANGE, change)) return false;
    const c = this.begin(NOTIFY, t);
    const at = NOTIFY.at;
    c.str(at.handler, handler);
    c.str(at.op, op);
    c.str(at.key, key);
    c.str(at.rv, rv);
    c.str(at.oldRv, oldRv);
    c.bool(at.isSync, isSync);
    c.bool(at.initialList, initialList);
    c.bool(at.tombstone, tombstone);
    c.str(at.change, change);
    c.num(at.pending, pending);
    if (!this.commit(c, t)) return false;
    const tp = this.tapped;
    if (tp) {
      tp.summary.notify(t, this.nextSeq - 1, key, rv, op, tombstone);
      tp.tap.recorded();
    }
    return this.listeners.size === 0 || this.announcePacked(notifyLiteral(t, handler, key, pending, op, rv, oldRv, isSync, initialList, tombstone, change));
  }

  /** Tells tap of every event recorded from now on, and counts them in tapSummary() (one tap per recorder). */
  tap(tap: RecorderTap): void {
    if (this.tapped) throw new Error('TraceRecorder.tap: the recorder has a tap already');
    this.tapped = { tap, summary: new SummaryModel() };
  }

  /** The counts of the events recorded since tap() (undefined without a tap). */
  tapSummary(): SummaryModel | undefined {
    return this.tapped?.summary;
  }

  /**
   * The held events with seq ≥ seq, copied packed into a chunk of their own (EventWindow.copyFrom),
   * as their parts; undefined when there are none.
   */
  packedSince(seq: number): ChunkParts | undefined {
    const from = Math.max(0, Math.floor(seq) - this.buffer.firstSeq);
    return this.buffer.copyFrom(from)?.parts();
  }

  header(): TraceHeader {
    return { ...this.head, dropped: this.droppedCount };
  }

  /** The events in memory, made into objects (a copy: O(held events) each call). */
  events(): readonly RecordedEvent[] {
    return this.buffer.slice();
  }

  /** The held event at this index (0 = the oldest), made into an object. */
  at(i: number): RecordedEvent {
    return this.buffer.at(i);
  }

  /** How many events are in memory. */
  get held(): number {
    return this.buffer.length;
  }

  /** The seq of the oldest event in memory (the next seq when none is). */
  get firstHeldSeq(): number {
    return this.buffer.length > 0 ? this.buffer.firstSeq : this.nextSeq;
  }

  /**
   * The events in memory by type, made into objects only for the types read (computeFindings
   * takes it). Valid until the next event is recorded.
   */
  eventsByType(): TypedEvents {
    return this.buffer.byType();
  }

  /** The spill segment's state; undefined when the recorder has none. */
  spillState(): SpillState | undefined {
    return this.spill?.state();
  }

  /** What the timeline draws of the spilled events without reading them (built as they are spilled). */
  spillOverview(): SpillOverview | undefined {
    return this.spill ? this.overview.overview() : undefined;
  }

  /** Every event still recorded, the spilled ones (read back from the segment) and those in memory, in seq order. */
  async *allEvents(): AsyncGenerator<RecordedEvent> {
    const held = this.buffer.slice();
    if (this.spill) yield* readSegment(this.spill.path, held.length > 0 ? held[0].seq : this.nextSeq);
    yield* held;
  }

  /** Events with seq > the given one, in order. Seqs of held events are contiguous. */
  since(seq: number): RecordedEvent[] {
    if (this.buffer.length === 0) return [];
    const from = Math.max(0, Math.floor(seq) + 1 - this.buffer.firstSeq);
    return this.buffer.slice(from);
  }

  /**
   * fn is called synchronously on every emit with the new events: [event], or
   * [trace.dropped, event] when that emit made room by dropping. Returns the unsubscribe function.
   */
  subscribe(fn: BatchListener): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /**
   * Makes room for the oldest tenth (at least 2, so a marker and the new event fit): spilled when
   * the segment takes them (no marker), else dropped and recorded (the marker is returned).
   */
  private evictOldest(t: number): RecordedEvent | undefined {
    const count = evictionCount(this.head.cap, this.buffer.length);
    this.tapped?.tap.leaving(this.buffer.firstSeq + count);
    if (this.spill) {
      const oldest = this.buffer.slice(0, count);
      if (this.spill.tryAppend(oldest)) {
        this.buffer.dropFirst(count);
        this.overview.add(this.spill.lastAppended!, oldest);
        return undefined;
      }
    }
    this.buffer.dropFirst(count);
    this.droppedCount += count;
    const marker = { type: 'trace.dropped', t, count } as RecordedEvent;
    this.buffer.push(marker, true);
    marker.seq = this.nextSeq++;
    const tp = this.tapped;
    if (tp) {
      tp.summary.add(marker, marker.seq);
      tp.tap.recorded();
    }
    return marker;
  }
}
