/**
 * Draws the dense lanes on one canvas. Everything is reduced to pixel columns first (binning),
 * so the cost depends on the visible rows and the width, never on one draw call per event.
 */
import { binCounts, binRuns, type BinRun } from '../model/binning';
import { DELTA_TYPES, MarkKind, NOTIFY_KIND_COUNT } from '../model/codes';
import { depthColumns, depthHeight, peakLabel, type DepthColumns } from '../model/depthLane';
import { lowerBound, upperBound } from '../model/packed';
import type { PointLane, TimelineData } from '../model/timelineData';
import { HANDLER_PREFIX, handlerLane, STALE_PREFIX, type TrackDraw } from '../model/tracks';
import type { WeightedLane } from '../model/overviewLanes';
import { MARK_STYLES, type MarkShape } from '../model/marks';
import type { LaneBand } from './layout';
import type { Palette } from './palette';

/** Pixel columns per bin for bar lanes. */
const BIN_PX = 3;
/** A FIFO that fills and drains within one pixel still shows as a spike this wide and at least this tall. */
const DEPTH_MIN_WIDTH_PX = 3;
const DEPTH_MIN_HEIGHT_PX = 3;

export interface TimeScale {
  (t: number): number;
  domain(): number[];
  range(): number[];
}

export interface DrawContext {
  ctx: CanvasRenderingContext2D;
  data: TimelineData;
  x: TimeScale;
  width: number;
  palette: Palette;
}

type Drawer = (dc: DrawContext, band: LaneBand) => void;

/** How each kind of track is drawn (model/tracks.ts names the kind per track). */
const TRACK_DRAWERS: Record<TrackDraw, Drawer> = {
  state: (dc, band) => drawStates(dc, band),
  marks: (dc, band) => drawMarks(dc, band),
  depth: (dc, band) => drawDepth(dc, band),
  deltas: (dc, band) => drawStacked(dc, band, dc.data.deltas, DELTA_TYPES.length, dc.palette.deltas, 0.15, false, dc.data.overview?.deltas),
  identical: (dc, band) => drawStacked(dc, band, dc.data.identical, 1, [dc.palette.identical], 0.45, true, dc.data.overview?.identical),
  tombstones: (dc, band) => {
    drawTicks(dc, band, dc.data.tombstones, dc.palette.tombstone);
    if (dc.data.overview) drawTicks(dc, band, dc.data.overview.tombstones, dc.palette.tombstone);
  },
  stale: (dc, band) => drawStale(dc, band),
  handler: (dc, band) => {
    const lane = handlerLane(dc.data, band.track);
    const spilled = dc.data.overview?.handlers.get(band.track.id.slice(HANDLER_PREFIX.length));
    if (lane) drawStacked(dc, band, lane, NOTIFY_KIND_COUNT, dc.palette.notify, 0.35, false, spilled);
  },
};

/**
 * An object's stale-cache windows: a hatched red bar from when the server last had it to the
 * repair (or to the end, while nothing repaired it), with the object's key written on it.
 */
function drawStale({ ctx, data, x, width, palette }: DrawContext, band: LaneBand): void {
  const key = band.track.id.slice(STALE_PREFIX.length);
  for (const w of data.staleWindows) {
    if (w.key !== key) continue;
    const a = Math.max(-1, x(w.fromT));
    const b = Math.min(width + 1, x(w.toT ?? data.endT));
    if (b < 0 || a > width) continue;
    const top = band.y + 2;
    const h = band.height - 4;
    ctx.fillStyle = palette.identical;
    ctx.globalAlpha = 0.25;
    ctx.fillRect(a, top, Math.max(2, b - a), h);
    ctx.globalAlpha = 0.9;
    ctx.strokeStyle = palette.identical;
    ctx.lineWidth = 1;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a, top, Math.max(2, b - a), h);
    ctx.clip();
    for (let hx = a - h; hx < b; hx += 6) {
      ctx.moveTo(hx, top + h);
      ctx.lineTo(hx + h, top);
    }
    ctx.stroke();
    ctx.restore();
    ctx.globalAlpha = 1;
    ctx.fillRect(a, top, 2, h);
    if (w.toT !== undefined) ctx.fillRect(b - 2, top, 2, h);
    ctx.fillStyle = palette.foreground;
    ctx.font = `10px ${palette.fontFamily}`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    const label = `${w.toT === undefined ? 'still stale' : 'stale'} (${w.revealedBy === 'check' ? 'found by a cache check' : 'repaired by a relist'})`;
    if (b - a > label.length * 6 + 8) ctx.fillText(label, Math.max(a, 0) + 5, top + h / 2);
  }
}

