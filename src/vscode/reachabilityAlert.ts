/**
 * Tells the user when a live informer has lost its cluster and when it has it back: after
 * `unreachableAfterMs` of failed LISTs and watch opens without any answer from the server
 * (connection refused, reset, timed out: no HTTP status), one warning per outage; when the server
 * answers again, one message with how long it was away. The informer itself keeps retrying
 * with its profile's backoff and the trace keeps recording; this only says so. Free of 'vscode'
 * except through `ui`.
 */
import type { RecordedEvent, TraceEvent } from '../format/events';
import type { StreamTimers } from './timelineStream';

export interface ReachabilityUi extends StreamTimers {
  showWarning(message: string): void;
  showInfo(message: string): void;
  log(line: string): void;
}

export interface ReachabilitySession {
  title: string;
  subscribe(fn: (batch: RecordedEvent[]) => void): () => void;
}

/** A failure shorter than this (a reset the next attempt repairs) is not worth a notification. */
export const UNREACHABLE_AFTER_MS = 5000;

/**
 * Watch endings in which no stream was ever open: the open failed, or the REST client gave up its
 * retries of a reset or timed-out open and handed over an empty watcher (spec §1.10 row 8).
 */
const NEVER_OPENED = new Set(['open-failed', 'open-retries-exhausted']);

/** The error text of an event in which the server could not be reached (no HTTP answer), if it is one. */
export function contactFailure(e: TraceEvent): string | undefined {
  if (e.type === 'list.error' && e.code === undefined) return e.text;
  if (e.type === 'watch.end' && NEVER_OPENED.has(e.how) && e.code === undefined) return e.error ?? 'the watch could not be opened';
  return undefined;
}

/**
 * Whether the event shows the server answering: a LIST page, a watch the server accepted (even on
 * a quiet cluster that sends nothing after it), a watch event, the end of a stream that had been
 * open, any HTTP status. A watch stopped by the user says nothing either way.
 */
export function serverAnswered(e: TraceEvent): boolean {
  switch (e.type) {
    case 'list.page':
    case 'list.done':
    case 'watch.opened':
    case 'watch.event':
      return true;
    case 'list.error':
      return e.code !== undefined;
    case 'watch.end':
      return e.code !== undefined || (!NEVER_OPENED.has(e.how) && e.how !== 'stopped');
    default:
      return false;
  }
}

export function watchReachability(session: ReachabilitySession, ui: ReachabilityUi, unreachableAfterMs = UNREACHABLE_AFTER_MS): () => void {
  let failingSince: number | undefined;
  let lastError = '';
  let told = false;
  let cancelTimer: (() => void) | undefined;
  const tell = () => {
    cancelTimer = undefined;
    if (failingSince === undefined || told) return;
    told = true;
    const line = `${session.title} cannot reach the cluster: ${oneLine(lastError)}. The informer keeps retrying with its backoff; the timeline keeps recording.`;
    ui.log(line);
    ui.showWarning(`Informer Inspector: ${line}`);
  };
  const unsubscribe = session.subscribe((batch) => {
    for (const e of batch) {
      const failure = contactFailure(e);
      if (failure !== undefined) {
        lastError = failure;
        if (failingSince === undefined) {
          failingSince = ui.now();
          cancelTimer = ui.setTimeout(tell, unreachableAfterMs);
        }
      } else if (serverAnswered(e) && failingSince !== undefined) {
        const awayS = Math.round((ui.now() - failingSince) / 1000);
        cancelTimer?.();
        cancelTimer = undefined;
        failingSince = undefined;
        if (told) {
          told = false;
          const line = `${session.title} reaches the cluster again (no answer for ${awayS} s).`;
          ui.log(line);
          ui.showInfo(`Informer Inspector: ${line}`);
        }
      }
    }
  });
  return () => {
    cancelTimer?.();
    cancelTimer = undefined;
    unsubscribe();
  };
}

function oneLine(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 297)}...` : t;
}
