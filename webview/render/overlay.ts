/**
 * The SVG layer over the canvas: time axis, the relist reason labels (relists are rare and must
 * be loud, readable and reachable by assistive technology, so each is an element with a label),
 * and the selection marker. Text goes through `.text()` only; cluster data is never markup.
 */
import { axisBottom, type Selection } from 'd3';
import { MarkKind, RELIST_REASONS } from '../model/codes';
import { describeEvent, formatMs } from '../model/details';
import { lowerBound, upperBound } from '../model/packed';
import type { TimelineData } from '../model/timelineData';
import type { TimeScale } from './canvasLanes';
import type { LaneBand } from './layout';

type G = Selection<SVGGElement, unknown, null, undefined>;

const MAX_LABELS = 200;
const MIN_LABEL_GAP_PX = 12;
/** Width estimate of the 11 px bold label font (no DOM measuring per frame). */
const LABEL_CHAR_PX = 7;

export function drawAxis(g: G, x: TimeScale & { ticks(n: number): number[] }, origin: number, width: number): void {
  const axis = axisBottom(x as never)
    .ticks(Math.max(2, Math.floor(width / 90)))
    .tickFormat((v) => `+${formatMs(Number(v) - origin)}`);
  g.call(axis as never);
  g.attr('aria-hidden', 'true');
}

/** One labelled group per visible relist: "RELIST <reason>", with the full description as its label. */
export function drawRelistLabels(g: G, data: TimelineData, x: TimeScale, band: LaneBand, width: number): void {
  const { t, kind, seq, reason } = data.marks.columns;
  const [t0, t1] = x.domain();
  const from = lowerBound(t, data.marks.length, t0);
  const to = upperBound(t, data.marks.length, t1);
  const rows: { seq: number; px: number; reason: string; label: string; showText: boolean; leftOfMark: boolean }[] = [];
  // Labels never overlap: one is shown only where it fits after the previous one's end; near the
  // right edge (where live data arrives) it goes left of its mark.
  let lastTextEnd = Number.NEGATIVE_INFINITY;
  for (let i = from; i < to && rows.length < MAX_LABELS; i++) {
    if (kind[i] !== MarkKind.Relist) continue;
    const e = data.bySeq(seq[i]);
    const px = x(t[i]);
    const reasonText = RELIST_REASONS[reason[i]] ?? 'Other';
    const textWidth = (7 + reasonText.length) * LABEL_CHAR_PX;
    const leftOfMark = px + 8 + textWidth > width;
    const start = leftOfMark ? px - 8 - textWidth : px;
    const showText = start - lastTextEnd >= MIN_LABEL_GAP_PX && start >= 0;
    if (showText) lastTextEnd = leftOfMark ? px : px + 8 + textWidth;
    rows.push({ seq: seq[i], px, reason: reasonText, label: e ? describeEvent(e) : 'relist', showText, leftOfMark });
  }
  const groups = g
    .selectAll<SVGGElement, (typeof rows)[number]>('g.relist')
    .data(rows, (d) => String(d.seq))
    .join((enter) => {
      const ge = enter.append('g').attr('class', 'relist').attr('role', 'img');
      ge.append('title');
      ge.append('text').attr('class', 'relist-label');
      return ge;
    });
  groups
    .attr('transform', (d) => `translate(${d.px},${band.y})`)
    .attr('aria-label', (d) => d.label)
    .attr('data-seq', (d) => d.seq);
  groups.select('title').text((d) => d.label);
  groups
    .select('text')
    .attr('x', (d) => (d.leftOfMark ? -8 : 8))
    .attr('text-anchor', (d) => (d.leftOfMark ? 'end' : 'start'))
    .attr('y', 11)
    .style('display', (d) => (d.showText ? null : 'none'))
    .text((d) => `RELIST ${d.reason}`);
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