/** Draws every band with its track's drawing, over a faint background. */
export function drawLanes(dc: DrawContext, bands: readonly LaneBand[]): void {
  const { ctx, palette, width } = dc;
  for (const band of bands) {
    ctx.fillStyle = palette.grid;
    ctx.globalAlpha = 0.12;
    ctx.fillRect(0, band.y, width, band.height);
    ctx.globalAlpha = 1;
    TRACK_DRAWERS[band.track.draw](dc, band);
  }
}

function visibleRange(times: ArrayLike<number>, n: number, x: TimeScale): [number, number] {
  const [t0, t1] = x.domain();
  return [lowerBound(times, n, t0), upperBound(times, n, t1)];
}

function drawStates({ ctx, data, x, width, palette }: DrawContext, band: LaneBand): void {
  const { t, code } = data.states.columns;
  const n = data.states.length;
  const [t0] = x.domain();
  let [from, to] = visibleRange(t, n, x);
  from = Math.max(0, from - 1); // the state in force at the window's left edge
  for (let i = from; i < to; i++) {
    const start = Math.max(0, x(t[i]));
    const end = i + 1 < n ? x(t[i + 1]) : x(Math.max(data.endT, t0));
    if (end < 0 || start > width) continue;
    ctx.fillStyle = palette.states[code[i]] ?? palette.muted;
    ctx.fillRect(start, band.y + 3, Math.max(1, Math.min(end, width) - start), band.height - 6);
  }
}

function drawMarks({ ctx, data, x, width, palette }: DrawContext, band: LaneBand): void {
  const { t, kind, duration } = data.marks.columns;
  const n = data.marks.length;
  const [t0, t1] = x.domain();
  const span = t1 - t0;
  const mid = band.y + band.height / 2;
  // Spans (lists end at their mark, watches start at theirs) may begin before the window.
  const longest = Math.max(span, 0);
  const from = lowerBound(t, n, t0 - longest * 4);
  const to = upperBound(t, n, t1);
  const lastPx = new Float64Array(16).fill(-10);
  // A watch still open runs up to the end (now, for a live session) however long ago it started.
  const open = data.openWatchMark;
  if (open >= 0 && open < from) drawSpan(ctx, x(t[open]), x(data.endT), mid + 2, 8, palette.marks[MarkKind.WatchStart], width);
  for (let i = from; i < to; i++) {
    const k = kind[i] as MarkKind;
    const px = x(t[i]);
    if (k === MarkKind.WatchStart) {
      const end = i === data.openWatchMark ? data.endT : t[i] + duration[i];
      drawSpan(ctx, px, x(end), mid + 2, 8, palette.marks[k], width);
      continue;
    }
    if (k === MarkKind.List) {
      drawSpan(ctx, x(t[i] - duration[i]), px, mid - 10, 8, palette.marks[k], width);
    }
    if (px < -2 || px > width + 2) continue;
    if (Math.abs(px - lastPx[k]) < 1 && k !== MarkKind.Relist) continue; // one mark per pixel and kind
    lastPx[k] = px;
    ctx.fillStyle = ctx.strokeStyle = palette.marks[k];
    drawMarkShape(ctx, MARK_STYLES[k].shape, px, band, k === MarkKind.ListError);
  }
}

