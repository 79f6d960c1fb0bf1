/**
 * The status bar item's text and tooltip, from the sessions' summaries (free of 'vscode', so it is
 * unit-tested). With one informer running the relist count is that informer's. With several it is
 * the count of the running informer on screen, named as such ("on screen"); when none of them is on
 * screen it is the sum over all of them and says so ("in all"). The tooltip lists each informer and
 * where its events are (memory, the spill segment, drops).
 */
import type { SessionStorage } from '../app/session';
import type { TraceSummary } from '../format/trace';
import { relistsText } from '../protocol/summary';

export interface StatusSession {
  id: string;
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

export function statusText(running: readonly StatusSession[], shownId?: string): { text: string; tooltip: string; relists: number } {
  const summaries = running.map((s) => ({ id: s.id, title: s.title, summary: s.summary(), storage: s.storage?.() }));
  const informers = `$(pulse) ${running.length} informer${running.length === 1 ? '' : 's'}`;
  const lines = summaries.map(
    (s) =>
      `${s.title}${s.id === shownId && running.length > 1 ? ' (on screen)' : ''}: relists ${relistsText(s.summary)}` +
      (s.storage ? `\n  ${storageText(s.storage)}` : ''),
  );
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
