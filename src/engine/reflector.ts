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
import { NO_RECORDED_ENDING, type DecisionRow } from './decisionRows';
import { isExpiredOrGone, statusOf, type Classification } from './errors';
import type { EventSink, ReflectorState, RelistReason, TraceEvent } from '../format/events';
import type { ReflectorStore } from './fifo';
import type { ListerWatcher, Watcher, WatchOptions } from './listWatch';
import type { Profile } from './profiles';
import type { BackoffPurpose, HandedWatch, ReflectorPhaseContext, WatchEnding, WatchStartTrace } from './reflectorContext';
import { ReflectorLog } from './reflectorLogs';
import { ReflectorLister } from './reflectorList';
import { watchWithResync } from './reflectorWatch';
import { handOver, packerOf, type TracePacker } from './sink';
import { untilAborted } from './watchHandling';
import { runWatchList } from './watchList';
import { WatchListClient } from './watchListClient';

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
  row: DecisionRow | typeof NO_RECORDED_ENDING;
  reason: RelistReason;
  text: string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : err === undefined ? '' : String(err);
}

export class Reflector {
  readonly name: string;
  private readonly sink: EventSink;
  private readonly packer: TracePacker | undefined;
  private readonly clock: Clock;
  private readonly profile: Profile;
  private readonly rand: () => number;
  private readonly log: ReflectorLog;
  private readonly backoffPolicy: BackoffPolicy;
  private readonly useWatchList: boolean;
  /** The phases' view of this reflector. */
  private readonly phases: ReflectorPhaseContext;
  private readonly lister: ReflectorLister;
  /** Where the list phase's pages come from: the ListerWatcher, or v0.32's client-side watch-list over it. */
  private readonly listClient: Pick<ListerWatcher, 'list'>;
  private lastSyncRV = '';
  private rvUnavailable = false;
  /** A list or watch-list has filled the store once. */
  private hasSyncedOnce = false;
  private syncAttempted = false;
  private lastEnding: Ending | undefined;
  private state: ReflectorState | undefined;

