/**
 * Tells the user, once per session and status code, when the server refuses the informer's LIST
 * or WATCH (401/403/404): an error notification with the finding's title and fix, a "Show Log"
 * action, and the finding written to the log channel. Free of 'vscode' except through `ui`.
 */
import type { RecordedEvent } from '../format/events';
import type { Finding } from '../format/trace';
import { ACCESS_FINDING_IDS } from '../app/traces';

export interface AccessAlertUi {
  /** Shows an error notification with the actions; resolves with the one chosen. */
  showError(message: string, ...actions: string[]): Thenable<string | undefined>;
  log(line: string): void;
  showLog(): void;
}

export interface AccessAlertSession {
  title: string;
  subscribe(fn: (batch: RecordedEvent[]) => void): () => void;
  findings(fresh?: boolean): Finding[];
}

export const SHOW_LOG = 'Show Log';

/** The status code of a refused request in the event, if it is one (401, 403, 404). */
export function refusedCode(e: RecordedEvent): number | undefined {
  const code = e.type === 'list.error' || e.type === 'watch.end' ? e.code : undefined;
  return code === 401 || code === 403 || code === 404 ? code : undefined;
}

export function watchAccess(session: AccessAlertSession, ui: AccessAlertUi): () => void {
  const told = new Set<number>();
  return session.subscribe((batch) => {
    const codes = new Set(batch.map(refusedCode).filter((c): c is number => c !== undefined && !told.has(c)));
    if (codes.size === 0) return;
    for (const c of codes) told.add(c);
    for (const f of session.findings(true).filter((x) => ACCESS_FINDING_IDS.includes(x.id))) {
      ui.log(`[${session.title}] ${f.title}: ${f.detail} Fix: ${f.advice}`);
      void Promise.resolve(ui.showError(`Informer Inspector: ${f.title}. ${f.advice}`, SHOW_LOG)).then((choice) => {
        if (choice === SHOW_LOG) ui.showLog();
      });
    }
  });
}
