import type { EventSink, TraceEvent } from '../format/events';

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
