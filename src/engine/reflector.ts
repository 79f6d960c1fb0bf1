/**
 * client-go's Reflector (spec §1): lists (or watch-lists) a resource into a store, then watches it,
 * and decides after every ending whether to re-watch, relist, relist consistently or stop (§1.10).
 * Every decision is a trace event; the log lines client-go would print are 'log' events.
 *
 * ENGINE API CONTRACT (shared with the informer author; additive changes only):
 * ReflectorOptions and Reflector.run/lastSyncResourceVersion as below. Additions so far:
 * `expectedGVK` (optional, unstructured GVK check of §1.7).
 */
import { newReflectorBackoff, type BackoffPolicy } from './backoff';
import { abortError, isAbortError, type Clock } from './clock';
import {
  classifyCleanClose,
  classifyListFailure,
  classifyWatchOpenError,
  classifyWatchStreamError,
  isExpiredOrGone,
  isInternalError,
  isTooLargeResourceVersion,
  statusOf,
  wrapError,
  type Classification,
} from './errors';
import type { EventSink, ReflectorState, RelistReason, TraceEvent } from './events';
import type { ReflectorStore } from './fifo';
import type { ListerWatcher, Watcher, WatchOptions } from './listWatch';
import { DEFAULT_PAGE_SIZE, listPaged, type PagedResult } from './pager';
import type { Profile } from './profiles';
import { ReflectorLog } from './reflectorLogs';
import { handleAnyWatch, InternalErrorRetry, ResyncErrorSlot, type WatchHandlingContext } from './watchHandling';
import { runWatchList } from './watchList';

export interface ReflectorOptions {
  /** reflector name used in log texts */
  name: string;
  /** e.g. "*unstructured.Unstructured" or "/v1, Kind=ConfigMap" */
  typeDescription: string;
  listerWatcher: ListerWatcher;
  /** the FIFO */
  store: ReflectorStore;
  /** gates already applied (withGates) */
  profile: Profile;
  clock: Clock;
  sink: EventSink;
  /** jitter + watch timeout; default Math.random */
  rand?: () => number;
  /** 0 = never */
  resyncPeriodMs: number;
  shouldResync?: () => boolean;
  /** default logs like DefaultWatchErrorHandler (as a 'log' trace event) */
  watchErrorHandler?: (err: Error) => void;
  /** Addition: apiVersion/kind every watch event object must carry (client-go expectedGVK); absent = no check. */
  expectedGVK?: { apiVersion: string; kind: string };
}

export const MIN_WATCH_TIMEOUT_S = 300;

/** What ended the previous ListAndWatch; carried into the next 'relist' event. */
interface Ending {
  row: number;
  reason: RelistReason;
  text: string;
}

/** A watcher handed from the watch-list phase to watch() (§1.8), still open. */
export interface HandedWatch {
  watcher: Watcher;
  start: number;
  timeoutSeconds: number;
}

export class Reflector {
  readonly name: string;
  readonly typeDescription: string;
  readonly profile: Profile;
  readonly clock: Clock;
  readonly listerWatcher: ListerWatcher;
  readonly store: ReflectorStore;
  readonly log: ReflectorLog;
  readonly backoff: BackoffPolicy;
  readonly watchContext: WatchHandlingContext;
  private readonly sink: EventSink;
  private readonly rand: () => number;
  private readonly useWatchList: boolean;
  private lastSyncRV = '';
  private rvUnavailable = false;
  /** Sticky: a list at RV "0" came back paginated, so the watch cache is assumed off. */
  private paginatedResult = false;
  private syncAttempted = false;
  private synced = false;
  private lastEnding: Ending | undefined;
  private state: ReflectorState | undefined;

