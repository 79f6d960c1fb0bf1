/**
 * The timeline chart: lane labels, one canvas for the dense lanes, one SVG for axis, relist and
 * fault labels, brush and selection. d3-zoom (wheel, drag) and d3-brush (drag a range on the strip
 * above the axis) change the visible window; the base scale spans the whole trace and the shown
 * scale is derived from it on each render (`transform.rescaleX`). The chart is one tab stop;
 * arrow keys move the selection (model/selection.ts), +/- zoom, F follows, Escape closes the
 * tooltip and then clears the selection.
 */
import { brushX, scaleLinear, select, zoom, zoomIdentity, type BrushBehavior, type ZoomBehavior, type ZoomTransform } from 'd3';
import { nearestRow } from '../model/binning';
import { MarkKind } from '../model/codes';
import { describeEvent } from '../model/details';
import { cursorForSeq, cursorSeq, isNavKey, moveCursor, type Cursor, type NavLane } from '../model/selection';
import { navigableLanes } from '../model/tracks';
import type { TimelineData } from '../model/timelineData';
import { drawDiskStrip, drawLanes } from './canvasLanes';
import { bandAt, bandsHeight, laneBands, type LaneBand } from './layout';
import { drawAxis, drawCheckLabels, drawMarkLabels, drawSelection } from './overlay';
import { onThemeChange, readPalette, type Palette } from './palette';
import type { SharedAxis } from '../model/sharedWindow';

const LABEL_WIDTH = 150;
const AXIS_HEIGHT = 22;
const BRUSH_HEIGHT = 12;
const MIN_SPAN_MS = 50;
const HIT_PX = 6;

export interface TimelineCallbacks {
  onSelect(seq: number | undefined): void;
  onFollowChange(follow: boolean): void;
  /** The visible window after each render (the app loads spilled ranges for it). */
  onWindow?(t0: number, t1: number): void;
}

export class TimelineView {
  private readonly root: HTMLDivElement;
  private readonly labels: HTMLDivElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly svg: SVGSVGElement;
  private readonly tooltip: HTMLDivElement;
  private readonly zoomBehavior: ZoomBehavior<HTMLDivElement, unknown>;
  private palette: Palette;
  private transform: ZoomTransform = zoomIdentity;
  private follow = true;
  private cursor: Cursor = { lane: 1, row: -1 };
  private lanes: NavLane[] = [];
  private bands: LaneBand[] = [];
  private width = 600;
  private frame = 0;
  private applyingTransform = false;
  /** Set while render() moves the window itself (follow live, keep window): no new frame, no follow change. */
  private quietTransform = false;
  private readonly plot: HTMLDivElement;
  private readonly brush: BrushBehavior<unknown>;
  private brushWidth = -1;
  private compact = false;
  /** The base domain and width the current transform is relative to (the base grows with now). */
  private transformBase: { domain: [number, number]; width: number } | undefined;

