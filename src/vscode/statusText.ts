/**
 * The status bar item's text and tooltip, from the sessions' summaries (free of 'vscode', so it is
 * unit-tested). With one informer running the relist count is that informer's. With several it is
 * the count of the running informer on screen, named as such ("on screen"); when none of them is on
 * screen it is the sum over all of them and says so ("in all"). The tooltip lists each informer.
 */
import type { TraceSummary } from '../format/trace';
import { relistsText } from '../protocol/summary';

export interface StatusSession {
  id: string;
  title: string;
  summary(): TraceSummary;
}

export function statusText(running: readonly StatusSession[], shownId?: string): { text: string; tooltip: string; relists: number } {
  const summaries = running.map((s) => ({ id: s.id, title: s.title, summary: s.summary() }));
  const informers = `$(pulse) ${running.length} informer${running.length === 1 ? '' : 's'}`;
  const lines = summaries.map((s) => `${s.title}${s.id === shownId && running.length > 1 ? ' (on screen)' : ''}: relists ${relistsText(s.summary)}`);
  const plural = (n: number) => `${n} relist${n === 1 ? '' : 's'}`;
  if (summaries.length === 1) {
    const relists = summaries[0].summary.relists;
    return { text: `${informers} · ${plural(relists)}`, tooltip: lines.join('\n'), relists };
  }
  const shown = summaries.find((s) => s.id === shownId);
  if (shown) {
    const relists = shown.summary.relists;
    return { text: `${informers} · on screen: ${plural(relists)}`, tooltip: lines.join('\n'), relists };
  }
  const relists = summaries.reduce((n, s) => n + s.summary.relists, 0);
  return { text: `${informers} · ${plural(relists)} in all`, tooltip: [...lines, `${plural(relists)} in all (no running informer on screen)`].join('\n'), relists };
}