  constructor(private readonly o: ReflectorOptions) {
    this.name = o.name;
    this.sink = o.sink;
    this.packer = packerOf(o.sink);
    this.clock = o.clock;
    this.profile = o.profile;
    this.rand = o.rand ?? Math.random;
    this.log = new ReflectorLog(o.profile, o.name, o.typeDescription, o.clock, o.sink);
    this.backoffPolicy = newReflectorBackoff(o.profile, o.clock, this.rand);
    this.useWatchList = o.profile.gates.WatchListClient && o.listerWatcher.watchListSupported !== false;
    if (o.profile.gates.WatchListClient && !this.useWatchList) this.log.watchListUnsupported();
    this.listClient = this.newListClient(o.listerWatcher);
    this.phases = this.phaseContext();
    this.lister = new ReflectorLister(this.phases);
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
        if (err && !signal.aborted && this.handleWatchError(err) && this.o.profile.handleErrorSleepMs > 0) {
          try {
            await this.clock.sleep(this.o.profile.handleErrorSleepMs, signal);
          } catch (e) {
            if (!isAbortError(e)) throw e;
          }
        }
        if (signal.aborted) {
          // wait.BackoffUntil (sliding) asks the backoff manager for its next timer before it
          // sees the stop: one more jitter draw from the shared source (a fresh informer after a
          // restart draws after it). No wait, no trace event.
          this.backoffPolicy.step();
          break;
        }
        if (!(await this.backoff('run-loop', signal, isAccessDenied(err)))) break;
      }
    } finally {
      this.setState('stopped');
      this.log.stopping(this.o.resyncPeriodMs);
    }
  }

  // ---- ListAndWatch (§1.4) ------------------------------------------------------------------------

  private async listAndWatch(signal: AbortSignal): Promise<Error | undefined> {
    this.log.listingAndWatching();
    this.announceRelist();
    let handed: HandedWatch | undefined;
    let fallbackToList = !this.useWatchList;
    if (this.useWatchList) {
      const r = await runWatchList(this.phases, signal);
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
      const err = await this.lister.list(signal);
      if (err) return err;
    }
    this.log.cachesPopulated();
    return watchWithResync(this.phases, signal, handed);
  }

  /** Every sync after the first ListAndWatch is a relist, carrying what ended the previous cycle. */
  private announceRelist(): void {
    const first = !this.syncAttempted;
    this.syncAttempted = true;
    if (first) return;
    const rv = this.useWatchList ? this.rewatchResourceVersion() : this.relistResourceVersion();
    const e = this.lastEnding ?? { row: NO_RECORDED_ENDING, reason: 'Other' as const, text: '' };
    // RV "" is a consistent read only when the last RV was rejected (Expired/Gone/TooLarge); a
    // watch-list that never synced also asks for "" and falls back to a LIST at "0".
    this.emit({ t: this.now(), type: 'relist', reason: e.reason, row: e.row, rv, consistent: rv === '' && this.rvUnavailable, text: e.text });
  }

  // ---- DefaultWatchErrorHandler (§1.3) -------------------------------------------------------------

  /** True when the error went to utilruntime.HandleError (the default handler's last branch). */
  private handleWatchError(err: Error): boolean {
    this.emit({ t: this.now(), type: 'watchErrorHandler', text: err.message });
    if (this.o.watchErrorHandler) {
      this.o.watchErrorHandler(err);
      return false;
    }
    // err == io.EOF / io.ErrUnexpectedEOF identity checks never match what a ListerWatcher returns
    // (transport errors arrive wrapped in *url.Error), so only these two branches are reachable.
    if (isExpiredOrGone(err)) {
      this.log.watchClosed(err);
      return false;
    }
    this.log.failedToWatch(err);
    return true;
  }

  // ---- the state the phases reach through their context ------------------------------------------

  private phaseContext(): ReflectorPhaseContext {
    const o = this.o;
    return {
      typeDescription: o.typeDescription,
      profile: o.profile,
      clock: o.clock,
      log: this.log,
      store: o.store,
      watchHandling: {
        name: o.name,
        clock: o.clock,
        sink: o.sink,
        log: this.log,
        expectedGVK: o.expectedGVK,
        bookmarksToStore: o.profile.bookmarksToStore,
        rvOrderingGuard: o.profile.rvOrderingGuard,
        skipsTableWatchObjects: o.profile.skipsTableWatchObjects,
      },
      resync: { periodMs: o.resyncPeriodMs, shouldResync: o.shouldResync },
      now: () => this.now(),
      emit: (e) => this.emit(e),
      enter: (state) => this.setState(state),
      listPage: (opts, signal) => this.listClient.list(opts, signal),
      openWatch: (opts, trace, signal) => this.openWatch(opts, trace, signal),
      lastSyncResourceVersion: () => this.lastSyncRV,
      relistResourceVersion: () => this.relistResourceVersion(),
      rewatchResourceVersion: () => this.rewatchResourceVersion(),
      watchTimeoutSeconds: () => Math.floor(MIN_WATCH_TIMEOUT_S * (this.rand() + 1)),
      hasSynced: () => this.hasSyncedOnce,
      synced: (rv, source) => {
        this.setLastSyncRV(rv, source);
        this.hasSyncedOnce = true;
      },
      observedResourceVersion: (rv, source) => this.setLastSyncRV(rv, source),
      markResourceVersionUnavailable: () => this.setUnavailable(true),
      markResourceVersionAvailable: () => this.setUnavailable(false),
      backoff: (purpose, signal) => this.backoff(purpose, signal),
      watchEnded: (ending) => this.watchEnded(ending),
      endsInRelist: (c, err) => this.recordEnding(c, err),
    };
  }

  private emit(e: TraceEvent): void {
    handOver(this.sink, e);
  }

  private now(): number {
    return this.clock.now();
  }

  private setState(state: ReflectorState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit({ t: this.now(), type: 'reflector.state', state });
  }

  private setLastSyncRV(rv: string, source: 'list' | 'watchlist' | 'event' | 'bookmark'): void {
    if (rv === this.lastSyncRV) return;
    this.lastSyncRV = rv;
    const t = this.now();
    if (this.packer?.packRv(t, rv, source)) return;
    this.emit({ t, type: 'rv', rv, source });
  }

  private setUnavailable(value: boolean): void {
    if (value === this.rvUnavailable) return;
    this.rvUnavailable = value;
    this.emit({ t: this.now(), type: 'rv.unavailable', value });
  }

  private rewatchResourceVersion(): string {
    return this.rvUnavailable ? '' : this.lastSyncRV;
  }

  /** relistResourceVersion() (§1.5); ≤1.16 always "0". */
  private relistResourceVersion(): string {
    if (this.profile.relistAtZero) return '0';
    if (this.rvUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  private async backoff(purpose: BackoffPurpose, signal: AbortSignal, denied = false): Promise<boolean> {
    const step = this.backoffPolicy.step();
    this.emit({ t: this.now(), type: 'backoff', purpose, baseMs: step.baseMs, sleepMs: step.sleepMs, reset: step.reset });
    this.setState(denied ? 'denied' : 'backoff');
    try {
      await this.clock.sleep(step.sleepMs, signal);
      return true;
    } catch (err) {
      if (isAbortError(err) || signal.aborted) return false;
      throw err;
    }
  }

  private emitRequest(verb: 'list' | 'watch', opts: WatchOptions & { limit?: number; continue?: string }): void {
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

  /** Profile.listUsesWatchList: v0.32's client turns eligible LISTs into watch-lists while WatchListClient is on. */
  private newListClient(lw: ListerWatcher): Pick<ListerWatcher, 'list'> {
    if (this.profile.listUsesWatchList && this.profile.gates.WatchListClient) {
      return new WatchListClient(lw, {
        onRequest: (verb, opts) => this.emitRequest(verb, opts),
        onFallback: (err) => this.log.listWatchListFallback(lw.url, err),
      });
    }
    return {
      list: (opts, signal) => {
        this.emitRequest('list', opts);
        return lw.list(opts, signal);
      },
    };
  }

  private openWatch(opts: WatchOptions, trace: WatchStartTrace, signal: AbortSignal): Promise<Watcher> {
    this.emitRequest('watch', opts);
    this.emit({
      t: this.now(),
      type: 'watch.start',
      rv: opts.resourceVersion,
      timeoutSeconds: opts.timeoutSeconds ?? 0,
      watchList: trace.watchList,
      propagateRVFromStart: trace.propagateRVFromStart,
    });
    const opening = this.o.listerWatcher.watch(opts, signal);
    opening.then(
      (w) => {
        if (signal.aborted) w.stop();
        else if (w.end?.kind !== 'open-retries-exhausted') this.emit({ t: this.now(), type: 'watch.opened', watchList: trace.watchList });
      },
      () => undefined,
    );
    return untilAborted(opening, signal);
  }

  private recordEnding(c: Classification, err: unknown): void {
    this.lastEnding = { row: c.row, reason: c.reason ?? 'Other', text: errorText(err) };
  }

  private watchEnded({ classification: c, start, eventCount, how, err, watchList }: WatchEnding): void {
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
      ...(statusOf(err)?.code ? { code: statusOf(err)!.code } : {}),
      watchList,
    });
  }
}

/** A 401, 403 or 404 from the server: retrying cannot help until credentials, RBAC or the resource change. */
export function isAccessDenied(err: unknown): boolean {
  const code = statusOf(err)?.code;
  return code === 401 || code === 403 || code === 404;
}