  constructor(
    host: HTMLElement,
    private readonly data: TimelineData,
    private readonly callbacks: TimelineCallbacks,
    private readonly shared?: SharedAxis,
  ) {
    this.root = host.appendChild(document.createElement('div'));
    this.root.className = 'timeline';
    this.root.tabIndex = 0;
    this.root.setAttribute('role', 'application');
    this.root.setAttribute('aria-roledescription', 'timeline');
    this.root.setAttribute('aria-label', 'Informer timeline. Arrow keys move between events, plus and minus zoom, F follows live, Escape closes.');
    this.labels = this.root.appendChild(document.createElement('div'));
    this.labels.className = 'lane-labels';
    this.labels.setAttribute('aria-hidden', 'true');
    const plot = this.root.appendChild(document.createElement('div'));
    plot.className = 'plot';
    this.plot = plot;
    this.canvas = plot.appendChild(document.createElement('canvas'));
    this.svg = plot.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
    this.tooltip = host.appendChild(document.createElement('div'));
    this.tooltip.className = 'tooltip';
    this.tooltip.setAttribute('role', 'tooltip');
    this.tooltip.hidden = true;
    this.palette = readPalette();
    onThemeChange(() => {
      this.palette = readPalette();
      this.requestRender();
    });

    const svg = select(this.svg);
    svg.append('g').attr('class', 'relists');
    svg.append('g').attr('class', 'checks');
    svg.append('g').attr('class', 'selections');
    svg.append('g').attr('class', 'axis');
    svg.append('g').attr('class', 'brush');

    this.zoomBehavior = zoom<HTMLDivElement, unknown>()
      .scaleExtent([1, 1e7])
      .filter((ev: Event) => !(ev.target instanceof Element && ev.target.closest('.brush')) && !(ev instanceof MouseEvent && ev.button > 0))
      .on('zoom', (ev: { transform: ZoomTransform; sourceEvent: unknown }) => {
        this.transform = ev.transform;
        if (this.quietTransform) return;
        if (this.shared) {
          this.movedOnSharedAxis(this.shared, ev.transform, !!ev.sourceEvent);
          return;
        }
        if (!this.applyingTransform && ev.sourceEvent) this.setFollow(false);
        this.requestRender();
      });
    select(plot as HTMLDivElement).call(this.zoomBehavior);

    // One brush for the view's life; render() only updates its extent when the width changes.
    this.brush = brushX<unknown>().on('end', (ev: { selection: [number, number] | null; sourceEvent: unknown }) => {
      if (!ev.selection || !ev.sourceEvent) return;
      const [a, b] = ev.selection;
      const x = this.shownScale();
      select(this.svg).select<SVGGElement>('g.brush').call(this.brush.move, null);
      this.setFollow(false);
      this.showWindow(x.invert(a), x.invert(b));
    });

    this.root.addEventListener('keydown', (ev) => this.onKey(ev));
    this.root.addEventListener('focus', () => this.showTooltipForCursor());
    this.root.addEventListener('blur', () => (this.tooltip.hidden = true));
    plot.addEventListener('pointermove', (ev) => this.onPointerMove(ev, plot));
    plot.addEventListener('pointerleave', () => (this.tooltip.hidden = true));
    plot.addEventListener('click', (ev) => this.onClick(ev, plot));
    new ResizeObserver(() => this.requestRender()).observe(plot);
  }

  get following(): boolean {
    return this.shared ? this.shared.following() : this.follow;
  }

  setFollow(follow: boolean): void {
    if (this.shared) {
      this.shared.setFollow(follow);
      return;
    }
    if (this.follow === follow) return;
    this.follow = follow;
    this.callbacks.onFollowChange(follow);
    this.requestRender();
  }

  /** Compact lanes for a short view (the bottom panel at its default height). */
  setCompact(compact: boolean): void {
    if (this.compact === compact) return;
    this.compact = compact;
    this.requestRender();
  }

  /** The visible window [t0, t1] in trace ms. */
  window(): [number, number] {
    const [a, b] = this.shownScale().domain();
    return [a, b];
  }

  /** Shows [t0, t1] (clamped to the trace); on a shared axis it also stops following (elsewhere the caller says). */
  showWindow(t0: number, t1: number): void {
    const base = this.baseScale();
    const [d0, d1] = base.domain();
    const a = Math.max(d0, Math.min(t0, t1));
    const b = Math.min(d1, Math.max(t0, t1, a + MIN_SPAN_MS));
    if (this.shared) {
      const off = this.shared.offset;
      this.shared.setFollow(false);
      this.shared.moveTo(a + off, b + off, [d0 + off, d1 + off]);
      return;
    }
    const k = (d1 - d0) / Math.max(MIN_SPAN_MS, b - a);
    this.applyTransform(zoomIdentity.scale(k).translate(-base(a), 0));
  }

  zoomBy(factor: number): void {
    select(this.plot).call(this.zoomBehavior.scaleBy, factor);
  }

  resetZoom(): void {
    if (this.shared) {
      this.shared.reset();
      return;
    }
    this.applyTransform(zoomIdentity);
    this.setFollow(true);
  }

  selectSeq(seq: number | undefined): void {
    this.lanes = navigableLanes(this.data);
    const c = seq === undefined ? undefined : cursorForSeq(this.lanes, seq);
    this.cursor = c ?? { lane: this.cursor.lane, row: -1 };
    this.requestRender();
  }

