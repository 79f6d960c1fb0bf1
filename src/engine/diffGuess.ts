/**
 * The update comparison's first guess (diff.ts memberChanges): an update's old object is most
 * often the new side of the previous update of the same key, and the next update changes the
 * same fields again (a resourceVersion, a condition's timestamps). So each comparison records on
 * its new object's state where in that object's text it found the values that differ
 * (textDiff.ts's windows), and the next comparison of that object as the old side checks first
 * whether the new text is the old one outside those same values.
 *
 * Why the guess, when it holds, is the comparison's answer: the windows were found by diffWindow
 * (or by this guess, from windows it found) for a pair (A0, A1), and A1 is A0 outside them, so
 * everything diffWindow checked of A0's text outside its windows (the keys on each window's path,
 * no repeat of a key after it, for several windows of one container: each key once among the
 * container's members, no backslash in them, none digit-first) holds of A1 the same way: it is
 * the same text, and a window's value holds no key of the container or of a level above it. If
 * the new text A2 is A1 outside the windows (the texts between them compared, each window's end
 * in A2 found by valueEnd from the same start, which is where a value starts as in A1), the
 * parser reads A1 and A2 alike but for those values, at the same paths, in the same order: the
 * changes are those of each pair of window values below its path, in text order, as diffWindow's
 * own windows give them. A window whose values are the same text gives no change. When the guess
 * does not hold, the comparison is diffWindow's, as without it.
 *
 * The record is kept in the state itself, which V8 allocates in the old generation (lazyObject.ts
 * newLazyState), so it adds nothing a scavenge copies: `windows`, a shape shared by every object
 * whose differences were at the same paths (the member's key and each window's path node; one or
 * two windows), and `span0`/`span1`, each window's start and length from the member value's
 * start packed in one small integer. One member per object: the first whose windows fit.
 */
import type { PathNode } from './diffPaths';
import type { LazyState } from './lazyObject';
import { valueEnd } from './textDiff';

/** The member and the path nodes of a record's windows (one or two). */
export interface WindowShape {
  readonly key: string;
  readonly first: PathNode;
  readonly second: PathNode | undefined;
}

/** The shapes handed out last, a ring searched from the newest (past MAX_SHAPES the oldest is replaced). */
const shapes: (WindowShape | undefined)[] = new Array<WindowShape | undefined>(32).fill(undefined);
let nextShape = 0;

function shapeOf(key: string, first: PathNode, second: PathNode | undefined): WindowShape {
  const n = shapes.length;
  for (let k = 1; k <= n; k++) {
    const s = shapes[(nextShape - k + n) % n];
    if (s === undefined) break;
    if (s.key === key && s.first === first && s.second === second) return s;
  }
  const s: WindowShape = { key, first, second };
  shapes[nextShape] = s;
  nextShape = (nextShape + 1) % n;
  return s;
}

/** A span's start below 2^16 and length below 2^15: one small integer (a V8 Smi); -1 when it does not fit. */
function packSpan(start: number, end: number): number {
  const length = end - start;
  return start < 0 || start >= 1 << 16 || length <= 0 || length >= 1 << 15 ? -1 : start * (1 << 15) + length;
}

function spanStart(span: number): number {
  return Math.floor(span / (1 << 15));
}

function spanEnd(span: number): number {
  return spanStart(span) + (span % (1 << 15));
}

/** How many member comparisons the guess settled (the tests read it to see that it is exercised). */
export const guessStats = { held: 0 };

/** Where the last guessSpans that held found each window in the new text. */
export const guessed = { start0: 0, end0: 0, start1: 0, end1: 0 };

/** The record of a state for member `key`, when it has one. */
export function shapeFor(s: LazyState, key: string): WindowShape | undefined {
  const shape = s.windows as WindowShape | undefined;
  return shape !== undefined && shape.key === key ? shape : undefined;
}

/** The start of window w (0 or 1) of a state's record, from the member value's start. */
export function windowStart(s: LazyState, w: number): number {
  return spanStart(w === 0 ? s.span0 : s.span1);
}

/** The end of window w (0 or 1) of a state's record, from the member value's start. */
export function windowEnd(s: LazyState, w: number): number {
  return spanEnd(w === 0 ? s.span0 : s.span1);
}

/**
 * Whether the member value a[as, ae), whose windows are in state sa's record, is the same text as
 * b[bs, be) outside them (see the file comment); when it is, each window's span in b is in `guessed`.
 */
export function guessSpans(sa: LazyState, shape: WindowShape, a: string, as: number, ae: number, b: string, bs: number, be: number): boolean {
  const n = shape.second === undefined ? 1 : 2;
  let pa = as;
  let pb = bs;
  for (let w = 0; w < n; w++) {
    const s = as + windowStart(sa, w);
    const e = as + windowEnd(sa, w);
    const sb = pb + (s - pa);
    if (e > ae || sb >= be) return false;
    if (s > pa && a.slice(pa, s) !== b.slice(pb, sb)) return false;
    const eb = valueEnd(b, sb);
    if (eb <= sb || eb > be) return false;
    if (w === 0) {
      guessed.start0 = sb;
      guessed.end0 = eb;
    } else {
      guessed.start1 = sb;
      guessed.end1 = eb;
    }
    pa = e;
    pb = eb;
  }
  if (ae - pa !== be - pb || (ae !== pa && a.slice(pa, ae) !== b.slice(pb, be))) return false;
  guessStats.held++;
  return true;
}

/** The record being made for a comparison's new object (recordStart … recordEnd). */
let rKey: string | undefined;
let rCount = 0;
let rFirst: PathNode | undefined;
let rSecond: PathNode | undefined;
let rSpan0 = -1;
let rSpan1 = -1;
/** Whether the member being recorded still fits (at most two windows, each span packed). */
let rFits = false;
/** Whether a member's record is complete (the first one that fits is kept). */
let rDone = false;

export function recordStart(): void {
  rKey = undefined;
  rDone = false;
  rFits = false;
}

/** Starts the record of member `key` with n windows (kept only when no member was recorded yet and n ≤ 2). */
export function recordMember(key: string, n: number): void {
  rFits = !rDone && n >= 1 && n <= 2;
  if (!rFits) return;
  rKey = key;
  rCount = 0;
  rFirst = rSecond = undefined;
  rSpan0 = rSpan1 = -1;
}

/** A window of the member recorded last: its path node and its span from the member value's start. */
export function recordWindow(node: PathNode, start: number, end: number): void {
  if (!rFits) return;
  const span = packSpan(start, end);
  if (span < 0) {
    rFits = false;
    return;
  }
  if (rCount++ === 0) {
    rFirst = node;
    rSpan0 = span;
  } else {
    rSecond = node;
    rSpan1 = span;
  }
}

/** The member recorded last is complete: kept if it fit. */
export function recordMemberEnd(): void {
  if (rFits) rDone = true;
}

/** A member whose text is the same on both sides keeps the old object's record of it (same text, same windows). */
export function recordCopy(sa: LazyState, shape: WindowShape): void {
  if (rDone) return;
  rDone = true;
  rKey = shape.key;
  rFirst = shape.first;
  rSecond = shape.second;
  rSpan0 = sa.span0;
  rSpan1 = sa.span1;
}

/** Writes the record made into the new object's state (none when no member fit). */
export function recordEnd(sb: LazyState, done: boolean): void {
  if (!done || !rDone || rKey === undefined || rFirst === undefined) {
    sb.windows = undefined;
    return;
  }
  sb.windows = shapeOf(rKey, rFirst, rSecond);
  sb.span0 = rSpan0;
  sb.span1 = rSpan1;
}
