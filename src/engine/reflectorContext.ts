/**
 * What the reflector's phases (list: reflectorList.ts, watch-list: watchList.ts, watch:
 * reflectorWatch.ts) may ask of the reflector. The Reflector owns all of its state (last synced
 * RV, the unavailable flag, whether it has synced, the shared backoff, why the previous cycle
 * ended) and hands each phase this context: intent-level operations, never a field to write.
 * Type-only, so the phase files and reflector.ts import no code from each other but downward.
 */
import type { Clock } from './clock';
import type { Classification } from './errors';
import type { ReflectorState, TraceEvent } from '../format/events';
import type { ReflectorStore } from './fifo';
import type { ListOptions, ObjectList, Watcher, WatchOptions } from './listWatch';
import type { Profile } from './profiles';
import type { ReflectorLog } from './reflectorLogs';
import type { WatchHandlingContext } from './watchHandling';

/** A watcher handed from the watch-list phase to the watch phase (§1.8), still open. */
export interface HandedWatch {
  watcher: Watcher;
  timeoutSeconds: number;
}

/** Why the reflector waits one backoff delay. */
export type BackoffPurpose = 'run-loop' | 'watch-retry' | 'watchlist-retry';

/** How a watch request is traced next to its 'request' event. */
export interface WatchStartTrace {
  /** The request is a watch-list (sendInitialEvents). */
  watchList: boolean;
  /** v0.36 ordering guard: whether synthetic ADDs of this stream may move the RV. */
  propagateRVFromStart: boolean;
}

/** One ended watch (or watch-list attempt), as the 'watch.end' trace event records it. */
export interface WatchEnding {
  classification: Classification;
  /** Clock time the very-short-watch measurement started from. */
  start: number;
  eventCount: number;
  how: string;
  err?: unknown;
  watchList: boolean;
}

export interface ReflectorPhaseContext {
  readonly typeDescription: string;
  readonly profile: Profile;
  readonly clock: Clock;
  readonly log: ReflectorLog;
  /** The reflector's target store (the FIFO). */
  readonly store: ReflectorStore;
  /** What handleAnyWatch needs to consume a stream for this reflector. */
  readonly watchHandling: WatchHandlingContext;
  /** The resync period (0 = never) and the informer's shouldResync. */
  readonly resync: { readonly periodMs: number; readonly shouldResync: (() => boolean) | undefined };

  now(): number;
  emit(e: TraceEvent): void;
  /** Moves the reflector to `state` (traced once per change). */
  enter(state: ReflectorState): void;

  /** Sends one LIST request (traced as a 'request'). */
  listPage(opts: ListOptions, signal: AbortSignal): Promise<ObjectList>;
  /**
   * Traces the watch request ('request', then 'watch.start') and opens it. A watch that opens
   * only after the signal aborted is stopped at once; the promise rejects on abort.
   */
  openWatch(opts: WatchOptions, trace: WatchStartTrace, signal: AbortSignal): Promise<Watcher>;

  /** The last synced RV as is (lastSyncResourceVersion). */
  lastSyncResourceVersion(): string;
  /** relistResourceVersion() (§1.5). */
  relistResourceVersion(): string;
  /** rewatchResourceVersion(): "" when the last RV is known to be unavailable. */
  rewatchResourceVersion(): string;
  /** timeoutSeconds for the next watch (draws jitter). */
  watchTimeoutSeconds(): number;

  /** Whether a list or watch-list has filled the store at least once. */
  hasSynced(): boolean;
  /** A list or watch-list replaced the store at `rv`. */
  synced(rv: string, source: 'list' | 'watchlist'): void;
  /** An accepted watch event or bookmark moved the RV. */
  observedResourceVersion(rv: string, source: 'event' | 'bookmark'): void;
  /** The server no longer has (or does not yet have) the last RV: relists read consistently. */
  markResourceVersionUnavailable(): void;
  /** A list or watch-list answered: the last RV is usable again. */
  markResourceVersionAvailable(): void;

  /** Waits one delay of the reflector's shared backoff; false when the signal aborted during it. */
  backoff(purpose: BackoffPurpose, signal: AbortSignal): Promise<boolean>;
  /** Traces how a watch ended ('watch.end'). */
  watchEnded(ending: WatchEnding): void;
  /** This ListAndWatch ends in a relist because of `c`; the next 'relist' event carries it. */
  endsInRelist(c: Classification, err: unknown): void;
}
