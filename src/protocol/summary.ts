/**
 * How the summary's counts are written, shared by the header chips (webview), the status bar
 * and the CLI `summarize`, so all say the same thing in the same words.
 */
import type { TraceSummary } from '../format/trace';

/** "12 (7 with the LIST refused; ConnectionRefused 9, Expired 3)": the relist count as every view writes it. */
export function relistsText(s: Pick<TraceSummary, 'relists' | 'relistsByReason' | 'relistsListRefused'>): string {
  if (s.relists === 0) return '0';
  const reasons = s.relistsByReason.map(([r, n]) => `${r} ${n}`).join(', ');
  const refused = s.relistsListRefused > 0 ? `${s.relistsListRefused} with the LIST refused; ` : '';
  return `${s.relists} (${refused}${reasons})`;
}
