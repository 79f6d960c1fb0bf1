/**
 * The watch-list phase (spec §1.8): stream the initial state into a temporary store, and on the
 * initial-events-end bookmark replace the real store with it and hand the still-open watcher to
 * watch(). Expired/Gone/TooLarge retry at once with RV ""; refused/429 retry after one backoff
 * delay; a stream closed without the bookmark tries again with no backoff (#26); anything else
 * falls back to a LIST in the same ListAndWatch (#27).
 */
import { WatchEnd } from './decisionRows';
import { classifyWatchListError, wrapError, type Classification } from './errors';
import type { Watcher, WatchOptions } from './listWatch';
import type { HandedWatch, ReflectorPhaseContext } from './reflectorContext';
import { handleAnyWatch, TemporaryStore } from './watchHandling';

export type WatchListResult = { kind: 'handed'; handed: HandedWatch } | { kind: 'error'; err: unknown } | { kind: 'stopped' };

/**
 * Runs watch-list attempts until one delivers the bookmark, one fails for good, or the signal
 * aborts. The bookmark RV becomes the last synced RV.
 */
export async function runWatchList(r: ReflectorPhaseContext, signal: AbortSignal): Promise<WatchListResult> {
  for (;;) {
    if (signal.aborted) return { kind: 'stopped' };
    let resourceVersion = '';
    const lastKnownRV = r.rewatchResourceVersion();
    // v0.34+ (Profile.watchListStoreTransforms): the temporary store applies the FIFO's transformer
    // too, so a watch-list's initial objects are transformed twice (again by the FIFO's Replace).
    const temporary = new TemporaryStore(r.profile.watchListStoreTransforms ? r.store.transformer?.() : undefined);
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
    r.enter('watch-listing');
    let w: Watcher;
    try {
      w = await r.openWatch(opts, { watchList: true, propagateRVFromStart }, signal);
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped' };
      const c = attemptFailed(r, err, { phase: 'open', start, eventCount: 0, how: 'open-failed' });
      if (c.outcome !== 'watchlist-again') return { kind: 'error', err };
      if (!(await prepareRetry(r, c, err, signal))) return { kind: 'stopped' };
      continue;
    }
    const res = await handleAnyWatch(r.watchHandling, {
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
      r.markResourceVersionAvailable();
      try {
        r.store.replace(temporary.list(), resourceVersion);
      } catch (err) {
        w.stop();
        return { kind: 'error', err: wrapError('unable to sync watch-list result', err) };
      }
      r.synced(resourceVersion, 'watchlist');
      return { kind: 'handed', handed: { watcher: w, timeoutSeconds } };
    }
    w.stop();
    if (res.kind === 'stopped') {
      r.watchEnded({ classification: { row: WatchEnd.Stopped, outcome: 'stop' }, start, eventCount: res.eventCount, how: 'stopped', watchList: true });
      return { kind: 'stopped' };
    }
    if (res.kind === 'closed') {
      // Closed cleanly before the initial state was complete: upstream loops at once, unbounded (#140890).
      r.watchEnded({
        classification: { row: WatchEnd.WatchListWithoutBookmark, outcome: 'watchlist-again' },
        start,
        eventCount: res.eventCount,
        how: res.how,
        watchList: true,
      });
      continue;
    }
    const c = attemptFailed(r, res.err, { phase: 'stream', start, eventCount: res.eventCount, how: res.how });
    if (c.outcome !== 'watchlist-again') return { kind: 'error', err: res.err };
    if (!(await prepareRetry(r, c, res.err, signal))) return { kind: 'stopped' };
  }
}

/** Classifies a failed attempt (isErrorRetriableWithSideEffectsFn's decision) and traces its end. */
function attemptFailed(
  r: ReflectorPhaseContext,
  err: unknown,
  at: { phase: 'open' | 'stream'; start: number; eventCount: number; how: string },
): ReturnType<typeof classifyWatchListError> {
  const c = classifyWatchListError(err, at.phase, r.profile);
  r.watchEnded({ classification: c, start: at.start, eventCount: at.eventCount, how: at.how, err, watchList: true });
  return c;
}

/**
 * The side effects before a retriable attempt is tried again: one backoff delay (refused/429) and
 * the unavailable flag (Expired/Gone/TooLarge). Upstream's delay here ignores the stop signal;
 * ours is cut short so that run() returns promptly. False when the signal aborted.
 */
async function prepareRetry(
  r: ReflectorPhaseContext,
  c: Classification & { backoff: boolean; unavailable: boolean },
  err: unknown,
  signal: AbortSignal,
): Promise<boolean> {
  if (c.backoff) {
    r.log.watchListBackingOff(err);
    if (!(await r.backoff('watchlist-retry', signal))) return false;
  }
  if (c.unavailable) r.markResourceVersionUnavailable();
  return true;
}
