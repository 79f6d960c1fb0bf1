/**
 * Canvas cannot use CSS variables, so the theme's colours are read once per theme: only
 * `--vscode-*` variables (series from `--vscode-charts-*`), re-read when VS Code switches the
 * theme (it changes the body's class). A variable a theme leaves empty falls back to the
 * editor foreground, never to a hard-coded colour.
 */
import { DELTA_TYPES, MarkKind, NOTIFY_KIND_COUNT, REFLECTOR_STATES } from '../model/codes';

export interface Palette {
  foreground: string;
  muted: string;
  background: string;
  grid: string;
  border: string;
  focus: string;
  selection: string;
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
  const fg = style.getPropertyValue('--vscode-editor-foreground').trim() || style.color;
  const v = (name: string, fallback = fg) => style.getPropertyValue(`--vscode-${name}`).trim() || fallback;
  const red = v('charts-red');
  const blue = v('charts-blue');
  const yellow = v('charts-yellow');
  const orange = v('charts-orange');
  const green = v('charts-green');
  const purple = v('charts-purple');
  const chartsFg = v('charts-foreground');
  const lines = v('charts-lines', v('editorWidget-border'));
  const highContrast = root.classList.contains('vscode-high-contrast') || root.classList.contains('vscode-high-contrast-light');
  const stateColours: Record<(typeof REFLECTOR_STATES)[number], string> = {
    listing: blue,
    'watch-listing': purple,
    watching: green,
    backoff: orange,
    stopped: v('disabledForeground', lines),
  };
  const deltaColours: Partial<Record<(typeof DELTA_TYPES)[number], string>> = {
    Added: green,
    Updated: blue,
    Deleted: red,
    Replaced: purple,
    Sync: yellow,
    ReplacedAll: purple,
    SyncAll: yellow,
  };
  return {
    foreground: fg,
    muted: v('descriptionForeground'),
    background: v('editor-background', v('panel-background')),
    grid: lines,
    border: v('contrastBorder', lines),
    focus: v('focusBorder'),
    selection: v('editor-selectionBackground', v('focusBorder')),
    states: REFLECTOR_STATES.map((s) => stateColours[s]),
    marks: {
      [MarkKind.List]: blue,
      [MarkKind.ListError]: v('errorForeground', red),
      [MarkKind.WatchStart]: green,
      [MarkKind.WatchEnd]: green,
      [MarkKind.Relist]: red,
      [MarkKind.Resync]: purple,
      [MarkKind.Bookmark]: yellow,
      [MarkKind.Fault]: orange,
      [MarkKind.Consistency]: chartsFg,
      [MarkKind.Synced]: chartsFg,
    },
    deltas: DELTA_TYPES.map((d) => deltaColours[d] ?? fg),
    identical: red,
    tombstone: orange,
    depthKeys: blue,
    depthDeltas: purple,
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
