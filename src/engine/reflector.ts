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
import { isAbortError, type Clock } from './clock';
import { isExpiredOrGone, type Classification } from './errors';
import type { EventSink, ReflectorState, RelistReason, TraceEvent } from '../format/events';
import type { ReflectorStore } from './fifo';
import type { ListerWatcher, Watcher, WatchOptions } from './listWatch';
import type { Profile } from './profiles';
import { ReflectorLog } from './reflectorLogs';
import { listIntoStore } from './reflectorList';
import { watchWithResync } from './reflectorWatch';
import { untilAborted, type WatchHandlingContext } from './watchHandling';
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
  /**
   * paginatedResult is sticky: a list at RV "0" came back paginated, so the watch cache is assumed
   * off. synced: a list or watch-list has filled the store once.
   */
  readonly listState = { paginatedResult: false, synced: false };
  readonly resyncPeriodMs: number;
  readonly shouldResync: (() => boolean) | undefined;
  private syncAttempted = false;
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
    this.resyncPeriodMs = o.resyncPeriodMs;
    this.shouldResync = o.shouldResync;
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
      const err = await listIntoStore(this, signal);
      if (err) return err;
    }
    this.log.cachesPopulated();
    return watchWithResync(this, signal, handed);
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
