/**
 * The SVG layer over the canvas: time axis, the relist and fault labels (both are rare and must
 * be loud, readable and reachable by assistive technology, so each is an element with a label),
 * the cache check labels and the selection marker. Text goes through `.text()` only; cluster data is never markup.
 */
import { axisBottom, select, type ScaleLinear, type Selection } from 'd3';
import { MarkKind, RELIST_REASONS } from '../model/codes';
import { describeEvent, formatTime } from '../model/details';
import { faultLabel, LABEL_PAD_PX, moreSuffix, placeLabels, relistLabel } from '../model/markLabels';
import { lowerBound, upperBound } from '../model/packed';
import type { TimelineData } from '../model/timelineData';
import type { TimeScale } from './canvasLanes';
import type { LaneBand } from './layout';

type G = Selection<SVGGElement, unknown, null, undefined>;

const MAX_LABELS = 200;

/**
 * The time axis. On a compare view's shared axis `offset` is where this view's time 0 lies: the
 * axis is drawn in shared time, so every view has the same round ticks at the same x.
 */
export function drawAxis(g: G, x: ScaleLinear<number, number>, width: number, offset = 0): void {
  const [d0, d1] = x.domain();
  const shown = offset === 0 ? x : x.copy().domain([d0 + offset, d1 + offset]);
  // Trace times count from the session's start, so d3's round tick values are round times.
  const axis = axisBottom(shown)
    .ticks(Math.max(2, Math.floor(width / 90)))
    .tickFormat((v) => formatTime(Number(v)));
  g.call(axis as never);
  // Tick labels near the edges are anchored inwards, so none is clipped by the plot.
  g.selectAll<SVGGElement, number>('.tick').each(function (v) {
    const px = shown(Number(v));
    select(this)
      .select('text')
      .attr('text-anchor', px > width - 36 ? 'end' : px < 36 ? 'start' : 'middle');
  });
  g.attr('aria-hidden', 'true');
}

interface LabelRow {
  seq: number;
  px: number;
  text: string;
  label: string;
  showText: boolean;
  leftOfMark: boolean;
  more: number;
}

/**
 * The loud marks' labels in the marks band: "RELIST <reason>" on the top row and "FAULT <what>"
 * on the row below, so a fault and the relist it caused read side by side. Each is an element
 * with the full description as its accessible label; each row keeps its labels from overlapping.
 */
export function drawMarkLabels(g: G, data: TimelineData, x: TimeScale, band: LaneBand, width: number, faultColour: string): void {
  const { t, kind, seq, reason } = data.marks.columns;
  const [t0, t1] = x.domain();
  const from = lowerBound(t, data.marks.length, t0);
  const to = upperBound(t, data.marks.length, t1);
  const relists: Omit<LabelRow, 'showText' | 'leftOfMark' | 'more'>[] = [];
  const faults: Omit<LabelRow, 'showText' | 'leftOfMark' | 'more'>[] = [];
  for (let i = from; i < to && relists.length + faults.length < MAX_LABELS; i++) {
    if (kind[i] === MarkKind.Relist) {
      const e = data.bySeq(seq[i]);
      relists.push({ seq: seq[i], px: x(t[i]), text: relistLabel(RELIST_REASONS[reason[i]] ?? 'Other'), label: e ? describeEvent(e) : 'relist' });
    } else if (kind[i] === MarkKind.Fault) {
      const e = data.bySeq(seq[i]);
      if (e?.type !== 'fault.injected') continue;
      faults.push({ seq: seq[i], px: x(t[i]), text: faultLabel(e.fault, e.detail), label: describeEvent(e) });
    }
  }
  const placed = (rows: typeof relists): LabelRow[] => {
    const where = placeLabels(rows, width);
    return rows.map((r, i) => ({ ...r, ...where[i] }));
  };
  joinLabels(g, 'relist', placed(relists), band.y, 11);
  joinLabels(g, 'fault', placed(faults), band.y, 24).select('text').style('fill', faultColour);
}

