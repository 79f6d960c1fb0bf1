/**
 * An object's history: every event of the trace that names its key (watch events, FIFO entries
 * and pops, distributions with their diffs, each handler's notification, cache checks that found
 * it stale), in trace order. Pure: the details pane shows it under the selected event.
 */
import type { RecordedEvent } from '../../src/format/events';
import { describeEvent, formatTime } from './details';

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

export function objectHistory(events: readonly RecordedEvent[], key: string): { rows: HistoryRow[]; total: number } {
  const all = events.filter((e) => mentions(e, key));
  const rows = all.slice(-MAX_HISTORY_ROWS).map((e) => ({ seq: e.seq, time: formatTime(e.t), text: describeEvent(e) }));
  return { rows, total: all.length };
}
