/**
 * The FIFO depth lane per pixel column. A queue that fills and drains within one column is a
 * 1-px spike nobody sees, so every non-empty column is widened to at least `minWidth` columns
 * (a running maximum: a spike never hides a taller neighbour) and the peak of the visible window
 * is reported with the column it is in, for the "peak N" label.
 */
import { binStepMax, type BinWindow } from './binning';

export interface DepthColumns {
  /** Deltas waiting (all keys), per column; 0 where nothing is known yet. */
  deltas: Float64Array;
  /** Keys waiting, per column. */
  keys: Float64Array;
  /** Highest delta count in the window (0 when the queue stayed empty). */
  peakDeltas: number;
  /** Highest key count in the window. */
  peakKeys: number;
  /** Column of the delta peak (its first column), -1 when peakDeltas is 0. */
  peakBin: number;
}

/** Running maximum over `[b - before, b + after]` so a lone non-zero column spans `minWidth` columns around itself. */
export function widenPeaks(values: Float64Array, minWidth: number): Float64Array {
  const n = values.length;
  const width = Math.max(1, Math.floor(minWidth));
  if (width === 1) return values.slice();
  const before = Math.floor((width - 1) / 2);
  const after = width - 1 - before;
  const out = new Float64Array(n);
  for (let b = 0; b < n; b++) {
    let m = 0;
    const lo = Math.max(0, b - before);
    const hi = Math.min(n - 1, b + after);
    for (let j = lo; j <= hi; j++) if (values[j] > m) m = values[j];
    out[b] = m;
  }
  return out;
}

export function depthColumns(
  times: ArrayLike<number>,
  keys: ArrayLike<number>,
  deltas: ArrayLike<number>,
  n: number,
  w: BinWindow,
  minWidth: number,
): DepthColumns {
  const rawDeltas = zeroUnknown(binStepMax(times, deltas, n, w));
  const rawKeys = zeroUnknown(binStepMax(times, keys, n, w));
  let peakDeltas = 0;
  let peakKeys = 0;
  let peakBin = -1;
  for (let b = 0; b < rawDeltas.length; b++) {
    if (rawDeltas[b] > peakDeltas) {
      peakDeltas = rawDeltas[b];
      peakBin = b;
    }
    if (rawKeys[b] > peakKeys) peakKeys = rawKeys[b];
  }
  return { deltas: widenPeaks(rawDeltas, minWidth), keys: widenPeaks(rawKeys, minWidth), peakDeltas, peakKeys, peakBin };
}

/** Pixel height of a depth value in a lane of `height` px scaled to `peak`: at least `minHeight` when non-zero. */
export function depthHeight(value: number, peak: number, height: number, minHeight: number): number {
  if (!(value > 0) || !(peak > 0)) return 0;
  return Math.min(height, Math.max(minHeight, (value / peak) * height));
}

/** The peak label: "peak 12 deltas · 5 keys", or "empty" when nothing waited in the window. */
export function peakLabel(c: Pick<DepthColumns, 'peakDeltas' | 'peakKeys'>): string {
  if (c.peakDeltas <= 0 && c.peakKeys <= 0) return 'empty in view';
  const d = `${c.peakDeltas} ${c.peakDeltas === 1 ? 'delta' : 'deltas'}`;
  const k = `${c.peakKeys} ${c.peakKeys === 1 ? 'key' : 'keys'}`;
  return `peak ${d} · ${k}`;
}

function zeroUnknown(values: Float64Array): Float64Array {
  for (let b = 0; b < values.length; b++) if (Number.isNaN(values[b])) values[b] = 0;
  return values;
}
