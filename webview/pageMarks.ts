/**
 * What the timeline page writes on its elements for end-to-end checks and benchmarks to read, and
 * nothing draws: how many marks of a kind the lanes hold (the header's data attributes), that the
 * frame showing a snapshot was painted (`data-drawn-events`), and when the page reached each step
 * of showing its first snapshot (`data-t-*`).
 */
import type { TimelineData } from './model/timelineData';
import type { MarkKind } from './model/codes';

/** How many marks of a kind the lanes hold. */
export function countMarks(data: TimelineData, kind: MarkKind): number {
  const k = data.marks.columns.kind;
  let n = 0;
  for (let i = 0; i < data.marks.length; i++) if (k[i] === kind) n++;
  return n;
}

/**
 * The first time the page reached a step of showing its first snapshot (Date.now(), on the root as
 * data-t-script, -first-part, -snapshot, -applied, -drawn): what bench/traceOpen.ts reads to tell
 * where an open's time went. Later snapshots leave them as they are.
 */
export function stampOnce(root: HTMLElement, step: 'tScript' | 'tFirstPart' | 'tSnapshot' | 'tApplied' | 'tDrawn'): void {
  if (root.dataset[step] === undefined) root.dataset[step] = String(Date.now());
}

/**
 * Once the frame that draws a snapshot of `count` events has been painted (two animation frames
 * on), the root says how many events it shows (`data-drawn-events`): what tests and benchmarks
 * wait for. Until then it says nothing.
 */
export function markDrawn(root: HTMLElement, count: number): void {
  delete root.dataset.drawnEvents;
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      root.dataset.drawnEvents = String(count);
      stampOnce(root, 'tDrawn');
    }),
  );
}
