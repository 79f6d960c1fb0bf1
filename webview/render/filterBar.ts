/**
 * The filter bar under the toolbar: a search box with type-ahead over the trace's object keys
 * (Enter or "History" jumps to the object's latest event and opens its history; "Filter" narrows
 * the timeline to it), and selects for operation, delta type and handler. While any filter is on,
 * a chip says which and clears them all (its ✕ is a button; Escape in the search box clears it
 * too). Native inputs, selects and buttons: every part is reachable and usable by keyboard.
 */
import { DELTA_TYPES } from '../model/codes';
import { filterActive, filterText, matchingKeys, OPERATIONS, type FilterDelta, type Operation, type TimelineFilter } from '../model/filter';
import { el } from './panels';

export interface FilterBarCallbacks {
  /** The filter changed (the timeline rebuilds its lanes). */
  onFilter(f: TimelineFilter): void;
  /** Show this object's history (and select its latest event). */
  onFindKey(key: string): void;
  /** The object keys of the trace right now (asked when the search box is used). */
  keys(): readonly string[];
}

let instances = 0;

export class FilterBar {
  private filter: TimelineFilter = {};
  private readonly search: HTMLInputElement;
  private readonly list: HTMLDataListElement;
  private readonly op: HTMLSelectElement;
  private readonly delta: HTMLSelectElement;
  private readonly handler: HTMLSelectElement;
  private readonly chip: HTMLElement;
  private readonly chipText: HTMLElement;
  private readonly message: HTMLElement;

  constructor(host: HTMLElement, private readonly cb: FilterBarCallbacks) {
    const id = `object-keys-${++instances}`;
    host.setAttribute('role', 'search');
    host.setAttribute('aria-label', 'Find and filter');
    this.search = el('input', 'key-search');
    this.search.type = 'search';
    this.search.placeholder = 'Find object key…';
    this.search.setAttribute('aria-label', 'Find an object by key (namespace/name)');
    this.search.setAttribute('list', id);
    this.search.autocomplete = 'off';
    this.list = el('datalist');
    this.list.id = id;
    this.search.addEventListener('focus', () => this.suggest());
    this.search.addEventListener('input', () => this.suggest());
    this.search.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        this.find();
      } else if (ev.key === 'Escape' && this.search.value !== '') {
        ev.preventDefault();
        ev.stopPropagation();
        this.search.value = '';
      }
    });
    const button = (label: string, title: string, fn: () => void) => {
      const b = el('button', 'filter-button', label);
      b.type = 'button';
      b.title = title;
      b.addEventListener('click', fn);
      return b;
    };
    this.op = select('Operation', ['any operation', ...OPERATIONS], () => this.update({ op: (this.op.value || undefined) as Operation | undefined }));
    this.delta = select('Delta type', ['any delta type', ...DELTA_TYPES], () => this.update({ delta: (this.delta.value || undefined) as FilterDelta | undefined }));
    this.handler = select('Handler', ['any handler'], () => this.update({ handler: this.handler.value || undefined }));
    this.chip = el('span', 'filter-chip');
    this.chip.setAttribute('role', 'status');
    this.chipText = this.chip.appendChild(el('span', 'filter-chip-text'));
    const clear = this.chip.appendChild(button('✕', 'Clear all filters', () => this.clear()));
    clear.setAttribute('aria-label', 'Clear all filters');
    this.chip.hidden = true;
    this.message = el('span', 'filter-message');
    this.message.setAttribute('aria-live', 'polite');
    host.append(
      this.search,
      this.list,
      Object.assign(button('History', 'Show the history of the object typed in the search box (or press Enter in it)', () => this.find()), { className: 'filter-button history-button' }),
      button('Filter', 'Show only the events of the object typed in the search box', () => this.filterToKey()),
      this.op,
      this.delta,
      this.handler,
      this.chip,
      this.message,
    );
  }

  get current(): TimelineFilter {
    return this.filter;
  }

  /** The handlers the handler select offers (all of the trace's, hidden ones included). */
  setHandlers(names: readonly string[]): void {
    const want = ['', ...names];
    const have = [...this.handler.options].map((o) => o.value);
    if (want.length === have.length && want.every((v, i) => v === have[i])) return;
    const value = this.handler.value;
    this.handler.replaceChildren(option('', 'any handler'), ...names.map((n) => option(n, n)));
    this.handler.value = names.includes(value) ? value : '';
  }

  /** Clears every filter (and says so to the timeline). */
  clear(): void {
    this.set({});
  }

  /** Sets the filter without asking (a new session starts unfiltered). */
  set(f: TimelineFilter): void {
    this.filter = { ...f };
    this.op.value = f.op ?? '';
    this.delta.value = f.delta ?? '';
    this.handler.value = f.handler ?? '';
    this.showChip();
    this.cb.onFilter(this.filter);
  }

  private update(part: TimelineFilter): void {
    const next: TimelineFilter = { ...this.filter, ...part };
    for (const k of Object.keys(next) as (keyof TimelineFilter)[]) if (next[k] === undefined) delete next[k];
    this.set(next);
  }

  private suggest(): void {
    const keys = matchingKeys(this.cb.keys(), this.search.value);
    this.list.replaceChildren(...keys.map((k) => option(k, k)));
  }

  /** The key typed, if the trace has it; otherwise says so and returns undefined. */
  private typedKey(): string | undefined {
    const typed = this.search.value.trim();
    if (typed === '') return undefined;
    const keys = this.cb.keys();
    const key = keys.includes(typed) ? typed : matchingKeys(keys, typed, 2).length === 1 ? matchingKeys(keys, typed, 1)[0] : undefined;
    this.message.textContent = key === undefined ? `No object "${typed}" in this trace.` : '';
    if (key !== undefined) this.search.value = key;
    return key;
  }

  private find(): void {
    const key = this.typedKey();
    if (key !== undefined) this.cb.onFindKey(key);
  }

  private filterToKey(): void {
    const key = this.typedKey();
    if (key !== undefined) this.update({ key });
  }

  private showChip(): void {
    this.chip.hidden = !filterActive(this.filter);
    this.chipText.textContent = `Filtered: ${filterText(this.filter)}`;
  }
}

function option(value: string, text: string): HTMLOptionElement {
  const o = el('option', undefined, text);
  o.value = value;
  return o;
}

function select(label: string, values: readonly string[], onChange: () => void): HTMLSelectElement {
  const s = el('select', 'filter-select');
  s.setAttribute('aria-label', label);
  s.title = label;
  s.replaceChildren(...values.map((v, i) => option(i === 0 ? '' : v, v)));
  s.addEventListener('change', onChange);
  return s;
}
