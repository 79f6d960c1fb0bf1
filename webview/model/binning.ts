/**
 * Reduces a lane to what one pixel column (or time bucket) can show: counts per category,
 * the maximum of a level series, the nearest row to a pointer. Work is proportional to the rows
 * inside the window plus the number of bins, never to the whole trace.
 */
import { lowerBound, upperBound } from './packed';

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
 * >= categories are ignored (they belong to another series). With `weights`, a row counts as
 * its weight (an overview row standing for several events), added into `into` when given.
 */
export function binCounts(
  times: ArrayLike<number>,
  codes: ArrayLike<number>,
  n: number,
  w: BinWindow,
  categories: number,
  weights?: ArrayLike<number>,
  into?: Uint32Array,
): Uint32Array {
  const out = into ?? new Uint32Array(Math.max(0, w.bins) * categories);
  if (w.bins <= 0) return out;
  // binOf inlined (same arithmetic, so a row on a bin edge lands where binOf puts it): this loop
  // visits every visible row once per frame, and a whole-trace view has hundreds of thousands.
  const { t0, t1, bins } = w;
  const span = t1 - t0;
  const last = bins - 1;
  for (let i = lowerBound(times, n, t0); i < n; i++) {
    const t = times[i];
    if (t > t1) break;
    const code = codes[i];
    if (code >= categories) continue;
    const b = span === 0 ? 0 : Math.min(last, Math.floor(((t - t0) / span) * bins));
    out[b * categories + code] += weights ? weights[i] : 1;
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
    // Rows of this bin: before its end (the last bin also takes rows at exactly t1). The end is
    // found by binary search, so the row loop below only compares values.
    const binEnd = w.t0 + ((b + 1) * (w.t1 - w.t0)) / w.bins;
    let end = lowerBound(times, n, binEnd, i);
    if (b === w.bins - 1) end = Math.max(end, upperBound(times, n, w.t1, i));
    let max = current;
    for (; i < end; i++) {
      const v = values[i];
      if (!(v <= max)) max = v; // also takes v when max is NaN (no value known yet), as Math.max would not
    }
    if (end > first) current = values[end - 1];
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

/** A run of adjacent non-empty bins and how many rows fall in it. */
export interface BinRun {
  first: number;
  last: number;
  total: number;
}

/** The runs of adjacent non-empty bins of a binCounts result (all categories together), left to right. */
export function binRuns(counts: ArrayLike<number>, bins: number, categories: number): BinRun[] {
  const runs: BinRun[] = [];
  let cur: BinRun | undefined;
  for (let b = 0; b < bins; b++) {
    let total = 0;
    for (let c = 0; c < categories; c++) total += counts[b * categories + c];
    if (total === 0) {
      cur = undefined;
      continue;
    }
    if (cur) {
      cur.last = b;
      cur.total += total;
    } else runs.push((cur = { first: b, last: b, total }));
  }
  return runs;
}
