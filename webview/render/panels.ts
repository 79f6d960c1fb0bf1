/**
 * The DOM around the chart: the summary header, the toolbar, the details pane and the findings.
 * Every value is written with textContent (cluster data is text, never markup). Components get
 * callbacks; they never touch the transport (main.ts does).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import type { SessionInfo } from '../../src/protocol/timeline';
import type { Finding, StaleWindow } from '../../src/format/trace';
import { relistsText } from '../../src/protocol/summary';
import type { EventDetails } from '../model/details';
import type { HistoryRow } from '../model/history';
import { SUMMARY_CHIP_HELP, type SummaryChipKey, type SummarySnapshot } from '../model/summary';

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** One "label: value" chip of the summary header; `loud` marks values that signal trouble. The tooltip says what it counts. */
function chip(key: SummaryChipKey | 'simulated', label: string, value: string, loud = false, title?: string): HTMLElement {
  const c = el('span', loud ? 'chip loud' : 'chip');
  c.dataset.k = key;
  c.append(el('span', 'chip-label', label), el('span', 'chip-value', value));
  const help = title ?? (key === 'simulated' ? undefined : SUMMARY_CHIP_HELP[key]);
  if (help) c.title = help;
  return c;
}

/** `findings`: their number, or what stands in for it while they are not known ("computing…"). */
export function renderSummary(host: HTMLElement, s: SummarySnapshot, findings: number | string, session: SessionInfo | undefined): void {
  const share = s.updates === 0 ? '' : ` (${Math.round(s.identicalShare * 100)}% of updates)`;
  const chips: HTMLElement[] = [];
  if (session?.simulated) chips.push(chip('simulated', '', 'SIMULATED cluster', true, 'Data comes from the built-in simulated API server'));
  chips.push(
    chip('state', 'Reflector', s.state + (session?.live ? '' : ' (ended)')),
    chip('relists', 'Relists', relistsText(s), s.relists > 0),
    chip('identical', 'Identical updates', `${s.identicalUpdates}${share}`, s.identicalUpdates > 0),
    chip('tombstones', 'Tombstones', String(s.tombstones), s.tombstones > 0),
    ...(s.staleWindows.length > 0 ? [chip('stale', 'Stale cache', staleText(s.staleWindows), true)] : []),
    chip('rv', 'RV', s.currentRv || '—'),
    chip('fifo', 'FIFO', `${s.fifoKeys} keys / ${s.fifoDeltas} deltas`),
    chip('synced', 'Synced', s.synced ? 'yes' : 'no', !s.synced && s.lists > 0),
    chip('lists', 'Lists', String(s.lists)),
    chip('watches', 'Watches', String(s.watches)),
    chip('findings', 'Findings', String(findings), typeof findings === 'number' && findings > 0),
  );
  if (s.dropped > 0) chips.push(chip('dropped', 'Dropped (cap)', String(s.dropped), true));
  host.replaceChildren(...chips);
}

/** "1 object, 12.0 s" or "2 objects, 1 still stale": what the stale-cache chip says. */
export function staleText(windows: readonly StaleWindow[]): string {
  const keys = new Set(windows.map((w) => w.key)).size;
  const open = windows.filter((w) => w.toT === undefined).length;
  const longest = Math.max(0, ...windows.filter((w) => w.toT !== undefined).map((w) => (w.toT as number) - w.fromT));
  const objects = `${keys} ${keys === 1 ? 'object' : 'objects'}`;
  if (open > 0) return `${objects}, ${open} still stale`;
  return `${objects}, up to ${(longest / 1000).toFixed(1)} s`;
}

/** "● configmaps (all namespaces, v1.36) SIMULATED": the live state first (a narrow picker cuts the end), SIMULATED once. */
export function sessionLabel(s: SessionInfo): string {
  const simulated = s.simulated && !/SIMULATED/.test(s.title) ? ' SIMULATED' : '';
  return `${s.live ? '● ' : ''}${s.title}${simulated}`;
}

export interface ToolbarCallbacks {
  onSession(id: string): void;
  onFollow(follow: boolean): void;
  onZoom(factor: number): void;
  onReset(): void;
  onExport(): void;
}

export class Toolbar {
  private readonly sessionSelect: HTMLElement & { value: string };
  private readonly followBox: HTMLElement & { checked: boolean };
  private readonly liveBadge: HTMLElement;
  private live = true;
  private follow = true;