  constructor(private readonly o: ReflectorOptions) {
    this.name = o.name;
    this.typeDescription = o.typeDescription;
    this.profile = o.profile;
    this.clock = o.clock;
    this.listerWatcher = o.listerWatcher;
    this.store = o.store;
    this.sink = o.sink;
    this.rand = o.rand ?? Math.random;
    this.log = new ReflectorLog(o.profile, o.name, o.typeDescription, o.clock, o.sink);
    this.backoff = newReflectorBackoff(o.profile, o.clock, this.rand);
    this.useWatchList = o.profile.gates.WatchListClient && o.listerWatcher.watchListSupported !== false;
    if (o.profile.gates.WatchListClient && !this.useWatchList) this.log.watchListUnsupported();
    this.watchContext = {
      name: o.name,
      clock: o.clock,
      sink: o.sink,
      log: this.log,
      expectedGVK: o.expectedGVK,
      bookmarksToStore: o.profile.bookmarksToStore,
      rvOrderingGuard: o.profile.rvOrderingGuard,
    };
  }

  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** Runs ListAndWatch with backoff until the signal aborts; resolves once nothing of it runs. */
  async run(signal: AbortSignal): Promise<void> {
    this.log.starting(this.o.resyncPeriodMs);
    try {
      while (!signal.aborted) {
        const err = await this.listAndWatch(signal);
        if (err && !signal.aborted) this.handleWatchError(err);
        if (signal.aborted) break;
        if (!(await this.backoffSleep('run-loop', signal))) break;
      }
    } finally {
      this.setState('stopped');
      this.log.stopping(this.o.resyncPeriodMs);
    }
  }

  // ---- shared helpers used by watchList.ts -------------------------------------------------------

  emit(e: TraceEvent): void {
    this.sink.emit(e);
  }

  now(): number {
    return this.clock.now();
  }

  setState(state: ReflectorState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit({ t: this.now(), type: 'reflector.state', state });
  }

  setLastSyncRV(rv: string, source: 'list' | 'watchlist' | 'event' | 'bookmark'): void {
    if (rv === this.lastSyncRV) return;
    this.lastSyncRV = rv;
    this.emit({ t: this.now(), type: 'rv', rv, source });
  }

  setUnavailable(value: boolean): void {
    if (value === this.rvUnavailable) return;
    this.rvUnavailable = value;
    this.emit({ t: this.now(), type: 'rv.unavailable', value });
  }

  /** rewatchResourceVersion(): "" when the last RV is known to be unavailable. */
  rewatchResourceVersion(): string {
    return this.rvUnavailable ? '' : this.lastSyncRV;
  }

