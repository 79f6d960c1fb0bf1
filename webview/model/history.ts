/**
 * An object's history: every event of the trace that names its key (watch events, FIFO entries
 * and pops, distributions with their diffs, each handler's notification, cache checks that found
 * it stale), in trace order. Pure: the details pane shows it under the selected event.
 */
import type { RecordedEvent } from '../../src/format/events';
import { describeEvent, formatTime } from './details';
import type { TimelineData } from './timelineData';

/** Rows shown at most (the newest are kept: the recent history matters most). */
export const MAX_HISTORY_ROWS = 300;

export interface HistoryRow {
  seq: number;
  time: string;
  text: string;
}

/** The key an event is about, if any. */
export function keyOf(e: RecordedEvent): string | undefined {
  const k = (e as { key?: unknown }).key;
  return typeof k === 'string' && k !== '' ? k : undefined;
}

function mentions(e: RecordedEvent, key: string): boolean {
  if (keyOf(e) === key) return true;
  if (e.type === 'consistency.check') {
    return (Array.isArray(e.missing) && e.missing.includes(key)) || (Array.isArray(e.extra) && e.extra.includes(key)) || (Array.isArray(e.rvMismatch) && e.rvMismatch.some((m) => m?.key === key));
  }
  return false;
}

/**
 * The events that name the key, newest MAX_HISTORY_ROWS of them. Rows are matched by key
 * reference in the columns; only events carried whole are looked at as objects.
 */
export function objectHistory(data: TimelineData, key: string): { rows: HistoryRow[]; total: number } {
  const store = data.events;
  const ref = store.keyRef(key);
  const hits: number[] = [];
  for (let i = 0; i < store.length; i++) {
    if (store.isExtra(i) ? mentions(store.event(i), key) : ref !== 0 && store.keyRefAt(i) === ref) hits.push(i);
  }
  const rows = hits.slice(-MAX_HISTORY_ROWS).map((i) => {
    const e = store.event(i);
    return { seq: e.seq, time: formatTime(e.t), text: describeEvent(e) };
  });
  return { rows, total: hits.length };
}