  constructor(host: HTMLElement, cb: ToolbarCallbacks) {
    this.sessionSelect = document.createElement('vscode-single-select') as HTMLElement & { value: string };
    this.sessionSelect.setAttribute('aria-label', 'Session');
    this.sessionSelect.className = 'session-select';
    this.sessionSelect.addEventListener('change', () => cb.onSession(this.sessionSelect.value));
    this.followBox = document.createElement('vscode-checkbox') as HTMLElement & { checked: boolean };
    this.followBox.setAttribute('label', 'Follow live');
    this.followBox.addEventListener('change', () => cb.onFollow(this.followBox.checked));
    const button = (label: string, title: string, fn: () => void, secondary = true) => {
      const b = document.createElement('vscode-button');
      b.textContent = label;
      b.title = title;
      b.setAttribute('aria-label', title);
      if (secondary) b.setAttribute('secondary', '');
      b.addEventListener('click', fn);
      return b;
    };
    this.liveBadge = el('span', 'live-badge');
    host.append(
      this.sessionSelect,
      this.liveBadge,
      this.followBox,
      Object.assign(button('−', 'Zoom out', () => cb.onZoom(0.5)), { className: 'zoom-button' }),
      Object.assign(button('+', 'Zoom in', () => cb.onZoom(2)), { className: 'zoom-button' }),
      button('Reset', 'Show the whole trace and follow live', cb.onReset),
      Object.assign(button('Export trace…', 'Save this trace as .informer-trace.json', cb.onExport, false), { className: 'export-button' }),
    );
  }

  setSessions(sessions: readonly SessionInfo[], activeId: string | undefined): void {
    const options = sessions.map((s) => {
      const o = document.createElement('vscode-option') as HTMLElement & { value: string; selected: boolean };
      o.value = s.id;
      o.textContent = sessionLabel(s);
      o.selected = s.id === activeId;
      return o;
    });
    this.sessionSelect.replaceChildren(...options);
    if (activeId) this.sessionSelect.value = activeId;
    // The picker is narrow and truncates: the full title of the shown session as its tooltip.
    this.sessionSelect.title = options.find((o) => o.value === activeId)?.textContent ?? '';
    this.sessionSelect.hidden = sessions.length < 2;
  }

  /** An ended or imported trace has nothing to follow: the checkbox is then unchecked and disabled. */
  setLive(live: boolean): void {
    this.live = live;
    this.liveBadge.textContent = live ? '● live' : 'ended';
    this.liveBadge.classList.toggle('on', live);
    this.followBox.toggleAttribute('disabled', !live);
    this.followBox.title = live ? 'Keep the newest events in view' : 'The trace has ended: there is nothing new to follow';
    this.setFollow(this.follow);
  }

  setFollow(follow: boolean): void {
    this.follow = follow;
    this.followBox.checked = follow && this.live;
  }
}

export function renderDetails(host: HTMLElement, d: EventDetails | undefined): void {
  if (!d) {
    host.replaceChildren(el('p', 'muted', 'Select an event (click, or focus the timeline and use the arrow keys) to see its details.'));
    return;
  }
  const parts: HTMLElement[] = [el('h3', 'details-title', d.title)];
  const dl = el('dl', 'details-rows');
  for (const [k, v] of d.rows) dl.append(el('dt', undefined, k), el('dd', undefined, v));
  parts.push(dl);
  if (d.reasonText) parts.push(el('h4', undefined, 'client-go says'), el('pre', 'reason-text', d.reasonText));
  if (d.request) parts.push(el('h4', undefined, 'Request sent'), el('pre', 'request-text', d.request));
  if (d.diff) {
    parts.push(el('h4', undefined, d.diff.length === 0 ? 'Diff: old and new objects are identical' : 'Diff'));
    if (d.diff.length > 0) {
      const table = el('table', 'diff');
      const head = el('tr');
      head.append(el('th', undefined, 'field'), el('th', undefined, 'old'), el('th', undefined, 'new'));
      table.append(head);
      for (const c of d.diff) {
        const tr = el('tr');
        tr.append(el('td', undefined, c.path), el('td', 'old', show(c.old)), el('td', 'new', show(c.new)));
        table.append(tr);
      }
      parts.push(table);
    }
  }
  host.replaceChildren(...parts);
}

