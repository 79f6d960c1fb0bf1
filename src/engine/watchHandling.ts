/**
 * Consuming one watch stream (client-go handleAnyWatch, spec §1.7), shared by the plain watch and
 * the watch-list phase, plus the small pieces both need: the resync error slot, the watch-list
 * temporary store and the internal-error retry window.
 */
import { abortError, type Clock } from './clock';
import { VeryShortWatchError, describeObject, errorFromWatchObject, type CleanEnd } from './errors';
import type { EventSink, TraceEvent } from '../format/events';
import { handOver, isRecorded, packerOf } from './sink';
import type { ReflectorStore } from './fifo';
import type { StreamEnd, WatchEvent, Watcher } from './listWatch';
import { GoMap } from './goMap';
import { lazyStateOf, plainObject, storeKey } from './lazyObject';
import { hasMetadata, metaField, typeField, type KubeObject } from './objects';
import type { Profile } from './profiles';
import { goDuration, type ReflectorLog } from './reflectorLogs';

/** The annotation on the BOOKMARK that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
export const VERY_SHORT_WATCH_MS = 1000;
export const BOOKMARK_WARNING_TICK_MS = 10_000;

/**
 * resyncerrc: a one-slot channel the resync timer writes its store.resync() error into; the
 * running (or next) watch stream picks it up and ends (row 23).
 */
export class ResyncErrorSlot {
  private err: { value: unknown } | undefined;
  private waiter: (() => void) | undefined;

  put(err: unknown): void {
    if (this.err) return;
    this.err = { value: err };
    this.waiter?.();
  }

  take(): { value: unknown } | undefined {
    const e = this.err;
    this.err = undefined;
    return e;
  }

  /** Calls fn when an error is put; the returned function unsubscribes. */
  subscribe(fn: () => void): () => void {
    this.waiter = fn;
    return () => {
      if (this.waiter === fn) this.waiter = undefined;
    };
  }
}

export function objectKey(obj: KubeObject | undefined): string {
  if (!obj || !hasMetadata(obj)) return '';
  return keyOfNames(metaField(obj, 'namespace'), metaField(obj, 'name'));
}

