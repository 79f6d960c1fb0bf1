import type { EventSink } from '../format/events';

/** The sink of an engine run nobody records. */
export const nullSink: EventSink = { emit: () => undefined };
