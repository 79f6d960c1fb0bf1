import type { EventSink, FieldChange, TraceEvent } from '../format/events';

/** The sink of an engine run nobody records. */
export const nullSink: EventSink = { emit: () => undefined };

/**
 * Whether events sent to this sink are kept by anyone. The hot path (per watch event and per
 * notification) builds its trace events only when they are: nothing can observe the events a
 * null sink drops, so skipping them changes nothing else.
 */
export function isRecorded(sink: EventSink | undefined): boolean {
  return sink !== undefined && sink !== nullSink;
}

/**
 * The function the engine emits through. Every engine event is a literal built for that one call
 * and not touched after it, so a sink that can adopt events (EventSink.adopt) gets them handed
 * over, without a copy; any other sink gets emit.
 */
export function emitterOf(sink: EventSink | undefined): (e: TraceEvent) => void {
  const s = sink ?? nullSink;
  if (typeof s.adopt === 'function') return (e) => s.adopt!(e);
  return (e) => s.emit(e);
}

/** One engine event to the sink, handed over (adopt) when the sink can take it so (see emitterOf). */
export function handOver(sink: EventSink, e: TraceEvent): void {
  if (sink.adopt) sink.adopt(e);
  else sink.emit(e);
}

type EventOf<T extends TraceEvent['type']> = Extract<TraceEvent, { type: T }>;

/**
 * Optional, beside EventSink: the engine's most frequent events (per watch event and per
 * notification) handed over as their fields, without the object. Each method records exactly
 * what adopting the event literal it names would (fields in its type's order; undefined: the
 * field is absent) and returns true, or records nothing and returns false: the caller then emits
 * the object as usual (a value redaction may change, a value of another type, …). A subscriber of
 * the sink still gets each event as an object: the one the literal would be.
 */
export interface TracePacker {
  packWatchEvent(t: number, eventType: string, key: string | undefined, rv: string, accepted: boolean): boolean;
  packRv(t: number, rv: string, source: EventOf<'rv'>['source']): boolean;
  packEnqueue(t: number, key: string, delta: EventOf<'fifo.enqueue'>['delta'], rv: string, depthKeys: number, depthDeltas: number): boolean;
  packPop(t: number, key: string, deltas: readonly EventOf<'fifo.pop'>['deltas'][number][], isInInitialList: boolean, depthKeys: number, depthDeltas: number): boolean;
  packDistribute(
    t: number, op: EventOf<'distribute'>['op'], key: string, isSync: boolean, delivered: number, skipped: number,
    change: EventOf<'distribute'>['change'], diff: FieldChange[] | undefined, oldRv: string | undefined, rv: string,
  ): boolean;
  packNotify(
    t: number, handler: string, key: string, pending: number, op: EventOf<'notify'>['op'], rv: string,
    oldRv: string | undefined, isSync: boolean, initialList: boolean | undefined, tombstone: boolean | undefined, change: EventOf<'notify'>['change'],
  ): boolean;
}

/** The sink's TracePacker when it has one (a sink that packs has packNotify and the rest). */
export function packerOf(sink: EventSink | undefined): TracePacker | undefined {
  const s = sink as (EventSink & Partial<TracePacker>) | undefined;
  return s !== undefined && typeof s.packNotify === 'function' ? (s as EventSink & TracePacker) : undefined;
}

/**
 * The notify event as the engine emits it, one literal per shape (no spreads, so each shape's
 * events share one hidden class): an update's, an add's with the initial-list flag (profiles that
 * have it), a tombstone's delete, and the plain add or delete. A TracePacker hands the same object
 * to its subscribers.
 */
export function notifyLiteral(
  t: number, handler: string, key: string, pending: number, op: EventOf<'notify'>['op'], rv: string,
  oldRv: string | undefined, isSync: boolean, initialList: boolean | undefined, tombstone: boolean | undefined, change: EventOf<'notify'>['change'],
): TraceEvent {
  return (
    op === 'update'
      ? { t, type: 'notify', handler, key, pending, op, rv, oldRv, isSync, change }
      : initialList !== undefined
        ? { t, type: 'notify', handler, key, pending, op, rv, isSync, initialList }
        : tombstone
          ? { t, type: 'notify', handler, key, pending, op, rv, isSync, tombstone }
          : { t, type: 'notify', handler, key, pending, op, rv, isSync }
  ) as TraceEvent;
}