  /** New data or a new `now` arrived (or a snapshot replaced it). */
  dataChanged(): void {
    this.lanes = navigableLanes(this.data);
    this.requestRender();
  }

  requestRender(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** The whole trace: first event to the end (now, for a live session, which is then the right edge; a finished trace gets a little room). On a shared axis: the shared domain in this view's time. */
  private baseScale() {
    if (this.shared) {
      const [a, b] = this.shared.domain();
      return scaleLinear().domain([a - this.shared.offset, b - this.shared.offset]).range([0, this.width]);
    }
    const t0 = this.data.firstT;
    const t1 = Math.max(this.data.endT, t0 + 1000);
    const pad = this.data.live ? 0 : (t1 - t0) * 0.02;
    return scaleLinear().domain([t0, t1 + pad]).range([0, this.width]);
  }

  /** The scale drawn: on a shared axis, the axis's window on this view's width (whatever the transform). */
  private shownScale() {
    if (this.shared) {
      const [w0, w1] = this.shared.window();
      const off = this.shared.offset;
      return scaleLinear().domain([w0 - off, w1 - off]).range([0, this.width]);
    }
    return this.transform.rescaleX(this.baseScale());
  }

  /**
   * Wheel, drag or zoom keys moved this view's transform, which is relative to the base it was last
   * drawn on (`transformBase`; the axis may have grown since): the window that transform shows there
   * is the one the user chose, and the axis takes it for every view. A gesture stops following first.
   */
  private movedOnSharedAxis(shared: SharedAxis, t: ZoomTransform, gesture: boolean): void {
    const drawn = this.transformBase ?? this.currentBase();
    const [a, b] = t.rescaleX(scaleLinear().domain(drawn.domain).range([0, drawn.width])).domain();
    const off = shared.offset;
    if (gesture) shared.setFollow(false);
    shared.moveTo(a + off, b + off, [drawn.domain[0] + off, drawn.domain[1] + off]);
  }

  /** On a shared axis: d3-zoom's transform is set to the axis's window on this view's base, so wheel and drag go on from what is drawn. */
  private fitSharedWindow(shared: SharedAxis): void {
    const base = this.baseScale();
    const [d0, d1] = base.domain();
    const [w0, w1] = shared.window();
    const a = w0 - shared.offset;
    const k = (d1 - d0) / Math.max(1e-9, w1 - w0);
    this.setTransformQuietly(zoomIdentity.scale(k).translate(-base(a), 0));
    this.transformBase = this.currentBase();
  }

  private applyTransform(t: ZoomTransform): void {
    this.applyingTransform = true;
    select(this.plot).call(this.zoomBehavior.transform, t);
    this.applyingTransform = false;
    this.transformBase = this.currentBase();
  }

  private currentBase(): { domain: [number, number]; width: number } {
    const [d0, d1] = this.baseScale().domain();
    return { domain: [d0, d1], width: this.width };
  }

  /** Sets the transform through d3-zoom (so wheel and drag continue from it) without scheduling a frame or leaving follow mode. */
  private setTransformQuietly(t: ZoomTransform): void {
    this.quietTransform = true;
    try {
      select(this.plot).call(this.zoomBehavior.transform, t);
    } finally {
      this.quietTransform = false;
    }
    this.transform = t;
  }

  /**
   * The base domain grows (new events, and for a live session every tick of now). When not
   * following, keep the window the user chose where it is instead of letting it stretch.
   */
  private keepWindow(): void {
    const prev = this.transformBase;
    const cur = this.currentBase();
    this.transformBase = cur;
    if (this.follow || !prev) return;
    if (prev.domain[0] === cur.domain[0] && prev.domain[1] === cur.domain[1] && prev.width === cur.width) return;
    const [a, b] = this.transform.rescaleX(scaleLinear().domain(prev.domain).range([0, prev.width])).domain();
    const base = this.baseScale();
    const k = (cur.domain[1] - cur.domain[0]) / Math.max(1e-9, b - a);
    // The base shrank below the window (a live session ended: it now ends at its last event): show it all.
    this.setTransformQuietly(k <= 1 ? zoomIdentity : zoomIdentity.scale(k).translate(-base(a), 0));
  }

  /** Following live keeps the window's span and slides its right edge to the end (now, for a live session). */
  private followLive(): void {
    const base = this.baseScale();
    const [a, b] = this.shownScale().domain();
    const [, d1] = base.domain();
    if (this.transform.k <= 1.0001) return; // whole trace already shown and growing
    const span = b - a;
    const k = this.transform.k;
    this.setTransformQuietly(zoomIdentity.scale(k).translate(-base(d1 - span), 0));
  }

  private render(): void {
    this.width = Math.max(100, this.plot.clientWidth);
    if (this.shared) this.fitSharedWindow(this.shared);
    else {
      this.keepWindow();
      if (this.follow) this.followLive();
    }
    this.bands = laneBands(this.data, BRUSH_HEIGHT + 2, this.compact);
    const lanesBottom = bandsHeight(this.bands);
    const height = lanesBottom + AXIS_HEIGHT;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.floor(this.width * dpr);
    this.canvas.height = Math.floor(height * dpr);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${height}px`;
    this.svg.setAttribute('width', String(this.width));
    this.svg.setAttribute('height', String(height));
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, height);
    const x = this.shownScale();
    drawLanes({ ctx, data: this.data, x, width: this.width, palette: this.palette }, this.bands);
    drawDiskStrip(ctx, this.data, x, this.width, BRUSH_HEIGHT, this.palette);
    this.renderLabels();
    const svg = select(this.svg);
    drawAxis(svg.select<SVGGElement>('g.axis').attr('transform', `translate(0,${lanesBottom + 2})`), x, this.width, this.shared?.offset ?? 0);
    const marksBand = this.bands.find((b) => b.id === 'marks');
    if (marksBand) {
      drawMarkLabels(svg.select<SVGGElement>('g.relists'), this.data, x, marksBand, this.width, this.palette.marks[MarkKind.Fault]);
      drawCheckLabels(svg.select<SVGGElement>('g.checks'), this.data, x, marksBand, this.width);
    }
    const seq = cursorSeq(this.lanes, this.cursor);
    const e = seq === undefined ? undefined : this.data.bySeq(seq);
    const band = this.bands.find((b) => b.id === this.lanes[this.cursor.lane]?.id);
    drawSelection(svg.select<SVGGElement>('g.selections'), e ? x(e.t) : undefined, band, lanesBottom);
    this.renderBrush();
    const [w0, w1] = x.domain();
    this.callbacks.onWindow?.(w0, w1);
  }

  private renderLabels(): void {
    const texts = this.bands.map((b) => b.label);
    const existing = [...this.labels.children] as HTMLDivElement[];
    this.bands.forEach((b, i) => {
      const div = existing[i] ?? this.labels.appendChild(document.createElement('div'));
      div.textContent = texts[i];
      div.title = texts[i];
      // Lanes tall enough for two lines wrap their label instead of cutting it.
      div.classList.toggle('wrap', b.height >= 30);
      // One-line labels are centred by their line height, so a long one ends in "…" (the title has it all).
      div.style.lineHeight = b.height >= 30 ? '' : `${b.height}px`;
      div.style.top = `${b.y}px`;
      div.style.height = `${b.height}px`;
      div.classList.toggle('focused', this.lanes[this.cursor.lane]?.id === b.id);
    });
    for (let i = this.bands.length; i < existing.length; i++) existing[i].remove();
    this.labels.style.height = `${bandsHeight(this.bands) + AXIS_HEIGHT}px`;
    this.labels.style.width = `${LABEL_WIDTH}px`;
  }

  /** The brush spans the strip above the lanes; it is re-applied only when the width changed. */
  private renderBrush(): void {
    if (this.brushWidth === this.width) return;
    this.brushWidth = this.width;
    this.brush.extent([
      [0, 0],
      [this.width, BRUSH_HEIGHT],
    ]);
    const g = select(this.svg).select<SVGGElement>('g.brush');
    g.call(this.brush);
    g.select('rect.overlay').attr('aria-label', 'Drag to zoom to a time range');
  }

  private onKey(ev: KeyboardEvent): void {
    if (isNavKey(ev.key)) {
      ev.preventDefault();
      this.lanes = navigableLanes(this.data);
      this.cursor = moveCursor(this.lanes, this.cursor, ev.key);
      this.afterCursorMove();
      return;
    }
    const actions: Record<string, () => void> = {
      '+': () => this.zoomBy(2),
      '=': () => this.zoomBy(2),
      '-': () => this.zoomBy(0.5),
      '0': () => this.resetZoom(),
      f: () => this.setFollow(!this.following),
      Escape: () => {
        if (!this.tooltip.hidden) this.tooltip.hidden = true;
        else this.setCursorRow(-1);
      },
    };
    const action = actions[ev.key];
    if (action) {
      ev.preventDefault();
      action();
    }
  }

  private setCursorRow(row: number): void {
    this.cursor = { lane: this.cursor.lane, row };
    this.afterCursorMove();
  }

  private afterCursorMove(): void {
    const seq = cursorSeq(this.lanes, this.cursor);
    const e = seq === undefined ? undefined : this.data.bySeq(seq);
    if (e) {
      const [a, b] = this.window();
      if (e.t < a || e.t > b) {
        const span = b - a;
        this.setFollow(false);
        this.showWindow(e.t - span / 2, e.t + span / 2);
      }
    }
    this.callbacks.onSelect(seq);
    this.requestRender();
    this.showTooltipForCursor();
  }

  private showTooltipForCursor(): void {
    const seq = cursorSeq(this.lanes, this.cursor);
    const e = seq === undefined ? undefined : this.data.bySeq(seq);
    const band = this.bands.find((b) => b.id === this.lanes[this.cursor.lane]?.id);
    if (!e || !band) {
      this.tooltip.hidden = true;
      return;
    }
    this.placeTooltip(describeEvent(e), LABEL_WIDTH + this.shownScale()(e.t), band.y + band.height + 8);
  }

  private placeTooltip(text: string, left: number, top: number): void {
    this.tooltip.textContent = text;
    this.tooltip.hidden = false;
    const maxLeft = (this.root.clientWidth || left + 300) - this.tooltip.offsetWidth - 4;
    this.tooltip.style.left = `${Math.max(4, Math.min(left + 8, maxLeft))}px`;
    this.tooltip.style.top = `${this.root.offsetTop + top}px`;
  }

  /** The lane row under a pointer position, as (lane index, row). */
  private hit(ev: MouseEvent, plot: HTMLElement): Cursor | undefined {
    const rect = plot.getBoundingClientRect();
    const px = ev.clientX - rect.left;
    const band = bandAt(this.bands, ev.clientY - rect.top);
    const laneIndex = this.lanes.findIndex((l) => l.id === band?.id);
    if (laneIndex < 0) return undefined;
    const lane = this.lanes[laneIndex];
    const x = this.shownScale();
    const ms = Math.abs(x.invert(px + HIT_PX) - x.invert(px));
    const row = nearestRow(lane.times, lane.length, x.invert(px), ms);
    return row < 0 ? undefined : { lane: laneIndex, row };
  }

  private onPointerMove(ev: PointerEvent, plot: HTMLElement): void {
    this.lanes = navigableLanes(this.data);
    const c = this.hit(ev, plot);
    const seq = c ? cursorSeq(this.lanes, c) : undefined;
    const e = seq === undefined ? undefined : this.data.bySeq(seq);
    if (!e) {
      this.tooltip.hidden = true;
      return;
    }
    const rect = this.root.getBoundingClientRect();
    this.placeTooltip(describeEvent(e), ev.clientX - rect.left, ev.clientY - rect.top + 14);
  }

  private onClick(ev: MouseEvent, plot: HTMLElement): void {
    this.lanes = navigableLanes(this.data);
    const c = this.hit(ev, plot);
    if (!c) return;
    this.cursor = c;
    this.root.focus();
    this.afterCursorMove();
  }
}