function show(v: unknown): string {
  if (v === undefined) return '∅';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * The findings as one-line headlines (severity and title); the detail, the advice and the
 * buttons open under a headline on demand (a native <details>, keyboard-operable).
 */
export function renderFindings(host: HTMLElement, findings: readonly Finding[], onSelect: (seq: number) => void, onLink: (url: string) => void, note?: string): void {
  // The findings are not known yet (or could not be computed): the line that says so.
  if (note !== undefined) {
    host.replaceChildren(el('p', 'muted findings-note', note));
    return;
  }
  if (findings.length === 0) {
    host.replaceChildren(el('p', 'muted', 'No findings.'));
    return;
  }
  // A live session's findings are re-rendered as they change: the ones the user opened stay open.
  const open = new Set([...host.querySelectorAll<HTMLElement>('li.finding')].filter((li) => li.querySelector('details')?.open).map((li) => li.dataset.id));
  const list = el('ul', 'findings');
  for (const f of findings) {
    const li = el('li', `finding ${f.severity}`);
    li.dataset.id = f.id;
    const item = el('details', 'finding-item');
    item.open = open.has(f.id);
    const head = el('summary', 'finding-head');
    head.append(el('span', 'severity', f.severity.toUpperCase()), el('span', 'finding-title', f.title));
    head.title = f.title;
    const body = el('div', 'finding-body');
    body.append(el('p', undefined, f.detail), el('p', 'advice', f.advice));
    if (f.evidence.length > 0) {
      const b = el('button', 'link-button', `Show evidence (${f.evidenceCount ?? f.evidence.length})`);
      b.addEventListener('click', () => onSelect(f.evidence[0]));
      body.append(b);
    }
    if (f.link) {
      const url = f.link;
      const b = el('button', 'link-button', 'Upstream issue');
      b.title = url;
      b.addEventListener('click', () => onLink(url));
      body.append(b);
    }
    item.append(head, body);
    li.append(item);
    list.append(li);
  }
  host.replaceChildren(list);
}

export type LowerTab = 'findings' | 'details';

/**
 * The panel under the chart: two tabs, "Findings (N)" and "Details", one shown at a time in a
 * region that scrolls by itself, so reading never scrolls the chart away.
 */
export class LowerTabs {
  private readonly buttons: Record<LowerTab, HTMLButtonElement>;
  private readonly panels: Record<LowerTab, HTMLElement>;
  private current: LowerTab = 'findings';

  constructor(host: HTMLElement, findings: HTMLElement, details: HTMLElement) {
    const bar = el('div', 'tabs');
    bar.setAttribute('role', 'tablist');
    const make = (tab: LowerTab, panel: HTMLElement): HTMLButtonElement => {
      const b = el('button', 'tab');
      b.id = `tab-${tab}`;
      b.setAttribute('role', 'tab');
      panel.setAttribute('role', 'tabpanel');
      panel.setAttribute('aria-labelledby', b.id);
      b.addEventListener('click', () => this.show(tab));
      bar.append(b);
      return b;
    };
    this.panels = { findings, details };
    this.buttons = { findings: make('findings', findings), details: make('details', details) };
    this.buttons.details.textContent = 'Details';
    host.prepend(bar);
    this.setFindingsCount(0);
    this.show('findings');
  }

  get shown(): LowerTab {
    return this.current;
  }

  show(tab: LowerTab): void {
    this.current = tab;
    for (const t of ['findings', 'details'] as const) {
      this.buttons[t].setAttribute('aria-selected', String(t === tab));
      this.buttons[t].tabIndex = t === tab ? 0 : -1;
      this.panels[t].hidden = t !== tab;
    }
  }

  setFindingsCount(n: number | string): void {
    this.buttons.findings.textContent = `Findings (${n})`;
  }
}

/**
 * "History of default/a (12 events)": every event that names the object, oldest first; a row
 * selects its event on the timeline.
 */
export function renderHistory(host: HTMLElement, key: string, rows: readonly HistoryRow[], total: number, onSelect: (seq: number) => void): void {
  const section = el('section', 'history');
  section.setAttribute('aria-label', `History of ${key}`);
  const shown = rows.length < total ? ` (the last ${rows.length} of ${total} events)` : ` (${total} ${total === 1 ? 'event' : 'events'})`;
  section.append(el('h4', undefined, `History of ${key}${shown}`));
  const list = el('ol', 'history-rows');
  for (const r of rows) {
    const li = el('li');
    const b = el('button', 'link-button history-row');
    b.append(el('span', 'history-time', r.time), el('span', undefined, r.text));
    b.addEventListener('click', () => onSelect(r.seq));
    li.append(b);
    list.append(li);
  }
  section.append(list);
  host.append(section);
}
