import type { EventSink } from '../format/events';

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
