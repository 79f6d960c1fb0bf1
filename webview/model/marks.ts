/**
 * How each mark of the "Lists, watches, relists, faults" lane looks and what it means: one
 * table that the canvas (render/canvasLanes.ts), the palette and the legend all read, so every
 * mark drawn is named in the legend. Each kind has its own shape as well as its own colour, so
 * kinds stay apart in high contrast themes and for colour-blind users.
 */
import { MarkKind } from './codes';
import { BLUE, FOREGROUND, GREEN, PURPLE, RED, YELLOW, type ColourChain } from './colours';

/**
 * span: a bar over the time it took (lists end at their mark, watches start at theirs);
 * tick: a thin vertical line; relist: a full-height bar with a triangle on top; cross: an X;
 * square: a small filled square; ring: a hollow circle; dot: a filled circle; frame: a hollow square;
 * diamond: a filled diamond (tombstones, in their own lane); block: a filled area or bar.
 */
export type MarkShape = 'span' | 'tick' | 'relist' | 'cross' | 'square' | 'ring' | 'dot' | 'frame' | 'diamond' | 'block';

export interface MarkStyle {
  label: string;
  description: string;
  colour: ColourChain;
  shape: MarkShape;
}

export const ERROR_COLOUR: ColourChain = ['errorForeground', 'charts-red'];

export const MARK_STYLES: Record<MarkKind, MarkStyle> = {
  [MarkKind.List]: { label: 'list', description: 'A LIST, drawn over the time it took (upper bar).', colour: BLUE, shape: 'span' },
  [MarkKind.WatchStart]: { label: 'watch', description: 'A watch, drawn from when it opened to when it ended (lower bar).', colour: GREEN, shape: 'span' },
  [MarkKind.WatchEnd]: { label: 'watch end', description: 'A watch ended; its details say how and what followed.', colour: GREEN, shape: 'tick' },
  [MarkKind.ListError]: { label: 'list error', description: 'A LIST failed (refused, forbidden, throttled…).', colour: ERROR_COLOUR, shape: 'tick' },
  [MarkKind.Relist]: {
    label: 'relist',
    description: 'The reflector threw its watch away and LISTed everything again; the label names the reason.',
    colour: RED,
    shape: 'relist',
  },
  [MarkKind.Fault]: { label: 'fault', description: 'A fault was injected (Fault: … commands).', colour: PURPLE, shape: 'cross' },
  [MarkKind.Bookmark]: { label: 'bookmark', description: 'A BOOKMARK event moved the resourceVersion on without a change.', colour: FOREGROUND, shape: 'square' },
  [MarkKind.Resync]: { label: 'resync', description: 'A periodic resync queued every object again as Sync deltas.', colour: YELLOW, shape: 'ring' },
  [MarkKind.Consistency]: { label: 'cache check', description: 'A consistency check compared the cache with a fresh LIST; the label says what differed.', colour: FOREGROUND, shape: 'frame' },
  [MarkKind.RestRetry]: {
    label: 'REST retry',
    description: 'The REST client sent the same LIST or WATCH again below the reflector (429/5xx with Retry-After, a reset); the details say after how long and which retry.',
    colour: ERROR_COLOUR,
    shape: 'ring',
  },
  [MarkKind.Synced]: { label: 'synced', description: 'The initial list was delivered (HasSynced): the cache can be trusted from here.', colour: GREEN, shape: 'dot' },
};

/** What a row of the reflector's classification table (spec §1.10, docs/engine-reflector.md) means, in words. */
export const ROW_WORDS: Readonly<Record<number, string>> = {
  1: 'the server closed the watch at its timeout; re-watch at once',
  2: 'the watch stream ended cleanly (EOF); re-watch at once',
  3: 'the watch stream ended unexpectedly (unexpected EOF); re-watch at once',
  4: 'the connection was reset or timed out mid-stream; re-watch at once',
  5: 'a very short watch (under 1 s, no events); relist',
  6: 'the watch could not be opened: connection refused; back off and re-watch (client-go ≤ 1.15 relists)',
  7: 'the LIST failed (refused or any other error); back off and relist',
  8: 'the watch open kept failing and returned a closed watcher; re-watch',
  9: '410 Expired/Gone as an ERROR event; relist at the last resourceVersion',
  10: '410 as the HTTP status of the watch request; relist',
  11: 'the LIST got "resource version too large"; relist with a consistent read',
  12: 'watch-list got "resource version too large"; watch-list again with a consistent read',
  13: '504 Timeout / too large as an ERROR event; relist',
  14: '429 Too Many Requests opening the watch; back off and re-watch',
  15: '429 as an ERROR event in the stream; back off and re-watch',
  16: '429 on the LIST; back off and relist',
  17: '500 InternalError in the stream (also client-side decode errors); relist',
  18: 'opening the watch failed with a non-retriable status (403, 404, 500, 503…); relist',
  19: 'another ERROR event Status (403, 504…); relist',
  20: 'an ERROR event whose object is not a Status; relist',
  21: 'a bookmark: not an ending',
  22: 'an event skipped or an error logged: not an ending',
  23: 'the resync failed; relist',
  24: 'the informer was stopped',
  25: 'the LIST succeeded but its result could not be used; relist',
  26: 'watch-list stream closed without its end bookmark; watch-list again',
  27: 'watch-list failed; fall back to a LIST',
};

/** "7: the LIST failed (…); back off and relist", or just the number for a row the table does not know. */
export function rowText(row: unknown): string {
  const words = typeof row === 'number' ? ROW_WORDS[row] : undefined;
  return words ? `${row}: ${words}` : String(row);
}
