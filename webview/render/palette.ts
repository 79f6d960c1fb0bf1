/**
 * Canvas cannot use CSS variables, so the theme's colours are read once per theme: only
 * `--vscode-*` variables (series from `--vscode-charts-*`), re-read when VS Code switches the
 * theme (it changes the body's class). A variable a theme leaves empty falls back to the
 * editor foreground, never to a hard-coded colour.
 */
import { DELTA_TYPES, MarkKind, NOTIFY_KIND_COUNT, REFLECTOR_STATES } from '../model/codes';
import { MARK_STYLES } from '../model/marks';
import {
  BLUE,
  DELTA_COLOURS,
  DEPTH_DELTAS_COLOUR,
  DEPTH_KEYS_COLOUR,
  GREEN,
  IDENTICAL_COLOUR,
  LINES,
  ORANGE,
  RED,
  resolveColour,
  STATE_COLOURS,
  TOMBSTONE_COLOUR,
  YELLOW,
  type ColourChain,
} from '../model/colours';

export interface Palette {
  foreground: string;
  muted: string;
  background: string;
  grid: string;
  border: string;
  focus: string;
  selection: string;
  /** The UI font family, for canvas text (a canvas font cannot use var()). */
  fontFamily: string;
  states: string[];
  marks: Record<MarkKind, string>;
  deltas: string[];
  identical: string;
  tombstone: string;
  depthKeys: string;
  depthDeltas: string;
  notify: string[];
  highContrast: boolean;
}

export function readPalette(root: HTMLElement = document.body): Palette {
  const style = getComputedStyle(root);
  const lookup = (name: string) => style.getPropertyValue(`--vscode-${name}`);
  const fg = lookup('editor-foreground').trim() || style.color;
  const c = (chain: ColourChain) => resolveColour(chain, lookup, fg);
  const v = (name: string, fallback = fg) => resolveColour([name], lookup, fallback);
  const red = c(RED);
  const blue = c(BLUE);
  const yellow = c(YELLOW);
  const orange = c(ORANGE);
  const green = c(GREEN);
  const lines = c(LINES);
  const highContrast = root.classList.contains('vscode-high-contrast') || root.classList.contains('vscode-high-contrast-light');
  return {
    foreground: fg,
    muted: v('descriptionForeground'),
    background: v('editor-background', v('panel-background')),
    grid: lines,
    border: v('contrastBorder', lines),
    focus: v('focusBorder'),
    selection: v('editor-selectionBackground', v('focusBorder')),
    fontFamily: lookup('font-family').trim() || style.fontFamily || 'sans-serif',
    states: REFLECTOR_STATES.map((s) => c(STATE_COLOURS[s])),
    marks: Object.fromEntries(Object.entries(MARK_STYLES).map(([k, m]) => [k, c(m.colour)])) as unknown as Record<MarkKind, string>,
    deltas: DELTA_TYPES.map((d) => c(DELTA_COLOURS[d])),
    identical: c(IDENTICAL_COLOUR),
    tombstone: c(TOMBSTONE_COLOUR),
    depthKeys: c(DEPTH_KEYS_COLOUR),
    depthDeltas: c(DEPTH_DELTAS_COLOUR),
    notify: [green, blue, red, yellow, red, orange].slice(0, NOTIFY_KIND_COUNT),
    highContrast,
  };
}

/** Calls fn whenever VS Code switches theme (class change on body). Returns the disconnect. */
export function onThemeChange(fn: () => void, root: HTMLElement = document.body): () => void {
  const observer = new MutationObserver(fn);
  observer.observe(root, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind'] });
  return () => observer.disconnect();
}
