/**
 * The watch-list phase (spec §1.8): stream the initial state into a temporary store, and on the
 * initial-events-end bookmark replace the real store with it and hand the still-open watcher to
 * watch(). Expired/Gone/TooLarge retry at once with RV ""; refused/429 retry after one backoff
 * delay; a stream closed without the bookmark tries again with no backoff (#26); anything else
 * falls back to a LIST in the same ListAndWatch (#27).
 */
import { classifyWatchListError, wrapError } from './errors';
import type { Watcher, WatchOptions } from './listWatch';
import type { HandedWatch, Reflector } from './reflector';
import { handleAnyWatch, TemporaryStore } from './watchHandling';

export type WatchListResult = { kind: 'handed'; handed: HandedWatch } | { kind: 'error'; err: unknown } | { kind: 'stopped' };

/**
 * Runs watch-list attempts until one delivers the bookmark, one fails for good, or the signal
 * aborts. The bookmark RV becomes the last synced RV.
 */
export async function runWatchList(r: Reflector, signal: AbortSignal): Promise<WatchListResult> {
  for (;;) {
    if (signal.aborted) return { kind: 'stopped' };
    let resourceVersion = '';
    const lastKnownRV = r.rewatchResourceVersion();
    const temporary = new TemporaryStore();
    const timeoutSeconds = r.watchTimeoutSeconds();
    const opts: WatchOptions = {
      resourceVersion: lastKnownRV,
      allowWatchBookmarks: true,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds,
    };
    const start = r.now();
    // v0.36: the synthetic ADDs of the initial state do not move the RV; the bookmark does.
    const propagateRVFromStart = !r.profile.rvOrderingGuard;
    r.setState('watch-listing');
    r.emitRequest('watch', opts);
    r.emit({ t: start, type: 'watch.start', rv: lastKnownRV, timeoutSeconds, watchList: true, propagateRVFromStart });
    let w: Watcher;
    try {
      w = await r.openWatch(opts, signal);
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped' };
      const again = await retryAfter(r, err, true, start, 0, 'open-failed', signal);
      if (again === 'stopped') return { kind: 'stopped' };
      if (again) continue;
      return { kind: 'error', err };
    }
    const res = await handleAnyWatch(r.watchContext, {
      watcher: w,
      store: temporary,
      start,
      exitOnInitialEventsEnd: true,
      propagateRVFromStart,
      setResourceVersion: (rv) => {
        resourceVersion = rv;
      },
      signal,
    });
    if (res.kind === 'initial-events-end') {
      r.setUnavailable(false);
      try {
        r.store.replace(temporary.list(), resourceVersion);
      } catch (err) {
        w.stop();
        return { kind: 'error', err: wrapError('unable to sync watch-list result', err) };
      }
      r.setLastSyncRV(resourceVersion, 'watchlist');
      r.listState.synced = true;
      return { kind: 'handed', handed: { watcher: w, timeoutSeconds } };
    }
    w.stop();
    if (res.kind === 'stopped') {
      r.emitWatchEnd({ row: 24, outcome: 'stop' }, start, res.eventCount, 'stopped', undefined, true);
      return { kind: 'stopped' };
    }
    if (res.kind === 'closed') {
      // Closed cleanly before the initial state was complete: upstream loops at once, unbounded (#140890).
      r.emitWatchEnd({ row: 26, outcome: 'watchlist-again' }, start, res.eventCount, res.how, undefined, true);
      continue;
    }
    const again = await retryAfter(r, res.err, false, start, res.eventCount, res.how, signal);
    if (again === 'stopped') return { kind: 'stopped' };
    if (!again) return { kind: 'error', err: res.err };
  }
}

/**
 * isErrorRetriableWithSideEffectsFn: classifies a failed attempt, records it, and performs the
 * side effect (backoff delay, or the unavailable flag). Upstream's backoff here ignores the stop
 * signal; ours is cut short so that run() returns promptly.
 */
async function retryAfter(
  r: Reflector,
  err: unknown,
  opening: boolean,
  start: number,
  eventCount: number,
  how: string,
  signal: AbortSignal,
): Promise<boolean | 'stopped'> {
  const c = classifyWatchListError(err, opening, r.profile);
  r.emitWatchEnd(c, start, eventCount, how, err, true);
  if (c.outcome !== 'watchlist-again') return false;
  if (c.backoff) {
    r.log.watchListBackingOff(err);
    if (!(await r.backoffSleep('watchlist-retry', signal))) return 'stopped';
  }
  if (c.unavailable) r.setUnavailable(true);
  return true;
}
