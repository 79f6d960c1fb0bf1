/**
 * The reflector's watch phase (spec §1.6, §2): the resync timer, and the watch loop that re-watches
 * at the last RV after a clean close, backs off and re-watches after refused/429, and returns
 * (to relist) after everything else. Returns the error ListAndWatch returns: only a non-retriable
 * failure to open a watch.
 */
import { classifyCleanClose, classifyWatchOpenError, classifyWatchStreamError, isExpiredOrGone, isInternalError } from './errors';
import { WatchEnd } from './decisionRows';
import type { Watcher, WatchOptions } from './listWatch';
import type { HandedWatch, ReflectorPhaseContext } from './reflectorContext';
import { handleAnyWatch, InternalErrorRetry, ResyncErrorSlot } from './watchHandling';

export async function watchWithResync(r: ReflectorPhaseContext, signal: AbortSignal, handed: HandedWatch | undefined): Promise<Error | undefined> {
  const slot = new ResyncErrorSlot();
  const stopResync = startResync(r, slot);
  try {
    return await watch(r, signal, handed, slot);
  } finally {
    stopResync();
  }
}

/** The resync timer (§2): restarted per ListAndWatch; a store.resync() error ends the watch (#23). */
function startResync(r: ReflectorPhaseContext, slot: ResyncErrorSlot): () => void {
  const period = r.resync.periodMs;
  if (period <= 0) return () => undefined;
  let timer = r.clock.setTimer(period, fire);
  let stopped = false;
  function fire(): void {
    if (stopped) return;
    const should = r.resync.shouldResync ? r.resync.shouldResync() : true;
    r.emit({ t: r.now(), type: 'resync.timer', shouldResync: should });
    if (should) {
      r.log.forcingResync();
      try {
        r.store.resync();
      } catch (err) {
        slot.put(err);
        return;
      }
    }
    timer = r.clock.setTimer(period, fire);
  }
  return () => {
    stopped = true;
    timer.cancel();
  };
}

async function watch(r: ReflectorPhaseContext, signal: AbortSignal, handed: HandedWatch | undefined, slot: ResyncErrorSlot): Promise<Error | undefined> {
  const retry = new InternalErrorRetry(r.profile.maxInternalErrorRetryMs, r.clock, isInternalError);
  let w: Watcher | undefined = handed?.watcher;
  let timeoutSeconds = handed?.timeoutSeconds ?? 0;
  let propagateRVFromStart = true;
  let fromWatchList = handed !== undefined;
  try {
    for (;;) {
      if (signal.aborted) return undefined;
      // Taken per iteration, also for a handed-over watch-list stream: its very-short-watch clock
      // starts here, or (profile veryShortWatchClockStarts 'after-open') once the watch has opened.
      let start = r.now();
      if (!w) {
        fromWatchList = false;
        timeoutSeconds = r.watchTimeoutSeconds();
        const rv = r.lastSyncResourceVersion();
        propagateRVFromStart = !r.profile.rvOrderingGuard || (rv !== '' && rv !== '0');
        const opts: WatchOptions = { resourceVersion: rv, timeoutSeconds, ...(r.profile.watchBookmarks ? { allowWatchBookmarks: true } : {}) };
        r.enter('watching');
        try {
          w = await r.openWatch(opts, { watchList: false, propagateRVFromStart }, signal);
        } catch (err) {
          if (signal.aborted) return undefined;
          const c = classifyWatchOpenError(err, r.profile);
          r.watchEnded({ classification: c, start, eventCount: 0, how: 'open-failed', err, watchList: false });
          if (c.outcome === 'rewatch-after-backoff') {
            r.log.watchFailedBackingOff(err);
            if (!(await r.backoff('watch-retry', signal))) return undefined;
            continue;
          }
          r.endsInRelist(c, err);
          return err instanceof Error ? err : new Error(String(err));
        }
        if (signal.aborted) return undefined;
        if (r.profile.veryShortWatchClockStarts === 'after-open') start = r.now();
      }
      r.enter('watching');
      const res = await handleAnyWatch(r.watchHandling, {
        watcher: w,
        store: r.store,
        start,
        exitOnInitialEventsEnd: false,
        propagateRVFromStart,
        setResourceVersion: (rv, source) => r.observedResourceVersion(rv, source),
        signal,
        resyncErrors: slot,
      });
      w.stop();
      w = undefined;
      if (res.kind === 'stopped') {
        r.watchEnded({ classification: { row: WatchEnd.Stopped, outcome: 'stop' }, start, eventCount: res.eventCount, how: 'stopped', watchList: fromWatchList });
        return undefined;
      }
      if (res.kind === 'closed' || res.kind === 'initial-events-end') {
        retry.after(undefined);
        const how = res.kind === 'closed' ? res.how : 'eof';
        r.watchEnded({ classification: classifyCleanClose(how, r.now() - start, timeoutSeconds), start, eventCount: res.eventCount, how, watchList: fromWatchList });
        continue;
      }
      retry.after(res.err);
      const c = classifyWatchStreamError(res.err, res.source, r.profile, () => retry.shouldRetry());
      r.watchEnded({ classification: c, start, eventCount: res.eventCount, how: res.how, err: res.err, watchList: fromWatchList });
      if (c.outcome === 'rewatch-after-backoff') {
        r.log.watch429();
        if (!(await r.backoff('watch-retry', signal))) return undefined;
        continue;
      }
      if (c.outcome === 'rewatch') {
        r.log.retryingInternalError(res.err);
        continue;
      }
      if (isExpiredOrGone(res.err)) r.log.watchClosed(res.err);
      else r.log.watchEndedWithError(res.err);
      r.endsInRelist(c, res.err);
      return undefined;
    }
  } finally {
    w?.stop();
  }
}
