/**
 * The update comparison's first guess (diff.ts memberChanges): an update's old object is most
 * often the new side of the previous update of the same key, and the next update changes the
 * same fields again (a resourceVersion, a condition's timestamps). So each comparison records on
 * its new object's state (LazyState.windows) where in that object's text it found the values
 * that differ (textDiff.ts's windows), and the next comparison of that object as the old side
 * checks first whether the new text is the old one outside those same values.
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
 * The record, per member that had windows: its key, how many windows, then per window the path
 * node of its value and its span from the member value's start in this text. Exactly sized (it
 * lives as long as the cached object); at most MAX_GUESSED_WINDOWS windows per member are kept.
 */
import type { PathNode } from './diffPaths';
import { valueEnd } from './textDiff';

export const MAX_GUESSED_WINDOWS = 8;

/** How many member comparisons the guess settled (the tests read it to see that it is exercised). */
export const guessStats = { held: 0 };

/** Where the last guessSpans that held found each window in the new text: start, end, per window. */
export const guessedSpans = new Int32Array(2 * MAX_GUESSED_WINDOWS);

/** The index of member `key`'s entry in a record, or -1. */
export function entryOf(record: readonly unknown[], key: string): number {
  for (let i = 0; i < record.length; i += 2 + 3 * (record[i + 1] as number)) if (record[i] === key) return i;
  return -1;
}

/** How many windows the entry at `at` holds. */
export function windowCount(record: readonly unknown[], at: number): number {
  return record[at + 1] as number;
}

/** The path node of the entry's w-th window. */
export function windowNode(record: readonly unknown[], at: number, w: number): PathNode {
  return record[at + 2 + 3 * w] as PathNode;
}

/** The start of the entry's w-th window, from the member value's start. */
export function windowStart(record: readonly unknown[], at: number, w: number): number {
  return record[at + 3 + 3 * w] as number;
}

/** The end of the entry's w-th window, from the member value's start. */
export function windowEnd(record: readonly unknown[], at: number, w: number): number {
  return record[at + 4 + 3 * w] as number;
}

/**
 * Whether the member value a[as, ae), whose windows are the record's entry at `at`, is the same
 * text as b[bs, be) outside them (see the file comment); when it is, each window's span in b is
 * in guessedSpans.
 */
export function guessSpans(record: readonly unknown[], at: number, a: string, as: number, ae: number, b: string, bs: number, be: number): boolean {
  const n = windowCount(record, at);
  let pa = as;
  let pb = bs;
  for (let w = 0; w < n; w++) {
    const s = as + windowStart(record, at, w);
    const e = as + windowEnd(record, at, w);
    const sb = pb + (s - pa);
    if (e > ae || sb >= be) return false;
    if (s > pa && a.slice(pa, s) !== b.slice(pb, sb)) return false;
    const eb = valueEnd(b, sb);
    if (eb <= sb || eb > be) return false;
    guessedSpans[2 * w] = sb;
    guessedSpans[2 * w + 1] = eb;
    pa = e;
    pb = eb;
  }
  if (ae - pa !== be - pb || (ae !== pa && a.slice(pa, ae) !== b.slice(pb, be))) return false;
  guessStats.held++;
  return true;
}

/** The record being built for a comparison's new object (recordStart … recordEnd). */
const building: unknown[] = [];
/** Where the entry being added starts, or -1 when the member it is for is not kept. */
let entryAt = -1;

export function recordStart(): void {
  building.length = 0;
}

/** Starts the entry of member `key` with n windows (not kept past MAX_GUESSED_WINDOWS). */
export function recordMember(key: string, n: number): void {
  entryAt = n > MAX_GUESSED_WINDOWS ? -1 : building.length;
  if (entryAt >= 0) building.push(key, n);
}

/** A window of the member recorded last: its path node and its span from the member value's start. */
export function recordWindow(node: PathNode, start: number, end: number): void {
  if (entryAt >= 0) building.push(node, start, end);
}

/** The entry at `at` of another record, as it is (a member whose text is the same on both sides keeps its windows). */
export function recordCopy(record: readonly unknown[], at: number): void {
  const n = windowCount(record, at);
  for (let i = at; i < at + 2 + 3 * n; i++) building.push(record[i]);
}

/** The record built, exactly sized; undefined when it has no entry. */
export function recordEnd(): readonly unknown[] | undefined {
  return building.length === 0 ? undefined : building.slice();
}
