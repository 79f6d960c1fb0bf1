/** The status bar item's text and tooltip, from the sessions' summaries (free of 'vscode', so it is unit-tested). */
import type { TraceSummary } from '../format/trace';
import { relistsText } from '../protocol/summary';

export interface StatusSession {
  title: string;
  summary(): TraceSummary;
}

export function statusText(running: readonly StatusSession[]): { text: string; tooltip: string; relists: number } {
  const summaries = running.map((s) => ({ title: s.title, summary: s.summary() }));
  const relists = summaries.reduce((n, s) => n + s.summary.relists, 0);
  return {
    text: `$(pulse) ${running.length} informer${running.length === 1 ? '' : 's'} · ${relists} relist${relists === 1 ? '' : 's'}`,
    tooltip: summaries.map((s) => `${s.title}: relists ${relistsText(s.summary)}`).join('\n'),
    relists,
  };
}
