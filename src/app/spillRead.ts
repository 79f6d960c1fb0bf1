/**
 * Answers to the two reads of a session's spill segment: the events of a time range as the
 * timeline's columns (what the webview takes), and the diff of one spilled event (a details pane).
 * They run where the segment is read: in the session's engine worker while it runs, in a spill
 * reader worker once it has ended (workerSession.ts readSpillInWorker), never on the extension
 * host's thread, where reading, parsing and encoding 100,000 events takes about a second. The answer's column buffers are transferred, not copied (spillTransfer).
 */
import type { FieldChange, RecordedEvent } from '../format/events';
import { allocateColumns, COLUMN_NAMES, diffForSeq, encodeBatch, encodeRows, StringTable, type ColumnBatch, type ColumnName } from '../protocol/eventColumns';
import { PARSE_SLICE_MS, readSpilledRange } from '../trace/segmentRange';
import type { SpillState } from '../trace/segments';

/** A read of the spill segment: the chunks meeting [t0, t1] (at most maxEvents), or the diff of the event with that seq. */
export type SpillCall = { op: 'spilledRange'; t0: number; t1: number; maxEvents?: number } | { op: 'spilledDiff'; seq: number };

export interface SpilledColumns {
  /** The events read, in seq order, as the timeline's columns. */
  columns: ColumnBatch;
  /** The time span of the chunks read ([0, 0] when none). */
  t0: number;
  t1: number;
  /** Every chunk the range touches was read. */
  complete: boolean;
}

export interface SpilledDiff {
  /** The changed fields the details pane shows; absent when the event has none or is not on disk. */
  diff?: FieldChange[];
}

export type SpillAnswer = SpilledColumns | SpilledDiff;

/** Reads the segment described by `state` on this thread (see the file comment for where that is). */
export async function answerSpillCall(state: SpillState | undefined, c: SpillCall): Promise<SpillAnswer> {
  const chunks = state?.chunks ?? [];
  if (c.op === 'spilledRange') {
    if (!state || chunks.length === 0) return { columns: encodeBatch([]), t0: 0, t1: 0, complete: true };
    const r = await readSpilledRange(state, c.t0, c.t1, c.maxEvents);
    return { columns: await encodeInSlices(r.events), t0: r.t0, t1: r.t1, complete: r.complete };
  }
  const chunk = chunks.find((k) => k.firstSeq <= c.seq && c.seq <= k.lastSeq);
  if (!state || !chunk) return {};
  const r = await readSpilledRange(state, chunk.t0, chunk.t1, Number.POSITIVE_INFINITY);
  const diff = diffForSeq(r.events, c.seq);
  return diff ? { diff } : {};
}

/**
 * encodeBatch, the event loop getting a turn whenever a slice of rows took longer than sliceMs:
 * in a running session's engine worker the informer goes on between the slices.
 */
export async function encodeInSlices(events: readonly RecordedEvent[], sliceMs = PARSE_SLICE_MS): Promise<ColumnBatch> {
  const ROWS = 1024;
  const cols = allocateColumns(events.length);
  const strings = new StringTable();
  const extras: RecordedEvent[] = [];
  let sliceStart = performance.now();
  for (let from = 0; from < events.length; from += ROWS) {
    encodeRows(events, cols, strings, extras, from, Math.min(events.length, from + ROWS));
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) columns[name] = cols[name].buffer as ArrayBuffer;
  return { count: events.length, columns, strings: strings.strings, extras };
}

/** The buffers an answer hands over (postMessage's transfer list): the columns', each its own ArrayBuffer. */
export function spillTransfer(a: SpillAnswer | undefined): ArrayBuffer[] {
  return a && 'columns' in a ? Object.values(a.columns.columns) : [];
}

/** An answer as the range read's (the reply to a 'spilledRange' call), or an error when it is not one. */
export function asColumns(a: unknown): SpilledColumns {
  if (typeof a === 'object' && a !== null && 'columns' in a) return a as SpilledColumns;
  throw new Error('the spill read answered something else than columns');
}
