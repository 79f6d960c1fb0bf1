/**
 * The trace event vocabulary (informer-trace/v1), types only. Every decision the engine makes is
 * one of these typed events (EngineEvent); the fault injector, the consistency check and the
 * recorder add their own (ToolEvent). The recorder, the timeline, the CLI, the findings and the
 * tests all read them. The engine knows no recorder: it calls an EventSink. Adding a field or an
 * event type is allowed; renaming or changing the meaning of one is not (docs/trace-format.md,
 * src/trace/schema).
 */

export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync' | 'ReplacedAll' | 'SyncAll' | 'Bookmark';

/**
 * 'denied' is the backoff after a request the server refused for who or what was asked
 * (401 Unauthorized, 403 Forbidden, 404 NotFound): client-go just backs off and retries, but no
 * retry can succeed until RBAC, the credentials or the resource change, so it has its own state.
 */
export type ReflectorState = 'listing' | 'watch-listing' | 'watching' | 'backoff' | 'denied' | 'stopped';

/**
 * What the reflector does after a watch or list ends (spec §1.10 legend):
 * rewatch = (a) at once; rewatch-after-backoff = (a) after one delay; relist = (b);
 * consistent-relist = (c); stop = (d); plus the watch-list specific ones.
 */
export type Outcome =
  | 'rewatch'
  | 'rewatch-after-backoff'
  | 'relist'
  | 'consistent-relist'
  | 'stop'
  | 'watchlist-again'
  | 'fallback-to-list';

/** Short, stable names for why a relist happened; the UI groups relists by this. */
export type RelistReason =
  | 'Expired'
  | 'Gone'
  | 'TooLargeResourceVersion'
  | 'InternalError'
  | 'DecodeError'
  | 'TooManyRequests'
  | 'VeryShortWatch'
  | 'ConnectionRefused'
  | 'ConnectionReset'
  | 'Timeout'
  | 'ListFailed'
  | 'WatchOpenFailed'
  | 'ErrorEvent'
  | 'UnexpectedObject'
  | 'ResyncError'
  | 'SyncFailed'
  | 'Other';

/** How an update's old and new objects compare: identical (DeepEqual) or the only part that differs. */
export type UpdateChange = 'identical' | 'resourceVersion' | 'managedFields' | 'status' | 'other';

/** One changed field of an update, by JSON path (e.g. `metadata.labels.app`). */
export interface FieldChange {
  path: string;
  old?: unknown;
  new?: unknown;
}

export type LogLevel = 'error' | 'warning' | 'info' | 'v1' | 'v2' | 'v3' | 'v4' | 'v5';

interface Base {
  /** Monotonic ms from the engine clock. */
  t: number;
}

