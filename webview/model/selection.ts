/**
 * Keyboard selection over the timeline: one cursor (lane + row). Left/Right step through the
 * rows of the focused lane in time order, Up/Down move to the neighbouring lane and land on the
 * row nearest in time, Home/End jump to the ends. The cursor names an event by seq, so it
 * survives new events arriving (rows only ever get appended).
 */
import { nearestRow } from './binning';

/** A lane whose rows stand for events (render/tracks.ts builds them from the track registry). */
export interface NavLane {
  id: string;
  label: string;
  times: ArrayLike<number>;
  seqs: ArrayLike<number>;
  length: number;
}

export type NavKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown' | 'Home' | 'End';

export interface Cursor {
  lane: number;
  /** Row in the lane, -1 when the lane is empty or nothing is selected yet. */
  row: number;
}

export function isNavKey(key: string): key is NavKey {
  return key === 'ArrowLeft' || key === 'ArrowRight' || key === 'ArrowUp' || key === 'ArrowDown' || key === 'Home' || key === 'End';
}

/** Where the cursor goes for a key. Pure: the caller stores the result. */
export function moveCursor(lanes: readonly NavLane[], c: Cursor, key: NavKey): Cursor {
  if (lanes.length === 0) return { lane: 0, row: -1 };
  const lane = Math.min(Math.max(c.lane, 0), lanes.length - 1);
  const current = lanes[lane];
  switch (key) {
    case 'ArrowLeft':
      if (current.length === 0) return { lane, row: -1 };
      return { lane, row: c.row < 0 ? current.length - 1 : Math.max(0, c.row - 1) };
    case 'ArrowRight':
      if (current.length === 0) return { lane, row: -1 };
      return { lane, row: c.row < 0 ? 0 : Math.min(current.length - 1, c.row + 1) };
    case 'Home':
      return { lane, row: current.length > 0 ? 0 : -1 };
    case 'End':
      return { lane, row: current.length - 1 };
    case 'ArrowUp':
    case 'ArrowDown': {
      const step = key === 'ArrowUp' ? -1 : 1;
      const target = lane + step;
      if (target < 0 || target >= lanes.length) return { lane, row: c.row };
      const t = c.row >= 0 && c.row < current.length ? current.times[c.row] : Number.NaN;
      const next = lanes[target];
      if (next.length === 0) return { lane: target, row: -1 };
      const row = Number.isNaN(t) ? next.length - 1 : nearestRow(next.times, next.length, t, Number.POSITIVE_INFINITY);
      return { lane: target, row };
    }
  }
}

/** The seq the cursor points at, or undefined. */
export function cursorSeq(lanes: readonly NavLane[], c: Cursor): number | undefined {
  const lane = lanes[c.lane];
  if (!lane || c.row < 0 || c.row >= lane.length) return undefined;
  return lane.seqs[c.row];
}

/** Finds the lane and row that stand for a seq (e.g. after a snapshot restored a selection). */
export function cursorForSeq(lanes: readonly NavLane[], seq: number): Cursor | undefined {
  for (let lane = 0; lane < lanes.length; lane++) {
    const l = lanes[lane];
    for (let row = l.length - 1; row >= 0; row--) {
      if (l.seqs[row] === seq) return { lane, row };
      if (l.seqs[row] < seq) break;
    }
  }
  return undefined;
}
