/**
 * Which theme colour each series of the timeline uses, as a chain of `--vscode-*` variable names
 * (first one the theme defines wins; the editor foreground is the last resort, never a
 * hard-coded colour). The canvas resolves these chains (render/palette.ts) and the legend writes
 * the same chains as CSS `var()`s, so the legend cannot drift from what the lanes draw.
 */
import type { DeltaType, ReflectorState } from '../../src/format/events';

/** A colour as `--vscode-*` names without the prefix, most preferred first. */
export type ColourChain = readonly string[];

export const FOREGROUND: ColourChain = ['editor-foreground'];
export const RED: ColourChain = ['charts-red'];
export const BLUE: ColourChain = ['charts-blue'];
export const YELLOW: ColourChain = ['charts-yellow'];
export const ORANGE: ColourChain = ['charts-orange'];
export const GREEN: ColourChain = ['charts-green'];
export const PURPLE: ColourChain = ['charts-purple'];
export const LINES: ColourChain = ['charts-lines', 'editorWidget-border'];
export const CHARTS_FOREGROUND: ColourChain = ['charts-foreground'];

export const STATE_COLOURS: Record<ReflectorState, ColourChain> = {
  listing: BLUE,
  'watch-listing': PURPLE,
  watching: GREEN,
  backoff: ORANGE,
  denied: RED,
  stopped: ['disabledForeground', ...LINES],
};

/** Replaced/ReplacedAll and Sync/SyncAll share a colour: the *All forms are the same delta for a whole replace/resync. */
export const DELTA_COLOURS: Record<DeltaType, ColourChain> = {
  Added: GREEN,
  Updated: BLUE,
  Deleted: RED,
  Replaced: PURPLE,
  Sync: YELLOW,
  ReplacedAll: PURPLE,
  SyncAll: YELLOW,
  Bookmark: FOREGROUND,
};

export const IDENTICAL_COLOUR = RED;
/** Tombstones are red diamonds in their own lane (orange is the backoff state, yellow the Sync delta). */
export const TOMBSTONE_COLOUR = RED;
export const RELIST_COLOUR = RED;
export const FAULT_COLOUR = PURPLE;
export const DEPTH_KEYS_COLOUR = BLUE;
export const DEPTH_DELTAS_COLOUR = PURPLE;

/** The chain as one CSS value: `var(--vscode-a, var(--vscode-b, var(--vscode-editor-foreground)))`. */
export function cssColour(chain: ColourChain): string {
  const names = chain[chain.length - 1] === 'editor-foreground' ? chain : [...chain, 'editor-foreground'];
  return names.reduceRight((inner, name) => (inner ? `var(--vscode-${name}, ${inner})` : `var(--vscode-${name})`), '');
}

/** The chain resolved against a lookup of the variables' values; `fallback` when none is set. */
export function resolveColour(chain: ColourChain, lookup: (name: string) => string, fallback: string): string {
  for (const name of chain) {
    const v = lookup(name).trim();
    if (v) return v;
  }
  return fallback;
}