  /** relistResourceVersion() (§1.5); ≤1.16 always "0". */
  relistResourceVersion(): string {
    if (this.profile.relistAtZero) return '0';
    if (this.rvUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  /** timeoutSeconds of a watch: min·(1+rand), i.e. 300…599 with the defaults. */
  watchTimeoutSeconds(): number {
    return Math.floor(MIN_WATCH_TIMEOUT_S * (this.rand() + 1));
  }

  /** One delay of the shared backoff; false when the signal aborted during it. */
  async backoffSleep(purpose: 'run-loop' | 'watch-retry' | 'watchlist-retry', signal: AbortSignal): Promise<boolean> {
    const step = this.backoff.step();
    this.emit({ t: this.now(), type: 'backoff', purpose, baseMs: step.baseMs, sleepMs: step.sleepMs, reset: step.reset });
    this.setState('backoff');
    try {
      await this.clock.sleep(step.sleepMs, signal);
      return true;
    } catch (err) {
      if (isAbortError(err) || signal.aborted) return false;
      throw err;
    }
  }

  emitRequest(verb: 'list' | 'watch', opts: WatchOptions & { limit?: number; continue?: string }): void {
    this.emit({
      t: this.now(),
      type: 'request',
      verb,
      rv: opts.resourceVersion,
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.continue ? { continue: opts.continue } : {}),
      ...(opts.resourceVersionMatch ? { resourceVersionMatch: opts.resourceVersionMatch } : {}),
      ...(opts.sendInitialEvents ? { sendInitialEvents: true } : {}),
      ...(opts.allowWatchBookmarks ? { allowWatchBookmarks: true } : {}),
      ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
    });
  }

  /** Opens a watch; one that opens only after the signal aborted is stopped at once. */
  openWatch(opts: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    const opening = this.listerWatcher.watch(opts, signal);
    opening.then(
      (w) => {
        if (signal.aborted) w.stop();
      },
      () => undefined,
    );
    return untilAborted(opening, signal);
  }

  /** Remembers why this ListAndWatch ends in a relist, for the next 'relist' event. */
  recordEnding(c: Classification, err: unknown): void {
    this.lastEnding = { row: c.row, reason: c.reason ?? 'Other', text: err instanceof Error ? err.message : err === undefined ? '' : String(err) };
  }

  // ---- ListAndWatch (§1.4) ------------------------------------------------------------------------

  private async listAndWatch(signal: AbortSignal): Promise<Error | undefined> {
    this.log.listingAndWatching();
    this.announceRelist();
    let handed: HandedWatch | undefined;
    let fallbackToList = !this.useWatchList;
    if (this.useWatchList) {
      const r = await runWatchList(this, signal);
      if (r.kind === 'stopped') return undefined;
      if (r.kind === 'error') {
        this.log.watchListFallback(r.err);
        this.emit({ t: this.now(), type: 'watchlist.fallback', text: r.err instanceof Error ? r.err.message : String(r.err) });
        fallbackToList = true;
      } else {
        handed = r.handed;
      }
    }
    if (fallbackToList) {
      const err = await this.list(signal);
      if (err) return err;
    }
    this.log.cachesPopulated();
    return this.watchWithResync(signal, handed);
  }

  /** Every sync after the first ListAndWatch is a relist, carrying what ended the previous cycle. */
  private announceRelist(): void {
    const first = !this.syncAttempted;
    this.syncAttempted = true;
    if (first) return;
    const rv = this.useWatchList ? this.rewatchResourceVersion() : this.relistResourceVersion();
    const e = this.lastEnding ?? { row: 0, reason: 'Other' as const, text: '' };
    this.emit({ t: this.now(), type: 'relist', reason: e.reason, row: e.row, rv, consistent: rv === '', text: e.text });
  }

  // ---- list() (§1.5) ------------------------------------------------------------------------------

  private pageSizeFor(rv: string): number {
    if (this.paginatedResult) return DEFAULT_PAGE_SIZE;
    if (rv !== '' && rv !== '0') return 0;
    return DEFAULT_PAGE_SIZE;
  }

  private async pagedList(rv: string, pageSize: number, signal: AbortSignal): Promise<PagedResult & { pages: number }> {
    let pages = 0;
    const result = await listPaged(
      (opts) => {
        this.emitRequest('list', opts);
        return this.listerWatcher.list(opts, signal);
      },
      { resourceVersion: rv },
      pageSize,
      signal,
      {
        onPage: (page, l) => {
          pages++;
          this.emit({ t: this.now(), type: 'list.page', page, items: l.items?.length ?? 0, rv: l.metadata?.resourceVersion ?? '', ...(l.metadata?.continue ? { continue: l.metadata.continue } : {}) });
        },
        onExpiredContinue: () => this.emit({ t: this.now(), type: 'list.expiredContinue' }),
      },
    );
    return { ...result, pages: Math.max(pages, 1) };
  }

  /** Lists into the store; returns the error ListAndWatch returns (undefined also when stopped). */
  private async list(signal: AbortSignal): Promise<Error | undefined> {
    const rv = this.relistResourceVersion();
    const pageSize = this.pageSizeFor(rv);
    const started = this.now();
    this.setState('listing');
    this.emit({ t: started, type: 'list.start', rv, limit: pageSize, initial: !this.synced });
    let result;
    try {
      try {
        result = await untilAborted(this.pagedList(rv, pageSize, signal), signal);
      } catch (err) {
        if (signal.aborted) throw err;
        const tooLarge = this.profile.detectsTooLarge && isTooLargeResourceVersion(err);
        if (this.profile.relistAtZero || !(isExpiredOrGone(err) || tooLarge)) throw err;
        // The RV is gone or not yet known: the next list must be a consistent read, at once.
        this.setUnavailable(true);
        const s = statusOf(err);
        this.emit({ t: this.now(), type: 'list.retryConsistent', reason: tooLarge ? 'TooLargeResourceVersion' : s?.reason === 'Expired' ? 'Expired' : 'Gone' });
        result = await untilAborted(this.pagedList(this.relistResourceVersion(), pageSize, signal), signal);
      }
    } catch (err) {
      if (signal.aborted) return undefined;
      return this.listFailed(err, 'request', wrapError(`failed to list ${this.typeDescription}`, err));
    }
    if (signal.aborted) return undefined;
    if (rv === '0' && result.paginated) this.paginatedResult = true;
    this.setUnavailable(false);
    const list = result.list;
    if (list.kind === 'Table' && (list.apiVersion === 'meta.k8s.io/v1' || list.apiVersion === 'meta.k8s.io/v1beta1')) {
      const e = new Error(`unsupported list gvk: ${list.apiVersion}, Kind=${list.kind}, type: ${this.typeDescription}`);
      return this.listFailed(e, 'sync', e);
    }
    const listRV = list.metadata?.resourceVersion ?? '';
    try {
      this.store.replace(list.items ?? [], listRV);
    } catch (err) {
      return this.listFailed(err, 'sync', wrapError('unable to sync list result', err));
    }
    this.setLastSyncRV(listRV, 'list');
    this.synced = true;
    this.emit({ t: this.now(), type: 'list.done', rv: listRV, items: list.items?.length ?? 0, pages: result.pages, paginated: result.paginated, durationMs: this.now() - started });
    return undefined;
  }

  private listFailed(cause: unknown, phase: 'request' | 'sync', returned: Error): Error {
    const s = statusOf(cause);
    this.emit({ t: this.now(), type: 'list.error', text: returned.message, ...(s?.code ? { code: s.code } : {}), ...(s?.reason ? { reason: s.reason } : {}) });
    if (phase === 'request') this.log.listFailed(cause);
    this.recordEnding(classifyListFailure(cause, phase), returned);
    return returned;
  }

  markSynced(): void {
    this.synced = true;
  }

  // ---- watch phase (§1.6, §2) --------------------------------------------------------------------

  private async watchWithResync(signal: AbortSignal, handed: HandedWatch | undefined): Promise<Error | undefined> {
    const slot = new ResyncErrorSlot();
    const stopResync = this.startResync(slot);
    try {
      return await this.watch(signal, handed, slot);
    } finally {
      stopResync();
    }
  }

  /** The resync timer (§2): restarted per ListAndWatch; a store.resync() error ends the watch (#23). */
  private startResync(slot: ResyncErrorSlot): () => void {
    const period = this.o.resyncPeriodMs;
    if (period <= 0) return () => undefined;
    let timer = this.clock.setTimer(period, fire.bind(this));
    let stopped = false;
    function fire(this: Reflector): void {
      if (stopped) return;
      const should = this.o.shouldResync ? this.o.shouldResync() : true;
      this.emit({ t: this.now(), type: 'resync.timer', shouldResync: should });
      if (should) {
        this.log.forcingResync();
        try {
          this.store.resync();
        } catch (err) {
          slot.put(err);
          return;
        }
      }
      timer = this.clock.setTimer(period, fire.bind(this));
    }
    return () => {
      stopped = true;
      timer.cancel();
    };
  }

  private async watch(signal: AbortSignal, handed: HandedWatch | undefined, slot: ResyncErrorSlot): Promise<Error | undefined> {
    const retry = new InternalErrorRetry(this.profile.maxInternalErrorRetryMs, this.clock, isInternalError);
    let w: Watcher | undefined = handed?.watcher;
    let timeoutSeconds = handed?.timeoutSeconds ?? 0;
    let propagateRVFromStart = true;
    let fromWatchList = handed !== undefined;
    try {
      for (;;) {
        if (signal.aborted) return undefined;
        const start = handed?.start ?? this.now();
        handed = undefined;
        if (!w) {
          fromWatchList = false;
          timeoutSeconds = this.watchTimeoutSeconds();
          const rv = this.lastSyncRV;
          propagateRVFromStart = !this.profile.rvOrderingGuard || (rv !== '' && rv !== '0');
          const opts: WatchOptions = { resourceVersion: rv, timeoutSeconds, ...(this.profile.watchBookmarks ? { allowWatchBookmarks: true } : {}) };
          this.setState('watching');
          this.emitRequest('watch', opts);
          this.emit({ t: this.now(), type: 'watch.start', rv, timeoutSeconds, watchList: false, propagateRVFromStart });
          try {
            w = await this.openWatch(opts, signal);
          } catch (err) {
            if (signal.aborted) return undefined;
            const c = classifyWatchOpenError(err, this.profile);
            this.emitWatchEnd(c, start, 0, 'open-failed', err, false);
            if (c.outcome === 'rewatch-after-backoff') {
              this.log.watchFailedBackingOff(err);
              if (!(await this.backoffSleep('watch-retry', signal))) return undefined;
              continue;
            }
            this.recordEnding(c, err);
            return err instanceof Error ? err : new Error(String(err));
          }
          if (signal.aborted) return undefined;
        }
        this.setState('watching');
        const res = await handleAnyWatch(this.watchContext, {
          watcher: w,
          store: this.store,
          start,
          exitOnInitialEventsEnd: false,
          propagateRVFromStart,
          setResourceVersion: (rv, source) => this.setLastSyncRV(rv, source),
          signal,
          resyncErrors: slot,
        });
        w.stop();
        w = undefined;
        if (res.kind === 'stopped') {
          this.emitWatchEnd({ row: 24, outcome: 'stop' }, start, res.eventCount, 'stopped', undefined, fromWatchList);
          return undefined;
        }
        if (res.kind === 'closed' || res.kind === 'initial-events-end') {
          retry.after(undefined);
          const how = res.kind === 'closed' ? res.how : 'eof';
          this.emitWatchEnd(classifyCleanClose(how, this.now() - start, timeoutSeconds), start, res.eventCount, how, undefined, fromWatchList);
          continue;
        }
        retry.after(res.err);
        const c = classifyWatchStreamError(res.err, res.source, this.profile, () => retry.shouldRetry());
        this.emitWatchEnd(c, start, res.eventCount, res.how, res.err, fromWatchList);
        if (c.outcome === 'rewatch-after-backoff') {
          this.log.watch429();
          if (!(await this.backoffSleep('watch-retry', signal))) return undefined;
          continue;
        }
        if (c.outcome === 'rewatch') {
          this.log.retryingInternalError(res.err);
          continue;
        }
        if (isExpiredOrGone(res.err)) this.log.watchClosed(res.err);
        else this.log.watchEndedWithError(res.err);
        this.recordEnding(c, res.err);
        return undefined;
      }
    } finally {
      w?.stop();
    }
  }

  emitWatchEnd(c: Classification, start: number, eventCount: number, how: string, err: unknown, watchList: boolean): void {
    this.emit({
      t: this.now(),
      type: 'watch.end',
      row: c.row,
      outcome: c.outcome,
      durationMs: this.now() - start,
      eventCount,
      how,
      ...(c.reason ? { reason: c.reason } : {}),
      ...(err !== undefined ? { error: err instanceof Error ? err.message : String(err) } : {}),
      watchList,
    });
  }

  // ---- DefaultWatchErrorHandler (§1.3) -------------------------------------------------------------

  private handleWatchError(err: Error): void {
    this.emit({ t: this.now(), type: 'watchErrorHandler', text: err.message });
    if (this.o.watchErrorHandler) {
      this.o.watchErrorHandler(err);
      return;
    }
    // err == io.EOF / io.ErrUnexpectedEOF identity checks never match what a ListerWatcher returns
    // (transport errors arrive wrapped in *url.Error), so only these two branches are reachable.
    if (isExpiredOrGone(err)) this.log.watchClosed(err);
    else this.log.failedToWatch(err);
  }
}

/** Rejects with an AbortError as soon as the signal aborts, whether or not `p` honours it. */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