function keyOfNames(namespace: string | undefined, name: string | undefined): string {
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** The watch-list temporary store: a plain Store keyed like DeletionHandlingMetaNamespaceKeyFunc. */
export class TemporaryStore implements ReflectorStore {
  /** A Go map in client-go: its List() order is one Go can produce (goMap.ts). */
  private items = new GoMap<KubeObject>();
  /** `transform`: the FIFO's transformer, which v0.34+ give the temporary store (WithTransformer). */
  constructor(private readonly transform?: (obj: KubeObject) => KubeObject) {}
  add(obj: KubeObject): void {
    this.items.set(objectKey(obj), this.transform ? this.transform(plainObject(obj)) : obj);
  }
  update(obj: KubeObject): void {
    this.add(obj);
  }
  delete(obj: KubeObject): void {
    this.items.delete(objectKey(obj));
  }
  replace(list: KubeObject[]): void {
    this.items = new GoMap<KubeObject>(list.length);
    for (const o of list) this.add(o);
  }
  resync(): void {
    /* a plain cache Store's Resync does nothing */
  }
  list(): KubeObject[] {
    return this.items.valuesInOrder();
  }
}

/**
 * NewRetryWithDeadline(maxInternalErrorRetry, 1 min, IsInternalError): re-watch after internal
 * errors while the first of a run of them is younger than the window. A window of 0 (every
 * informer) never retries.
 */
export class InternalErrorRetry {
  private firstErrorTime: number | undefined;
  private lastErrorTime: number | undefined;

  constructor(
    private readonly maxRetryMs: number,
    private readonly clock: Clock,
    private readonly isRetryable: (err: unknown) => boolean,
    private readonly minResetMs = 60_000,
  ) {}

  after(err: unknown): void {
    if (err === undefined || !this.isRetryable(err)) return;
    const now = this.clock.now();
    if (this.lastErrorTime === undefined || now - this.lastErrorTime >= this.minResetMs) this.firstErrorTime = undefined;
    this.firstErrorTime ??= now;
    this.lastErrorTime = now;
  }

  shouldRetry(): boolean {
    if (this.maxRetryMs <= 0) return false;
    if (this.firstErrorTime !== undefined && this.clock.now() - this.firstErrorTime <= this.maxRetryMs) return true;
    this.firstErrorTime = undefined;
    this.lastErrorTime = undefined;
    return false;
  }
}

export interface WatchHandlingContext {
  name: string;
  clock: Clock;
  sink: EventSink;
  log: ReflectorLog;
  /** apiVersion/kind every event object must have; undefined skips the check. */
  expectedGVK?: { apiVersion: string; kind: string };
  /** Whether BOOKMARK RVs go to store.bookmark (v0.36 ReflectorBookmarkStore). */
  bookmarksToStore: boolean;
  /** v0.36 ordering guard in effect (§1.7). */
  rvOrderingGuard: boolean;
  /** Which Table objects are skipped (Profile.skipsTableWatchObjects). */
  skipsTableWatchObjects: Profile['skipsTableWatchObjects'];
}

export interface HandleWatchRequest {
  watcher: Watcher;
  store: ReflectorStore;
  /** clock time taken before the watch request was sent. */
  start: number;
  /** Watch-list mode: return (watcher left open) on the initial-events-end bookmark. */
  exitOnInitialEventsEnd: boolean;
  propagateRVFromStart: boolean;
  setResourceVersion(rv: string, source: 'event' | 'bookmark'): void;
  signal: AbortSignal;
  resyncErrors?: ResyncErrorSlot;
}

export type HandleWatchResult =
  | { kind: 'closed'; how: CleanEnd; endMessage?: string; eventCount: number }
  | { kind: 'initial-events-end'; eventCount: number }
  | { kind: 'error'; err: unknown; source: 'stream' | 'resync'; how: string; eventCount: number }
  | { kind: 'stopped'; eventCount: number };

type Next = { kind: 'event'; event: WatchEvent } | { kind: 'closed' } | { kind: 'stop' } | { kind: 'resync'; err: unknown } | { kind: 'failed'; err: unknown };

const STOP: Next = Object.freeze({ kind: 'stop' });
const CLOSED: Next = Object.freeze({ kind: 'closed' });

/**
 * The waits of one stream's consume loop, each for whichever comes first: the next event, the
 * stop signal or a resync error. The signal and the resync slot are listened to once for the
 * whole stream, not once per event (an abort listener added and removed per event, with its
 * closures, was a measurable part of each event's cost); each wait is still one promise settled
 * from the watcher's next() as before, so what runs between two events is unchanged.
 */
class NextWaiter {
  private settle: ((n: Next) => void) | undefined;
  private readonly unsubscribe: (() => void) | undefined;
  private readonly onAbort = (): void => this.finish(STOP);
  private readonly onEvent = (event: WatchEvent | null): void => this.finish(event === null ? CLOSED : { kind: 'event', event });
  private readonly onFailed = (err: unknown): void => this.finish({ kind: 'failed', err });

  constructor(
    private readonly w: Watcher,
    private readonly signal: AbortSignal,
    private readonly slot: ResyncErrorSlot | undefined,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
    this.unsubscribe = slot?.subscribe(() => {
      // An error put between two waits stays in the slot for the next one to take.
      if (this.settle !== undefined) this.finish({ kind: 'resync', err: slot.take()?.value });
    });
  }

  next(): Promise<Next> {
    if (this.signal.aborted) return Promise.resolve(STOP);
    const pending = this.slot?.take();
    if (pending) return Promise.resolve({ kind: 'resync', err: pending.value });
    return new Promise<Next>((resolve) => {
      this.settle = resolve;
      this.w.next().then(this.onEvent, this.onFailed);
    });
  }

  /** Settles the wait in progress, if any (a next() that answers after a stop or a resync error finds none). */
  private finish(n: Next): void {
    const settle = this.settle;
    if (settle === undefined) return;
    this.settle = undefined;
    settle(n);
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.unsubscribe?.();
  }
}

function cleanEndOf(end: StreamEnd | undefined): { how: CleanEnd; message?: string } {
  if (!end) return { how: 'eof' };
  switch (end.kind) {
    case 'reset':
    case 'timeout':
    case 'open-retries-exhausted':
      return { how: end.kind, message: end.message };
    case 'unexpected-eof':
      return { how: 'unexpected-eof', message: 'unexpected EOF' };
    default:
      return { how: end.kind };
  }
}

function gvkOf(o: KubeObject): string {
  return `${typeField(o, 'apiVersion') ?? ''}, Kind=${typeField(o, 'kind') ?? ''}`;
}

function isTable(o: KubeObject): boolean {
  if (typeField(o, 'kind') !== 'Table') return false;
  const apiVersion = typeField(o, 'apiVersion');
  return apiVersion === 'meta.k8s.io/v1' || apiVersion === 'meta.k8s.io/v1beta1';
}

/** Whether a Table object is skipped; `initialEvents` is true while a watch-list streams its initial events. */
function skipsTable(rule: Profile['skipsTableWatchObjects'], initialEvents: boolean): boolean {
  return rule === 'always' || (rule === 'initial-watch-list' && initialEvents);
}

/**
 * Applies a stream's events to the store until it closes, errors, the signal aborts, a resync
 * error arrives, or (watch-list) the initial-events-end bookmark is seen. Does not stop the watcher.
 */
export async function handleAnyWatch(ctx: WatchHandlingContext, req: HandleWatchRequest): Promise<HandleWatchResult> {
  const ticker = req.exitOnInitialEventsEnd ? startBookmarkWarningTicker(ctx, req.start) : undefined;
  try {
    return await consume(ctx, req, ticker);
  } finally {
    ticker?.stop();
  }
}

interface BookmarkWarningTicker {
  observeEvent(): void;
  stop(): void;
}

/**
 * Watch-list only: every 10 s without the initial-events-end bookmark, say how long the stream has
 * been waiting (since its start, or since its last event).
 */
function startBookmarkWarningTicker(ctx: WatchHandlingContext, watchStart: number): BookmarkWarningTicker {
  let lastEvent: number | undefined;
  let timer = ctx.clock.setTimer(BOOKMARK_WARNING_TICK_MS, tick);
  function tick(): void {
    const now = ctx.clock.now();
    ctx.log.bookmarkExpired(
      lastEvent === undefined
        ? `${ctx.name}: awaiting required bookmark event for initial events stream, no events received for ${goDuration(now - watchStart)}`
        : `${ctx.name}: hasn't received required bookmark event marking the end of initial events stream, received last event ${goDuration(now - lastEvent)} ago`,
    );
    timer = ctx.clock.setTimer(BOOKMARK_WARNING_TICK_MS, tick);
  }
  return {
    observeEvent: () => {
      lastEvent = ctx.clock.now();
    },
    stop: () => timer.cancel(),
  };
}

async function consume(ctx: WatchHandlingContext, req: HandleWatchRequest, ticker: BookmarkWarningTicker | undefined): Promise<HandleWatchResult> {
  const waiter = new NextWaiter(req.watcher, req.signal, req.resyncErrors);
  try {
    return await consumeWith(ctx, req, ticker, waiter);
  } finally {
    waiter.close();
  }
}

async function consumeWith(ctx: WatchHandlingContext, req: HandleWatchRequest, ticker: BookmarkWarningTicker | undefined, waiter: NextWaiter): Promise<HandleWatchResult> {
  const { clock, sink, log } = ctx;
  const tracing = isRecorded(sink);
  let eventCount = 0;
  // v0.36: synthetic ADDs of a watch started at ""/"0" arrive in no RV order and must not move the RV.
  let eventReceivedBesidesAdded = false;
  for (;;) {
    const next = await waiter.next();
    if (next.kind === 'stop') return { kind: 'stopped', eventCount };
    if (next.kind === 'resync') return { kind: 'error', err: next.err, source: 'resync', how: 'resync-error', eventCount };
    if (next.kind === 'failed') return { kind: 'error', err: next.err, source: 'stream', how: 'stream-failed', eventCount };
    if (next.kind === 'closed') break;
    const event = next.event;
    const obj = event.object;
    ticker?.observeEvent();
    // Each event is traced (when the sink keeps events) as accepted, or as skipped with the log text that says why.
    if (event.type === 'ERROR') {
      if (tracing) emitWatchEvent(sink, clock.now(), event, false, undefined, undefined);
      return { kind: 'error', err: errorFromWatchObject(obj), source: 'stream', how: 'error-event', eventCount };
    }
    if (ctx.expectedGVK && obj && typeof obj === 'object' && (typeField(obj, 'apiVersion') !== ctx.expectedGVK.apiVersion || typeField(obj, 'kind') !== ctx.expectedGVK.kind)) {
      const expected = `${ctx.expectedGVK.apiVersion}, Kind=${ctx.expectedGVK.kind}`;
      log.unexpectedGVK(expected, gvkOf(obj));
      if (tracing) emitWatchEvent(sink, clock.now(), event, false, 'Unexpected watch event object gvk', undefined);
      continue;
    }
    if (obj && typeof obj === 'object' && isTable(obj) && skipsTable(ctx.skipsTableWatchObjects, req.exitOnInitialEventsEnd)) {
      log.unsupportedGVK(gvkOf(obj));
      if (tracing) emitWatchEvent(sink, clock.now(), event, false, 'Unsupported watch event object gvk', undefined);
      continue;
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
      log.unableToUnderstand(event.type);
      if (tracing) emitWatchEvent(sink, clock.now(), event, false, 'Unable to understand watch event', undefined);
      continue;
    }
    const rv = metaField(obj, 'resourceVersion') ?? '';
    let initialEventsEnd = false;
    switch (event.type) {
      case 'ADDED':
        storeOp(req.store, 'add', obj, log);
        break;
      case 'MODIFIED':
        eventReceivedBesidesAdded = true;
        storeOp(req.store, 'update', obj, log);
        break;
      case 'DELETED':
        eventReceivedBesidesAdded = true;
        storeOp(req.store, 'delete', obj, log);
        break;
      case 'BOOKMARK':
        eventReceivedBesidesAdded = true;
        initialEventsEnd = obj.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
        if (ctx.bookmarksToStore && req.store.bookmark) {
          try {
            req.store.bookmark(rv);
          } catch (e) {
            log.bookmarkStoreError(e);
          }
        }
        break;
      default:
        log.unknownEvent(event.type);
    }
    if (tracing) emitWatchEvent(sink, clock.now(), event, true, undefined, initialEventsEnd);
    if (!ctx.rvOrderingGuard || req.propagateRVFromStart || eventReceivedBesidesAdded) {
      req.setResourceVersion(rv, event.type === 'BOOKMARK' ? 'bookmark' : 'event');
    }
    eventCount++;
    if (req.exitOnInitialEventsEnd && initialEventsEnd) {
      log.exitingOnInitialEventsEnd(eventCount, clock.now() - req.start);
      return { kind: 'initial-events-end', eventCount };
    }
  }
  const { how, message } = cleanEndOf(req.watcher.end);
  if (how === 'unexpected-eof' || how === 'reset' || how === 'timeout') log.streamEnd(how, message ?? '');
  if (clock.now() - req.start < VERY_SHORT_WATCH_MS && eventCount === 0) {
    return { kind: 'error', err: new VeryShortWatchError(ctx.name), source: 'stream', how, eventCount };
  }
  log.watchClose(eventCount);
  return { kind: 'closed', how, endMessage: message, eventCount };
}

/** The store's add, update or delete of a watch event's object; an error it throws is logged as client-go's reflector logs it. */
function storeOp(store: ReflectorStore, op: 'add' | 'update' | 'delete', obj: KubeObject, log: ReflectorLog): void {
  try {
    if (op === 'add') store.add(obj);
    else if (op === 'update') store.update(obj);
    else store.delete(obj);
  } catch (e) {
    log.storeError(op, describeObject(obj), e);
  }
}

function emitWatchEvent(sink: EventSink, t: number, event: WatchEvent, accepted: boolean, skipped: string | undefined, initialEventsEnd: boolean | undefined): void {
  const obj = event.object;
  // An unparsed lazy object's fields read from its state, asked of it once (objectKey and metaField would ask three times).
  const f = obj ? lazyStateOf(obj) : undefined;
  const fields = f !== undefined && f.parsed === undefined ? f : undefined;
  // The key the store's key function makes once on the state (the same text): one string for this event's trace events.
  const key = fields ? (fields.hasMetadata ? storeKey(fields) : '') : objectKey(obj);
  const rv = fields ? (fields.resourceVersion ?? '') : obj ? (metaField(obj, 'resourceVersion') ?? '') : '';
  if (skipped === undefined && !initialEventsEnd && packerOf(sink)?.packWatchEvent(t, event.type, key || undefined, rv, accepted)) return;
  const e: TraceEvent & { type: 'watch.event' } = { t, type: 'watch.event', eventType: event.type, key: key || undefined, rv, accepted };
  if (skipped) e.skipped = skipped;
  if (initialEventsEnd) e.initialEventsEnd = initialEventsEnd;
  handOver(sink, e);
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
