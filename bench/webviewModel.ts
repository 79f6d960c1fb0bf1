/**
 * (d) The webview model with 500k events: ingesting them into TimelineData (in batches, as the
 * host streams them), then binning every lane for a 1 200-pixel-wide view, and re-binning after
 * zooms and pans. A "frame" here is the model work webview/render/canvasLanes.ts does per draw:
 * binStepMax twice for the FIFO depth (one bin per pixel), binCounts for the delta, identical and
 * handler lanes (one bin per 3 pixels), and the visible-range search plus walk of the state, mark
 * and tombstone lanes. Canvas drawing calls themselves are not included.
 */
import { binCounts, binStepMax } from '../webview/model/binning';
import { DELTA_TYPES, NOTIFY_KIND_COUNT } from '../webview/model/codes';
import { lowerBound, upperBound } from '../webview/model/packed';
import { TimelineData } from '../webview/model/timelineData';
import { fmt, interleaved, summarize, table, timeSync, type Timing } from './stats';
import type { GeneratedTrace } from './traceSource';

export const VIEW_WIDTH_PX = 1200;
/** The UI target for one zoom frame. */
export const FRAME_BUDGET_MS = 16;
const BAR_BIN_PX = 3;
const INGEST_BATCH = 5000;

function ingest(trace: GeneratedTrace): TimelineData {
  const data = new TimelineData();
  for (let i = 0; i < trace.events.length; i += INGEST_BATCH) data.append(trace.events.slice(i, i + INGEST_BATCH));
  return data;
}

/** Visible rows of a lane, walked once (the renderer's per-row loop for sparse lanes). */
function walkVisible(times: ArrayLike<number>, n: number, t0: number, t1: number): number {
  let sum = 0;
  const to = upperBound(times, n, t1);
  for (let i = Math.max(0, lowerBound(times, n, t0) - 1); i < to; i++) sum += times[i];
  return sum;
}

/** The model work of one frame over [t0, t1]; returns a checksum so none of it is optimised away. */
export function binFrame(data: TimelineData, t0: number, t1: number, width = VIEW_WIDTH_PX): number {
  const pixelBins = { t0, t1, bins: width };
  const barBins = { t0, t1, bins: Math.floor(width / BAR_BIN_PX) };
  const depth = data.depth.columns;
  let check = binStepMax(depth.t, depth.deltas, data.depth.length, pixelBins)[0] || 0;
  check += binStepMax(depth.t, depth.keys, data.depth.length, pixelBins)[0] || 0;
  check += binCounts(data.deltas.columns.t, data.deltas.columns.code, data.deltas.length, barBins, DELTA_TYPES.length)[0];
  check += binCounts(data.identical.columns.t, data.identical.columns.code, data.identical.length, barBins, 1)[0];
  for (const lane of data.handlers.values()) check += binCounts(lane.columns.t, lane.columns.code, lane.length, barBins, NOTIFY_KIND_COUNT)[0];
  for (const lane of [data.states, data.tombstones]) check += walkVisible(lane.columns.t, lane.length, t0, t1);
  check += walkVisible(data.marks.columns.t, data.marks.length, t0, t1);
  return check;
}

/** Zoom steps from the whole trace into its middle, ×2 each (the wheel zooms by about that). */
function zoomWindows(t0: number, t1: number, steps: number): [number, number][] {
  const out: [number, number][] = [];
  const mid = (t0 + t1) / 2;
  let half = (t1 - t0) / 2;
  for (let i = 0; i < steps; i++) {
    half /= 2;
    out.push([mid - half, mid + half]);
  }
  return out;
}

type FrameMeasure = 'full view' | 'zoom re-bin' | 'pan re-bin (zoomed ×8)';
const WARM_FRAMES = 3;

interface FrameStats {
  /** Median over the repetitions of each window, then the median and the worst of those. */
  typical: number;
  worst: number;
  /** Of every single frame sample. */
  p95: number;
  samples: number;
}