function joinLabels(g: G, cls: string, rows: LabelRow[], y: number, baseline: number) {
  const groups = g
    .selectAll<SVGGElement, LabelRow>(`g.${cls}`)
    .data(rows, (d) => String(d.seq))
    .join((enter) => {
      const ge = enter.append('g').attr('class', cls).attr('role', 'img');
      ge.append('title');
      ge.append('text').attr('class', 'relist-label');
      return ge;
    });
  groups
    .attr('transform', (d) => `translate(${d.px},${y})`)
    .attr('aria-label', (d) => d.label)
    .attr('data-seq', (d) => d.seq);
  groups.select('title').text((d) => d.label);
  groups
    .select('text')
    .attr('x', (d) => (d.leftOfMark ? -LABEL_PAD_PX : LABEL_PAD_PX))
    .attr('text-anchor', (d) => (d.leftOfMark ? 'end' : 'start'))
    .attr('y', baseline)
    .style('display', (d) => (d.showText ? null : 'none'))
    .text((d) => d.text + moreSuffix(d.more));
  return groups;
}

export function drawSelection(g: G, px: number | undefined, band: LaneBand | undefined, height: number): void {
  const rows = px === undefined || band === undefined ? [] : [{ px, band }];
  g.selectAll<SVGGElement, (typeof rows)[number]>('g.selection')
    .data(rows)
    .join((enter) => {
      const ge = enter.append('g').attr('class', 'selection').attr('aria-hidden', 'true');
      ge.append('line').attr('class', 'selection-line');
      ge.append('rect').attr('class', 'selection-box');
      return ge;
    })
    .call((sel) => {
      sel.select('line').attr('x1', (d) => d.px).attr('x2', (d) => d.px).attr('y1', 0).attr('y2', height);
      sel
        .select('rect')
        .attr('x', (d) => d.px - 6)
        .attr('y', (d) => d.band.y - 1)
        .attr('width', 12)
        .attr('height', (d) => d.band.height + 2);
    });
}

/**
 * One labelled group per visible cache consistency check, at the bottom of the marks band (the
 * relist labels use the top): "CACHE OK" or what differed, so a check's verdict is readable
 * without selecting it.
 */
export function drawCheckLabels(g: G, data: TimelineData, x: TimeScale, band: LaneBand, width: number): void {
  const { t, kind, seq } = data.marks.columns;
  const [t0, t1] = x.domain();
  const from = lowerBound(t, data.marks.length, t0);
  const to = upperBound(t, data.marks.length, t1);
  const rows: { seq: number; px: number; text: string; ok: boolean; label: string }[] = [];
  for (let i = from; i < to && rows.length < MAX_LABELS; i++) {
    if (kind[i] !== MarkKind.Consistency) continue;
    const e = data.bySeq(seq[i]);
    if (!e || e.type !== 'consistency.check') continue;
    const problems = [
      e.missing.length ? `${e.missing.length} missing` : '',
      e.extra.length ? `${e.extra.length} extra` : '',
      e.rvMismatch.length ? `${e.rvMismatch.length} stale` : '',
    ].filter(Boolean);
    rows.push({
      seq: seq[i],
      px: x(t[i]),
      text: problems.length === 0 ? 'CACHE OK' : `CACHE ${problems.join(', ')}`,
      ok: problems.length === 0,
      label: describeEvent(e),
    });
  }
  const groups = g
    .selectAll<SVGGElement, (typeof rows)[number]>('g.check')
    .data(rows, (d) => String(d.seq))
    .join((enter) => {
      const ge = enter.append('g').attr('class', 'check').attr('role', 'img');
      ge.append('title');
      ge.append('text').attr('class', 'check-label');
      return ge;
    });
  groups
    .attr('transform', (d) => `translate(${d.px},${band.y + band.height})`)
    .attr('aria-label', (d) => d.label)
    .attr('data-seq', (d) => d.seq)
    .classed('check-problem', (d) => !d.ok);
  groups.select('title').text((d) => d.label);
  groups
    .select('text')
    .attr('x', (d) => (d.px > width - 120 ? -6 : 6))
    .attr('text-anchor', (d) => (d.px > width - 120 ? 'end' : 'start'))
    .attr('y', -3)
    .text((d) => d.text);
}
