/**
 * What the timeline knows of the events a recorder spilled to disk (src/trace/segments.ts)
 * without reading them back: the segment's chunk index and an overview built once per chunk as
 * it is written.
 *
 * - `exact`: the spilled events that make the timeline's sparse rows (reflector states, LISTs,
 *   watches, relists, resyncs, bookmarks, faults, checks, synced, handlers added, drops), whole,
 *   so every relist of a long run is on the axis however far back it lies;
 * - `dense`: the numerous per-object events (FIFO enqueues and pops, distributes, notifications)
 *   as counts: one row per chunk bin and per combination of the fields the lanes read, at the
 *   time of the first event it counts, with the FIFO depth as the bin's maximum.
 */
import type { RecordedEvent } from './events';

/** One append to a segment file: a run of events with consecutive seqs, where its bytes lie. */
export interface SegmentChunk {
  firstSeq: number;
  lastSeq: number;
  /** Smallest and largest event time in the chunk. */
  t0: number;
  t1: number;
  count: number;
  /** Byte offset and length of its lines in the segment file. */
  offset: number;
  bytes: number;
}

/** Counted per-object events of one chunk bin that share every field a lane reads. */
export interface DenseRow {
  type: 'fifo.enqueue' | 'fifo.pop' | 'distribute' | 'notify';
  /** Time of the first event counted. */
  t: number;
  count: number;
  delta?: string;
  tombstone?: boolean;
  op?: string;
  change?: string;
  isSync?: boolean;
  handler?: string;
  /** The largest FIFO depth the counted events saw (fifo.enqueue, fifo.pop). */
  depthKeys?: number;
  depthDeltas?: number;
}

export interface SpillOverview {
  chunks: SegmentChunk[];
  exact: RecordedEvent[];
  dense: DenseRow[];
}