/** What the engine emits. */
export type EngineEvent =
  // ---- informer lifecycle
  | (Base & { type: 'informer.start'; profile: string; fifo: 'DeltaFIFO' | 'RealFIFO'; atomic: boolean; watchList: boolean; resyncCheckPeriodMs: number })
  | (Base & { type: 'informer.stop' })
  | (Base & { type: 'synced' })
  | (Base & { type: 'handler.added'; handler: string; requestedResyncMs: number; effectiveResyncMs: number; afterStart: boolean; syntheticAdds: number })
  // ---- reflector
  | (Base & { type: 'reflector.state'; state: ReflectorState })
  | (Base & {
      type: 'request';
      verb: 'list' | 'watch';
      rv: string;
      limit?: number;
      continue?: string;
      resourceVersionMatch?: string;
      sendInitialEvents?: boolean;
      allowWatchBookmarks?: boolean;
      timeoutSeconds?: number;
    })
  /**
   * The REST client sends a LIST or WATCH again below the reflector (client-go rest/with_retry.go):
   * the failed attempt's status `code` or transport `error`, the wait before the retry, and which
   * retry of the line's budget this is ("429, retried after 1 s (3/10)"). Live and HTTP paths only.
   */
  | (Base & { type: 'rest.retry'; verb: 'list' | 'watch'; retry: number; maxRetries: number; waitMs: number; code?: number; error?: string })
  /** A relist begins (every list after the first), with the reason carried from what ended the previous cycle. */
  | (Base & { type: 'relist'; reason: RelistReason; row: number; rv: string; consistent: boolean; text: string })
  | (Base & { type: 'list.start'; rv: string; limit: number; initial: boolean })
  | (Base & { type: 'list.page'; page: number; items: number; rv: string; continue?: string })
  | (Base & { type: 'list.expiredContinue' })
  | (Base & { type: 'list.retryConsistent'; reason: 'Expired' | 'Gone' | 'TooLargeResourceVersion' })
  | (Base & { type: 'list.done'; rv: string; items: number; pages: number; paginated: boolean; durationMs: number })
  | (Base & { type: 'list.error'; text: string; code?: number; reason?: string })
  | (Base & { type: 'watch.start'; rv: string; timeoutSeconds: number; watchList: boolean; propagateRVFromStart: boolean })
  /**
   * The server accepted the watch (HTTP 200): the stream is open. Not emitted when the open failed,
   * nor for the empty watcher the REST client hands over after giving up its retries (row 8).
   */
  | (Base & { type: 'watch.opened'; watchList: boolean })
  | (Base & {
      type: 'watch.event';
      eventType: string;
      key?: string;
      rv: string;
      accepted: boolean;
      /** Why a non-accepted event was skipped (spec §1.7), verbatim log text. */
      skipped?: string;
      /** Set on the BOOKMARK that ends a watch-list's initial events. */
      initialEventsEnd?: boolean;
    })
  | (Base & {
      type: 'watch.end';
      /** Row of the classification table, spec §1.10. */
      row: number;
      outcome: Outcome;
      durationMs: number;
      eventCount: number;
      /** How the stream ended: eof, unexpected-eof, reset, timeout, error-event, open-failed, stopped, ... */
      how: string;
      reason?: RelistReason;
      /** The error text client-go carries (err= in its log line), if any. */
      error?: string;
      /** HTTP status code of that error (a watch refused with 401/403/404, an ERROR event's Status), if any. */
      code?: number;
      watchList: boolean;
    })
  | (Base & { type: 'watchlist.fallback'; text: string })
  | (Base & { type: 'backoff'; purpose: 'run-loop' | 'watch-retry' | 'watchlist-retry'; baseMs: number; sleepMs: number; reset: boolean })
  | (Base & { type: 'rv'; rv: string; source: 'list' | 'watchlist' | 'event' | 'bookmark' })
  | (Base & { type: 'rv.unavailable'; value: boolean })
  | (Base & { type: 'resync.timer'; shouldResync: boolean })
  /** The watch error handler ran (spec §4.7) with this error. */
  | (Base & { type: 'watchErrorHandler'; text: string })
  // ---- FIFO
  | (Base & {
      type: 'fifo.enqueue';
      key: string;
      delta: DeltaType;
      rv: string;
      depthKeys: number;
      depthDeltas: number;
      /** Set when the delta carries a DeletedFinalStateUnknown; says what produced it. */
      tombstone?: 'replace-queued' | 'replace-known';
      /** Atomic ReplacedAll: how many objects it carries. */
      objects?: number;
    })
  | (Base & { type: 'fifo.dedup'; key: string; kept: 'older' | 'newer' })
  | (Base & { type: 'fifo.drop'; key: string; delta: DeltaType; why: 'delete-of-unknown' | 'sync-after-delete' | 'sync-busy' })
  | (Base & { type: 'fifo.replace'; items: number; tombstonesFromQueue: number; tombstonesFromKnown: number; atomic: boolean })
  | (Base & { type: 'fifo.resync'; queued: number; skippedBusy: number; atomic: boolean })
  | (Base & { type: 'fifo.pop'; key: string; deltas: DeltaType[]; isInInitialList: boolean; depthKeys: number; depthDeltas: number })
  | (Base & { type: 'fifo.synced' })
  // ---- informer processing and notification
  | (Base & {
      type: 'distribute';
      op: 'add' | 'update' | 'delete';
      key: string;
      isSync: boolean;
      delivered: number;
      skipped: number;
      /** Update only: how old and new compare. */
      change?: UpdateChange;
      /** Update only: the changed fields (at most 20; Secret data/stringData values redacted). */
      diff?: FieldChange[];
      oldRv?: string;
      rv?: string;
    })
  | (Base & {
      type: 'notify';
      handler: string;
      op: 'add' | 'update' | 'delete';
      key: string;
      rv: string;
      oldRv?: string;
      isSync: boolean;
      initialList?: boolean;
      tombstone?: boolean;
      change?: UpdateChange;
      /** Notifications still waiting in this handler's buffer when this one was handed over. */
      pending: number;
    })
  | (Base & { type: 'resync.check'; handler: string; due: boolean; nextResyncMs: number })
  | (Base & { type: 'handler.slow'; handler: string; durationMs: number })
  // ---- client-go style log lines (what client-go would print)
  | (Base & { type: 'log'; level: LogLevel; msg: string; kv?: Record<string, string> });

/** The faults the tool injects, as 'fault.injected' events name them. */
export type FaultName =
  | 'refuseConnections'
  | 'resetWatch'
  | 'expireNextWatch'
  | 'tooLargeNextList'
  | 'internalErrorOnWatch'
  | 'tooManyRequests'
  | 'dropNextDelete'
  | 'slowHandler';

/** What is emitted outside the engine: fault injection, consistency checks, the recorder itself. */
export type ToolEvent =
  | (Base & { type: 'fault.injected'; fault: string; detail?: string })
  | (Base & { type: 'consistency.check'; rv: string; missing: string[]; extra: string[]; rvMismatch: { key: string; cached: string; server: string }[] })
  | (Base & { type: 'trace.dropped'; count: number });

export type TraceEvent = EngineEvent | ToolEvent;

export type TraceEventType = TraceEvent['type'];

/** Distributes to one event type's shape. */
export type EventOf<T extends TraceEventType> = Extract<TraceEvent, { type: T }>;

/** A recorded event: seq is 0,1,2,... in emission order, never reused. */
export type RecordedEvent = TraceEvent & { seq: number };

/** Where the engine sends its events. Must not throw; must not call back into the engine. */
export interface EventSink {
  /** Takes an event the caller may keep, reuse or hand to others: the sink keeps nothing of it that it changes. */
  emit(event: TraceEvent): void;
  /**
   * Optional, the same as emit except that the event is handed over: the caller built it for this
   * one call and never reads, changes or passes it on again, so the sink may keep that very object
   * (the recorder stamps its seq on it instead of copying it). The engine's events all qualify.
   */
  adopt?(event: TraceEvent): void;
}
