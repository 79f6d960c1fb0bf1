/**
 * Reads a time range of a spill segment back, by its chunk index (SpillState.chunks): only the
 * bytes of the chunks the range touches are read, whole chunks, so a chunk that straddles the
 * range's edge comes entirely (the timeline's lanes then run on past the edge as they do in
 * memory). At most `maxEvents` are read: the chunks nearest the range's middle first, the result
 * says whether it covers the whole range. Events the recorder dropped (past the disk bound) were
 * never written, so no chunk has them: the range simply has a gap there, which the trace's
 * 'trace.dropped' event names.
 */
import { open } from 'node:fs/promises';
import type { RecordedEvent } from '../format/events';
import type { SegmentChunk } from '../format/spill';
import type { SpillState } from './segments';

/** The most events one range read returns (the timeline asks again when the user zooms in further). */
export const MAX_RANGE_EVENTS = 200_000;
/** How long the parsing runs before the event loop gets a turn (it gets one after each chunk as well). */
export const PARSE_SLICE_MS = 8;

export interface SpilledRange {
  /** The events read, in seq order. */
  events: RecordedEvent[];
  /** The time span of the chunks read ([0, 0] when none). */
  t0: number;
  t1: number;
  /** Every chunk the range touches was read. */
  complete: boolean;
}

/** The chunks whose time span meets [t0, t1]: nearest the middle first until maxEvents, returned in seq order. */
export function chunksFor(chunks: readonly SegmentChunk[], t0: number, t1: number, maxEvents: number): { chunks: SegmentChunk[]; complete: boolean } {
  const touched = chunks.filter((c) => c.t1 >= t0 && c.t0 <= t1);
  const mid = (t0 + t1) / 2;
  const distance = (c: SegmentChunk) => (mid < c.t0 ? c.t0 - mid : mid > c.t1 ? mid - c.t1 : 0);
  const chosen: SegmentChunk[] = [];
  let total = 0;
  for (const c of [...touched].sort((a, b) => distance(a) - distance(b) || a.firstSeq - b.firstSeq)) {
    if (total + c.count > maxEvents && chosen.length > 0) break;
    chosen.push(c);
    total += c.count;
  }
  // Only a contiguous run keeps the lanes whole: the chosen chunks are widened to the run between the outermost.
  chosen.sort((a, b) => a.firstSeq - b.firstSeq);
  const run = chosen.length === 0 ? [] : touched.filter((c) => c.firstSeq >= chosen[0].firstSeq && c.firstSeq <= chosen[chosen.length - 1].firstSeq);
  return { chunks: run, complete: run.length === touched.length };
}

/**
 * The spilled events of the chunks meeting [t0, t1] (see the file comment). A line that does not
 * parse, or an event that is not where the index says, ends the read with one error naming the
 * file: a segment is only ever written by SegmentFile, so either means the file was damaged.
 */
export async function readSpilledRange(state: SpillState, t0: number, t1: number, maxEvents = MAX_RANGE_EVENTS, sliceMs = PARSE_SLICE_MS): Promise<SpilledRange> {
  const { chunks, complete } = chunksFor(state.chunks, t0, t1, maxEvents);
  if (chunks.length === 0) return { events: [], t0: 0, t1: 0, complete };
  const first = chunks[0];
  const last = chunks[chunks.length - 1];
  const start = first.offset;
  const length = last.offset + last.bytes - start;
  const buffer = Buffer.alloc(length);
  const file = await open(state.path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new Error(e.code === 'ENOENT' ? `the spill segment ${state.path} is gone (deleted while the session still lists it)` : `the spill segment ${state.path} cannot be read: ${e.message.split('\n')[0]}`);
  });
  try {
    let read = 0;
    while (read < length) {
      const { bytesRead } = await file.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) throw new Error(`the spill segment ${state.path} is shorter than its index`);
      read += bytesRead;
    }
  } finally {
    await file.close();
  }
  const events: RecordedEvent[] = [];
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  let line = 0;
  let sliceStart = performance.now();
  for (const c of chunks) {
    // The thread may be shared (a worker's engine, or the caller's): the event loop gets a turn after each chunk and each slice.
    const text = buffer.toString('utf8', c.offset - start, c.offset - start + c.bytes);
    let from = 0;
    while (from < text.length) {
      let end = text.indexOf('\n', from);
      if (end < 0) end = text.length;
      line++;
      if (end > from) {
        try {
          events.push(JSON.parse(text.slice(from, end)) as RecordedEvent);
        } catch {
          throw new Error(`the spill segment ${state.path} is damaged (line ${line} of the range read)`);
        }
      }
      from = end + 1;
      if ((line & 255) === 0 && performance.now() - sliceStart > sliceMs) {
        await turn();
        sliceStart = performance.now();
      }
    }
    await turn();
    sliceStart = performance.now();
  }
  const expected = chunks.reduce((n, c) => n + c.count, 0);
  if (events.length !== expected || events[0].seq !== first.firstSeq || events[events.length - 1].seq !== last.lastSeq) {
    throw new Error(`the spill segment ${state.path} does not match its index`);
  }
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const c of chunks) {
    lo = Math.min(lo, c.t0);
    hi = Math.max(hi, c.t1);
  }
  return { events, t0: lo, t1: hi, complete };
}
