/**
 * The legend above the chart: real DOM text (readable by assistive technology, unlike the
 * canvas), colours written as the same `--vscode-*` chains the canvas resolves
 * (model/colours.ts), so a theme change restyles both. A native <details>: collapsible with
 * mouse and keyboard, open by default and one or two lines high.
 */
import { cssColour } from '../model/colours';
import { legendGroups } from '../model/legend';
import { el } from './panels';

export function renderLegend(host: HTMLElement): HTMLDetailsElement {
  const details = el('details', 'legend');
  details.open = true;
  const summary = el('summary', 'legend-summary', 'Legend');
  summary.title = 'Show or hide what the colours and marks mean';
  const groups = el('div', 'legend-groups');
  for (const g of legendGroups()) {
    const group = el('div', 'legend-group');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', g.title);
    const list = el('ul', 'legend-items');
    for (const e of g.entries) {
      const item = el('li', 'legend-item');
      item.title = e.description;
      const swatch = el('span', `swatch ${e.shape}`);
      swatch.setAttribute('aria-hidden', 'true');
      swatch.style.setProperty('--swatch', cssColour(e.colour));
      item.append(swatch, el('span', 'legend-label', e.label));
      list.append(item);
    }
    group.append(el('span', 'legend-title', g.title), list);
    groups.append(group);
  }
  details.append(summary, groups);
  host.prepend(details);
  return details;
}
