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
  /** False when the text would overlap the previous label (the mark keeps its accessible label). */
  showText: boolean;
  leftOfMark: boolean;
}

/** Places one row of labels, given in left-to-right order. */
export function placeLabels(items: readonly { px: number; text: string }[], width: number): LabelPlacement[] {
  let lastTextEnd = Number.NEGATIVE_INFINITY;
  return items.map(({ px, text }) => {
    const textWidth = text.length * LABEL_CHAR_PX;
    const leftOfMark = px + LABEL_PAD_PX + textWidth > width;
    const start = leftOfMark ? px - LABEL_PAD_PX - textWidth : px;
    const showText = start - lastTextEnd >= MIN_LABEL_GAP_PX && start >= 0;
    if (showText) lastTextEnd = leftOfMark ? px : px + LABEL_PAD_PX + textWidth;
    return { showText, leftOfMark };
  });
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