/** One mark in its shape (model/marks.ts); point marks sit on the band's lower half, clear of the relist labels. */
function drawMarkShape(ctx: CanvasRenderingContext2D, shape: MarkShape, px: number, band: LaneBand, low: boolean): void {
  const bottom = band.y + band.height;
  const cy = bottom - 6;
  ctx.lineWidth = 1.5;
  switch (shape) {
    case 'relist':
      // Loud: full-height bar and a triangle on top. The reason label is an SVG text (overlay).
      ctx.fillRect(px - 1.5, band.y, 3, band.height);
      ctx.beginPath();
      ctx.moveTo(px - 6, band.y);
      ctx.lineTo(px + 6, band.y);
      ctx.lineTo(px, band.y + 8);
      ctx.closePath();
      ctx.fill();
      break;
    case 'tick':
      // Watch ends run the lane's height; list errors are shorter, in the lower half.
      if (low) ctx.fillRect(px - 1, band.y + band.height / 2, 2, band.height / 2 - 2);
      else ctx.fillRect(px - 1, band.y + 4, 2, band.height - 8);
      break;
    case 'cross':
      ctx.beginPath();
      ctx.lineWidth = 2;
      ctx.moveTo(px - 4, cy - 4);
      ctx.lineTo(px + 4, cy + 4);
      ctx.moveTo(px + 4, cy - 4);
      ctx.lineTo(px - 4, cy + 4);
      ctx.stroke();
      break;
    case 'square':
      ctx.fillRect(px - 2.5, cy - 2.5, 5, 5);
      break;
    case 'ring':
      ctx.beginPath();
      ctx.arc(px, cy, 3.5, 0, Math.PI * 2);
      ctx.stroke();
      break;
    case 'frame':
      ctx.strokeRect(px - 3.5, cy - 3.5, 7, 7);
      break;
    case 'dot':
    default:
      ctx.beginPath();
      ctx.arc(px, cy, 3, 0, Math.PI * 2);
      ctx.fill();
      break;
  }
  ctx.lineWidth = 1;
}

function drawSpan(ctx: CanvasRenderingContext2D, a: number, b: number, y: number, h: number, colour: string, width: number): void {
  const left = Math.max(-1, Math.min(a, b));
  const right = Math.min(width + 1, Math.max(a, b));
  if (right < 0 || left > width) return;
  ctx.fillStyle = colour;
  ctx.globalAlpha = 0.55;
  ctx.fillRect(left, y, Math.max(2, right - left), h);
  ctx.globalAlpha = 1;
  ctx.fillRect(left, y, Math.max(1, Math.min(2, right - left)), h);
}

function drawDepth({ ctx, data, x, width, palette }: DrawContext, band: LaneBand): void {
  const [t0, t1] = x.domain();
  const bins = Math.max(1, Math.floor(width));
  const { t, keys, deltas } = data.depth.columns;
  const columns = depthColumns(t, keys, deltas, data.depth.length, { t0, t1, bins }, DEPTH_MIN_WIDTH_PX);
  const spilled = data.overview?.depth;
  if (spilled && spilled.length > 0) {
    const o = spilled.columns;
    const more = depthColumns(o.t, o.keys, o.deltas, spilled.length, { t0, t1, bins }, DEPTH_MIN_WIDTH_PX);
    mergeDepth(columns, more);
  }
  const top = columns.peakDeltas;
  const base = band.y + band.height;
  const plotHeight = band.height - 12; // the top 12 px hold the peak label, clear of the areas
  const area = (values: Float64Array, colour: string, alpha: number) => {
    ctx.fillStyle = colour;
    ctx.globalAlpha = alpha;
    ctx.beginPath();
    ctx.moveTo(0, base);
    for (let b = 0; b < bins; b++) {
      const y = base - depthHeight(values[b], top, plotHeight, DEPTH_MIN_HEIGHT_PX);
      ctx.lineTo(b, y);
      ctx.lineTo(b + 1, y);
    }
    ctx.lineTo(bins, base);
    ctx.closePath();
    ctx.fill();
    ctx.globalAlpha = 1;
  };
  if (top > 0) {
    area(columns.deltas, palette.depthDeltas, 0.45);
    area(columns.keys, palette.depthKeys, 0.85);
  }
  ctx.fillStyle = palette.muted;
  ctx.font = `10px ${palette.fontFamily}`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'alphabetic';
  ctx.fillText(peakLabel(columns), width - 4, band.y + 10);
  ctx.textAlign = 'left';
}

/** The larger of two depth series per column (the overview's and the rows'), and their joint peak. */
function mergeDepth(into: DepthColumns, other: DepthColumns): void {
  for (let b = 0; b < into.deltas.length; b++) {
    into.deltas[b] = Math.max(into.deltas[b], other.deltas[b]);
    into.keys[b] = Math.max(into.keys[b], other.keys[b]);
  }
  if (other.peakDeltas > into.peakDeltas) {
    into.peakDeltas = other.peakDeltas;
    into.peakBin = other.peakBin;
  }
  into.peakKeys = Math.max(into.peakKeys, other.peakKeys);
}

