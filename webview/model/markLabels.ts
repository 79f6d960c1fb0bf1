/**
 * The text labels of the loud marks (relists and injected faults) and where they go. Pure: the
 * overlay draws what this decides. Labels are placed without measuring the DOM (a width
 * estimate per character), never overlap within a row, and near the right edge (where live data
 * arrives) go left of their mark.
 */

/** Width estimate of the 11 px bold label font. */
export const LABEL_CHAR_PX = 7;
/** Space between a mark and its label. */
export const LABEL_PAD_PX = 8;
export const MIN_LABEL_GAP_PX = 12;

export interface LabelPlacement {
  /** False when the text would overlap a label already placed (the mark keeps its accessible label). */
  showText: boolean;
  leftOfMark: boolean;
  /** On a shown label: how many hidden labels nearby it stands for (drawn as " +N"); 0 otherwise. */
  more: number;
}

/** " +3": what a shown label adds for the hidden labels it stands for. */
export function moreSuffix(more: number): string {
  return more > 0 ? ` +${more}` : '';
}

/** The horizontal extent [start, end] of a placed label, its " +N" included. */
export function labelExtent(px: number, text: string, p: LabelPlacement): [number, number] {
  const w = (text.length + moreSuffix(p.more).length) * LABEL_CHAR_PX;
  return p.leftOfMark ? [px - LABEL_PAD_PX - w, px] : [px, px + LABEL_PAD_PX + w];
}

/**
 * Places one row of labels, given in left-to-right order. Marks close together form a cluster: a
 * mark joins the cluster before it while it would sit under that cluster's label or within
 * MIN_LABEL_GAP_PX of it. A cluster shows one label, "RELIST Expired +3", to the right of its LAST
 * mark, so the text never covers a mark of the row; where it would leave the row on the right it
 * goes left of the cluster's FIRST mark instead. A label that cannot be shown without overlapping
 * the label or a mark before it is counted (with its cluster) on the shown label before it, or, at
 * the left edge, on the first shown label after it. Each box keeps room for a " +N" as long as the
 * row could ever need.
 */
export function placeLabels(items: readonly { px: number; text: string }[], width: number): LabelPlacement[] {
  const reserve = (2 + String(items.length).length) * LABEL_CHAR_PX;
  const out: LabelPlacement[] = items.map(() => ({ showText: false, leftOfMark: false, more: 0 }));
  const boxWidth = (i: number) => LABEL_PAD_PX + items[i].text.length * LABEL_CHAR_PX + reserve;
  /** Where the row is taken up to: the end of the last shown label, or the last mark. */
  let taken = Number.NEGATIVE_INFINITY;
  let lastShown = -1;
  let orphans = 0;
  let i = 0;
  while (i < items.length) {
    // Grow the cluster from i while the next mark would lie under (or too near) a label right of the cluster's last mark.
    let last = i;
    while (last + 1 < items.length && items[last + 1].px < items[last].px + boxWidth(last) + MIN_LABEL_GAP_PX) last++;
    const size = last - i + 1;
    const fitsRight = items[last].px + boxWidth(last) <= width;
    const leftStart = items[i].px - boxWidth(i);
    const shown = fitsRight ? last : leftStart >= 0 && leftStart - taken >= MIN_LABEL_GAP_PX ? i : -1;
    if (shown >= 0) {
      out[shown] = { showText: true, leftOfMark: !fitsRight, more: size - 1 + orphans };
      orphans = 0;
      lastShown = shown;
      taken = out[shown].leftOfMark ? items[last].px : items[shown].px + boxWidth(shown);
    } else {
      if (lastShown >= 0) out[lastShown].more += size;
      else orphans += size;
      taken = Math.max(taken, items[last].px);
    }
    i = last + 1;
  }
  return out;
}

export function relistLabel(reason: string): string {
  return `RELIST ${reason}`;
}

/**
 * "FAULT refuse connections 3s": the fault's name in words and, where the injector's detail
 * carries one, its main parameter (how long, which handler, the Retry-After).
 */
export function faultLabel(fault: string, detail = ''): string {
  const words = fault.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return `FAULT ${[words, faultParameter(fault, detail)].filter(Boolean).join(' ')}`;
}

function faultParameter(fault: string, detail: string): string {
  if (fault === 'refuseConnections') {
    const m = /for (\d+(?:\.\d+)?) ms/.exec(detail);
    return m ? seconds(Number(m[1])) : '';
  }
  if (fault === 'slowHandler') {
    const m = /^(\S+) takes (\d+) ms/.exec(detail);
    return m ? `${m[1]} ${m[2]} ms` : '';
  }
  if (fault === 'tooManyRequests') {
    const m = /Retry-After (\d+)s/.exec(detail);
    return m ? `(Retry-After ${m[1]}s)` : '';
  }
  return '';
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Number((ms / 1000).toFixed(1))}s`;
}