/** Per window the median over repetitions (one slow repetition is noise, a slow window is not). */
function frameStats(runs: readonly Timing[][], key: keyof Timing): FrameStats {
  const perWindow = runs[0].map((_, w) => summarize(runs.map((r) => r[w][key])).median);
  const all = runs.flat().map((x) => x[key]);
  return { typical: summarize(perWindow).median, worst: Math.max(...perWindow), p95: percentile(all, 0.95), samples: all.length };
}

export async function webviewModel(trace: GeneratedTrace, repeats: number, framesPerRun = 20): Promise<string> {
  const data = ingest(trace);
  const t0 = data.firstT;
  const t1 = data.endT;
  const span8 = (t1 - t0) / 8;
  const windows: Record<FrameMeasure, [number, number][]> = {
    'full view': Array.from({ length: framesPerRun }, (): [number, number] => [t0, t1]),
    'zoom re-bin': zoomWindows(t0, t1, framesPerRun),
    'pan re-bin (zoomed ×8)': Array.from({ length: framesPerRun }, (_, i): [number, number] => {
      const start = t0 + ((t1 - t0 - span8) * i) / framesPerRun;
      return [start, start + span8];
    }),
  };
  // Warm-up, so that the first timed frames are not JIT compilation.
  for (const list of Object.values(windows)) for (const [a, b] of list) binFrame(data, a, b);
  // Ingest runs first and apart: each one leaves a 500k-event model of garbage behind, whose
  // sweeping would otherwise land on the frames timed after it.
  const ingestRuns = (await interleaved(['ingest'] as const, repeats, async () => timeSync(() => void ingest(trace)))).get('ingest') ?? [];
  const frameMeasures = ['full view', 'zoom re-bin', 'pan re-bin (zoomed ×8)'] as const;
  const samples = await interleaved(frameMeasures, repeats, async (m): Promise<Timing[]> => {
    // interleaved() collects garbage before each run and V8 sweeps lazily afterwards, which
    // would land on the first timed frames. Untimed frames take that cost.
    for (let i = 0; i < WARM_FRAMES; i++) binFrame(data, t0, t1);
    return windows[m].map(([a, b]) => timeSync(() => void binFrame(data, a, b)));
  });
  const rows = [
    ['ingest (all events)', String(ingestRuns.length), fmt(summarize(ingestRuns.map((x) => x.cpuMs)), 1), fmt(summarize(ingestRuns.map((x) => x.wallMs)), 1), '—'],
    ...frameMeasures.map((m) => {
      const runs = samples.get(m) ?? [];
      const cpu = frameStats(runs, 'cpuMs');
      const wall = frameStats(runs, 'wallMs');
      const verdict = wall.worst <= FRAME_BUDGET_MS ? 'yes' : 'NO';
      return [m, String(cpu.samples), `${cpu.typical.toFixed(2)} / ${cpu.worst.toFixed(2)} / ${cpu.p95.toFixed(2)}`, `${wall.typical.toFixed(2)} / ${wall.worst.toFixed(2)} / ${wall.p95.toFixed(2)}`, verdict];
    }),
  ];
  const handlers = [...data.handlers.values()];
  return [
    `### (d) Webview model — ${trace.events.length.toLocaleString('en-US')} events, ${VIEW_WIDTH_PX} px wide, ${repeats} interleaved runs (${framesPerRun} frames per run for the re-bins)`,
    '',
    table(['measure', 'samples', 'CPU ms (ingest: median (min–max); frames: typical / worst window / p95)', 'wall ms (same)', `worst window within ${FRAME_BUDGET_MS} ms?`], rows),
    '',
    `Lanes after ingest: depth ${data.depth.length.toLocaleString('en-US')} rows, deltas ${data.deltas.length.toLocaleString('en-US')}, ` +
      `identical ${data.identical.length.toLocaleString('en-US')}, marks ${data.marks.length.toLocaleString('en-US')}, ${handlers.length} handler lanes ` +
      `(${handlers.map((l) => l.length.toLocaleString('en-US')).join(' + ')} rows). Zoom frames halve the window each step (whole trace → 1/2^${framesPerRun} of it); ` +
      `pan frames slide a 1/8 window across the trace. "typical" = median over windows of each window's median over runs; "worst window" = the slowest window's median.`,
  ].join('\n');
}

function percentile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
