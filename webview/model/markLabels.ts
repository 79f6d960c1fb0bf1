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
 * Places one row of labels, given in left-to-right order. A label is shown when its box (with
 * room for a " +N" as long as the row could ever need) starts at least MIN_LABEL_GAP_PX after the
 * previous shown box and inside the row; a label that is not shown is counted on the shown label
 * before it (or, at the left edge, the first one after it), which then reads "RELIST Expired +3".
 */
export function placeLabels(items: readonly { px: number; text: string }[], width: number): LabelPlacement[] {
  const reserve = (2 + String(items.length).length) * LABEL_CHAR_PX;
  let lastTextEnd = Number.NEGATIVE_INFINITY;
  let lastShown = -1;
  let orphans = 0;
  const out: LabelPlacement[] = items.map(({ px, text }) => {
    const textWidth = text.length * LABEL_CHAR_PX + reserve;
    const leftOfMark = px + LABEL_PAD_PX + textWidth > width;
    const start = leftOfMark ? px - LABEL_PAD_PX - textWidth : px;
    const showText = start - lastTextEnd >= MIN_LABEL_GAP_PX && start >= 0;
    if (showText) lastTextEnd = leftOfMark ? px : px + LABEL_PAD_PX + textWidth;
    return { showText, leftOfMark, more: 0 };
  });
  out.forEach((p, i) => {
    if (p.showText) {
      lastShown = i;
      p.more += orphans;
      orphans = 0;
    } else if (lastShown >= 0) out[lastShown].more++;
    else orphans++;
  });
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
