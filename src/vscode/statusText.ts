/** The status bar item's text and tooltip, from the sessions' summaries (free of 'vscode', so it is unit-tested). */
import type { SessionStorage } from '../app/session';
import type { TraceSummary } from '../format/trace';
import { relistsText } from '../protocol/summary';

export interface StatusSession {
  title: string;
  summary(): TraceSummary;
  storage?(): SessionStorage | undefined;
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1024 ? `${(mb / 1024).toFixed(mb % 1024 === 0 ? 0 : 1)} GB` : `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}

/** One line on where the session's events are: memory, the spill segment (use of its bound), drops. */
export function storageText(st: SessionStorage): string {
  const parts = [`${st.memoryEvents} events in memory`];
  if (st.spill) {
    parts.push(`${st.spill.events} on disk (${megabytes(st.spill.bytes)} of ${megabytes(st.spill.maxBytes)})`);
    if (st.spill.error) parts.push(`spilling stopped: ${st.spill.error}`);
  } else parts.push('no spill to disk');
  if (st.dropped > 0) parts.push(`${st.dropped} dropped`);
  return parts.join(', ');
}

export function statusText(running: readonly StatusSession[]): { text: string; tooltip: string; relists: number } {
  const summaries = running.map((s) => ({ title: s.title, summary: s.summary(), storage: s.storage?.() }));
  const relists = summaries.reduce((n, s) => n + s.summary.relists, 0);
  return {
    text: `$(pulse) ${running.length} informer${running.length === 1 ? '' : 's'} · ${relists} relist${relists === 1 ? '' : 's'}`,
    tooltip: summaries.map((s) => `${s.title}: relists ${relistsText(s.summary)}${s.storage ? `\n  ${storageText(s.storage)}` : ''}`).join('\n'),
    relists,
  };
}
