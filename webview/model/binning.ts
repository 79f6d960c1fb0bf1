/**
 * Reduces a lane to what one pixel column (or time bucket) can show: counts per category,
 * the maximum of a level series, the nearest row to a pointer. Work is proportional to the rows
 * inside the window plus the number of bins, never to the whole trace.
 */
import { lowerBound } from './packed';

export interface BinWindow {
  t0: number;
  t1: number;
  bins: number;
}

/** Index of the bin that holds time t, or -1 outside [t0, t1]. */
export function binOf(w: BinWindow, t: number): number {
  if (t < w.t0 || t > w.t1 || w.bins <= 0) return -1;
  if (w.t1 === w.t0) return 0;
  return Math.min(w.bins - 1, Math.floor(((t - w.t0) / (w.t1 - w.t0)) * w.bins));
}

/**
 * Counts rows per bin and category: result[bin * categories + code]. Rows whose code is
 * >= categories are ignored (they belong to another series).
 */
export function binCounts(
  times: ArrayLike<number>,
  codes: ArrayLike<number>,
  n: number,
  w: BinWindow,
  categories: number,
): Uint32Array {
  const out = new Uint32Array(Math.max(0, w.bins) * categories);
  if (w.bins <= 0) return out;
  for (let i = lowerBound(times, n, w.t0); i < n && times[i] <= w.t1; i++) {
    const code = codes[i];
    if (code >= categories) continue;
    out[binOf(w, times[i]) * categories + code]++;
  }
  return out;
}

/**
 * For a step series (value holds from its time until the next row), the maximum value each bin
 * reaches. A bin with no row carries the value in force at its start, so the area never shows
 * gaps; bins before the first row are NaN (nothing known yet).
 */
export function binStepMax(times: ArrayLike<number>, values: ArrayLike<number>, n: number, w: BinWindow): Float64Array {
  const out = new Float64Array(Math.max(0, w.bins)).fill(Number.NaN);
  if (w.bins <= 0 || n === 0) return out;
  const first = lowerBound(times, n, w.t0);
  let current = first > 0 ? values[first - 1] : Number.NaN;
  let i = first;
  for (let b = 0; b < w.bins; b++) {
    const binEnd = w.t0 + ((b + 1) * (w.t1 - w.t0)) / w.bins;
    let max = current;
    while (i < n && (times[i] < binEnd || (b === w.bins - 1 && times[i] <= w.t1))) {
      current = values[i];
      max = Number.isNaN(max) ? current : Math.max(max, current);
      i++;
    }
    out[b] = max;
  }
  return out;
}

/** The row whose time is closest to t, within maxDistance; -1 when none. Ties go to the later row. */
export function nearestRow(times: ArrayLike<number>, n: number, t: number, maxDistance: number): number {
  if (n === 0) return -1;
  const i = lowerBound(times, n, t);
  let best = -1;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const j of [i - 1, i]) {
    if (j < 0 || j >= n) continue;
    const d = Math.abs(times[j] - t);
    if (d < bestDistance || (d === bestDistance && j > best)) {
      best = j;
      bestDistance = d;
    }
  }
  return bestDistance <= maxDistance ? best : -1;
}