/** Stacked count bars per bin; `minFraction` makes a single event still visible (loud series). */
function drawStacked(
  { ctx, x, width, palette }: DrawContext,
  band: LaneBand,
  lane: PointLane,
  categories: number,
  colours: readonly string[],
  minFraction = 0.15,
  countLabels = false,
  spilled?: WeightedLane,
): void {
  const [t0, t1] = x.domain();
  const bins = Math.max(1, Math.floor(width / BIN_PX));
  const counts = binCounts(lane.columns.t, lane.columns.code, lane.length, { t0, t1, bins }, categories);
  // The counted rows of what stays on disk go into the same bins (an overview row stands for `w` events).
  if (spilled) binCounts(spilled.columns.t, spilled.columns.code, spilled.length, { t0, t1, bins }, categories, spilled.columns.w, counts);
  let max = 0;
  for (let b = 0; b < bins; b++) {
    let total = 0;
    for (let c = 0; c < categories; c++) total += counts[b * categories + c];
    max = Math.max(max, total);
  }
  if (max === 0) return;
  const base = band.y + band.height;
  for (let b = 0; b < bins; b++) {
    let y = base;
    for (let c = 0; c < categories; c++) {
      const count = counts[b * categories + c];
      if (count === 0) continue;
      const h = Math.max(band.height * minFraction, (count / max) * band.height);
      const clamped = Math.min(h, y - band.y);
      ctx.fillStyle = colours[c];
      ctx.fillRect(b * BIN_PX, y - clamped, BIN_PX - 0.5, clamped);
      y -= clamped;
    }
  }
  if (countLabels) drawRunCounts(ctx, band, binRuns(counts, bins, categories), palette);
}

/** "12" right of each burst of more than one row, so a burst of 12 does not look like a burst of 1; labels never overlap. */
function drawRunCounts(ctx: CanvasRenderingContext2D, band: LaneBand, runs: readonly BinRun[], palette: Palette): void {
  ctx.font = `bold 10px ${palette.fontFamily}`;
  ctx.fillStyle = palette.foreground;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const r of runs) {
    if (r.total < 2) continue;
    const text = `×${r.total}`;
    const x = (r.last + 1) * BIN_PX + 2;
    const w = text.length * 6;
    if (x < lastEnd + 4) continue;
    ctx.fillText(text, x, band.y + band.height / 2);
    lastEnd = x + w;
  }
}

function drawTicks({ ctx, x, width }: DrawContext, band: LaneBand, lane: PointLane | WeightedLane, colour: string): void {
  const { t } = lane.columns;
  const [from, to] = visibleRange(t, lane.length, x);
  ctx.fillStyle = colour;
  let last = -10;
  for (let i = from; i < to; i++) {
    const px = x(t[i]);
    if (px - last < 1 || px > width) continue;
    last = px;
    ctx.beginPath();
    ctx.moveTo(px, band.y + 2);
    ctx.lineTo(px + 4, band.y + band.height / 2);
    ctx.lineTo(px, band.y + band.height - 2);
    ctx.lineTo(px - 4, band.y + band.height / 2);
    ctx.closePath();
    ctx.fill();
  }
}

/**
 * The strip above the lanes says what lies on disk: a muted bar over the spilled span, a bar in
 * the focus colour over the range loaded from it (drawn there as events in memory).
 */
export function drawDiskStrip(ctx: CanvasRenderingContext2D, data: TimelineData, x: TimeScale, width: number, height: number, palette: Palette): void {
  const span = data.spilledSpan;
  if (!span) return;
  const bar = (a: number, b: number, alpha: number) => {
    const left = Math.max(0, x(a));
    const right = Math.min(width, x(b));
    if (right < 0 || left > width) return;
    ctx.globalAlpha = alpha;
    ctx.fillRect(left, height - 5, Math.max(1, right - left), 4);
  };
  ctx.fillStyle = palette.muted;
  bar(span[0], span[1], 0.45);
  const loaded = data.loadedRange;
  ctx.fillStyle = palette.focus;
  if (loaded) bar(loaded.t0, loaded.t1, 1);
  ctx.globalAlpha = 1;
}
