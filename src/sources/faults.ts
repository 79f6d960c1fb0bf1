/**
 * Fault injection at the ListerWatcher boundary. FaultInjectingListerWatcher wraps any
 * ListerWatcher (a cluster, the sandbox, a scripted scenario) and, on request, hands the
 * reflector exactly what client-go's REST client would hand it when the named failure happens
 * (spec §1.9, §1.10). The engine cannot tell an injected fault from a real one.
 *
 * Every fault emits one 'fault.injected' event at the moment it takes effect (for
 * refuseConnections and resetWatch: when requested), so on the timeline the cause sits right
 * before the reflector's reaction. One-shot faults (expire/tooLarge/429/dropNextDelete) stay
 * armed until a matching request or event comes; pendingFaults() lists them.
 */
import type { Clock } from '../engine/clock';
import type { EventSink, FaultName } from '../format/events';
import {
  StatusError,
  TransportError,
  transportErrorText,
  type ListerWatcher,
  type ListOptions,
  type ObjectList,
  type Status,
  type StreamEnd,
  type WatchEvent,
  type Watcher,
  type WatchOptions,
} from '../engine/listWatch';

/** The faults this injector applies itself (a slow handler is added to the informer, not here). */
export type ListerWatcherFault = Exclude<FaultName, 'slowHandler'>;

export interface FaultInjectorOptions {
  clock: Clock;
  sink: EventSink;
}

/** The message apiserver's InternalError Status carries for a lost etcd leader. */
export const INTERNAL_ERROR_MESSAGE = 'Internal error occurred: etcdserver: no leader';
/** What a not-yet-ready watch cache answers (ResilientWatchCacheInitialization). */
export const TOO_MANY_REQUESTS_MESSAGE = 'storage is (re)initializing';

function statusObject(s: Status): WatchEvent['object'] {
  return { apiVersion: 'v1', kind: 'Status', status: 'Failure', ...s } as unknown as WatchEvent['object'];
}

/** A numeric RV moved by delta, for plausible "(oldest)" / "current" values; others unchanged. */
function shiftRv(rv: string, delta: number): string {
  return /^\d+$/.test(rv) ? String(Math.max(0, Number(rv) + delta)) : rv;
}

/** Wraps one open watch so that faults can end it, feed it an ERROR event or swallow a DELETED. */
class FaultableWatcher implements Watcher {
  end?: StreamEnd;
  private readonly queued: WatchEvent[] = [];
  private forcedEnd?: StreamEnd;
  private innerNext?: Promise<WatchEvent | null>;
  private wake?: () => void;

  constructor(
    private readonly inner: Watcher | undefined,
    private readonly onDelete: (ev: WatchEvent) => boolean,
    private readonly onClosed: (w: FaultableWatcher) => void,
  ) {}

  get open(): boolean {
    return this.end === undefined;
  }

  /** Delivers ev next, then ends the stream the way an apiserver ends it after an ERROR event. */
  injectErrorAndClose(ev: WatchEvent): void {
    this.queued.push(ev);
    this.forcedEnd ??= { kind: 'eof' };
    this.wake?.();
  }

  /** Ends the stream as soon as the consumer asks for the next event. */
  terminate(end: StreamEnd): void {
    this.forcedEnd ??= end;
    this.wake?.();
  }

  async next(): Promise<WatchEvent | null> {
    for (;;) {
      if (this.end) return null;
      const ev = this.queued.shift();
      if (ev) return ev;
      if (this.forcedEnd) return this.close(this.forcedEnd);
      if (!this.inner) return this.close({ kind: 'eof' });
      this.innerNext ??= this.inner.next();
      const woken = new Promise<'woken'>((resolve) => (this.wake = () => resolve('woken')));
      const got = await Promise.race([this.innerNext.then((v) => ({ v })), woken]);
      this.wake = undefined;
      if (got === 'woken') continue;
      this.innerNext = undefined;
      if (got.v === null) return this.close(this.inner.end ?? { kind: 'eof' });
      if (got.v.type === 'DELETED' && this.onDelete(got.v)) continue;
      return got.v;
    }
  }

  stop(): void {
    if (this.end) return;
    this.close({ kind: 'stopped' });
  }

  private close(end: StreamEnd): null {
    this.end = end;
    this.inner?.stop();
    this.wake?.();
    this.onClosed(this);
    return null;
  }
}

export class FaultInjectingListerWatcher implements ListerWatcher {
  private readonly clock: Clock;
  private readonly sink: EventSink;
  private refuseUntil = -Infinity;
  private readonly armed = new Set<Exclude<ListerWatcherFault, 'refuseConnections' | 'resetWatch' | 'internalErrorOnWatch'>>();
  private internalErrorArmed = false;
  private retryAfterSeconds = 1;
  private readonly watchers = new Set<FaultableWatcher>();

  constructor(
    private readonly inner: ListerWatcher,
    o: FaultInjectorOptions,
  ) {
    this.clock = o.clock;
    this.sink = o.sink;
  }

  get url(): string {
    return this.inner.url;
  }

  get watchListSupported(): boolean | undefined {
    return this.inner.watchListSupported;
  }

  /** Faults armed but not yet triggered, for the UI. */
  pendingFaults(): ListerWatcherFault[] {
    const out: ListerWatcherFault[] = [...this.armed];
    if (this.internalErrorArmed) out.push('internalErrorOnWatch');
    if (this.clock.now() < this.refuseUntil) out.push('refuseConnections');
    return out;
  }

  /**
   * An apiserver restart as the client sees it: open watches end (the server closed them) and
   * every list and watch in the next forMs is refused at TCP level.
   */
  refuseConnections(forMs: number): void {
    this.refuseUntil = this.clock.now() + forMs;
    this.record('refuseConnections', `connections refused for ${forMs} ms; ${this.watchers.size} open watch(es) closed`);
    for (const w of this.watchers) w.terminate({ kind: 'eof' });
  }

  /** Ends the open watch stream(s) as a connection reset (probable EOF; spec §1.10 row 4). */
  resetWatch(): void {
    const message = 'read: connection reset by peer';
    this.record('resetWatch', `${this.watchers.size} open watch(es) reset: ${message}`);
    for (const w of this.watchers) w.terminate({ kind: 'reset', message });
  }

  /** The next watch opens and at once gets an ERROR 410 Expired event (spec §1.10 row 9). */
  expireNextWatch(): void {
    this.armed.add('expireNextWatch');
  }

  /** The next list fails with 504 Timeout, cause ResourceVersionTooLarge (spec §1.5, row 11). */
  tooLargeNextList(): void {
    this.armed.add('tooLargeNextList');
  }

  /** ERROR 500 InternalError in the open watch stream, or in the next one if none is open (row 17). */
  internalErrorOnWatch(): void {
    const open = [...this.watchers].find((w) => w.open);
    if (open) {
      this.record('internalErrorOnWatch', `ERROR event 500 InternalError: ${INTERNAL_ERROR_MESSAGE}`);
      open.injectErrorAndClose(this.internalErrorEvent());
    } else {
      this.internalErrorArmed = true;
    }
  }

  /** The next watch request is answered 429 TooManyRequests (row 14). */
  tooManyRequests(retryAfterSeconds: number): void {
    this.retryAfterSeconds = retryAfterSeconds;
    this.armed.add('tooManyRequests');
  }

  /** Swallows the next DELETED event while the watch stays up: the lost-delete symptom (etcd PR 17555). */
  dropNextDelete(): void {
    this.armed.add('dropNextDelete');
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList> {
    this.throwIfRefused();
    if (this.armed.delete('tooLargeNextList')) {
      const rv = options.resourceVersion || '0';
      const message = `Timeout: Too large resource version: ${rv}, current: ${shiftRv(rv, -1)}`;
      this.record('tooLargeNextList', `list answered 504 Timeout: ${message}`);
      throw new StatusError({
        kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 504, reason: 'Timeout', message,
        details: { causes: [{ type: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      });
    }
    return this.inner.list(options, signal);
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    this.throwIfRefused();
    if (this.armed.delete('tooManyRequests')) {
      this.record('tooManyRequests', `watch answered 429 TooManyRequests (Retry-After ${this.retryAfterSeconds}s): ${TOO_MANY_REQUESTS_MESSAGE}`);
      throw new StatusError({
        kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429, reason: 'TooManyRequests',
        message: TOO_MANY_REQUESTS_MESSAGE, details: { retryAfterSeconds: this.retryAfterSeconds },
      });
    }
    if (this.armed.delete('expireNextWatch')) {
      const rv = options.resourceVersion || '0';
      const message = `too old resource version: ${rv} (${shiftRv(rv, 1)})`;
      this.record('expireNextWatch', `watch from RV ${JSON.stringify(options.resourceVersion)} gets ERROR 410 Expired: ${message}`);
      const w = this.track(undefined);
      w.injectErrorAndClose({ type: 'ERROR', object: statusObject({ code: 410, reason: 'Expired', message }) });
      return w;
    }
    const w = this.track(await this.inner.watch(options, signal));
    if (this.internalErrorArmed) {
      this.internalErrorArmed = false;
      this.record('internalErrorOnWatch', `ERROR event 500 InternalError: ${INTERNAL_ERROR_MESSAGE}`);
      w.injectErrorAndClose(this.internalErrorEvent());
    }
    return w;
  }

  private internalErrorEvent(): WatchEvent {
    return { type: 'ERROR', object: statusObject({ code: 500, reason: 'InternalError', message: INTERNAL_ERROR_MESSAGE }) };
  }

  private track(inner: Watcher | undefined): FaultableWatcher {
    const w = new FaultableWatcher(
      inner,
      (ev) => this.swallowDelete(ev),
      (closed) => this.watchers.delete(closed),
    );
    this.watchers.add(w);
    return w;
  }

  private swallowDelete(ev: WatchEvent): boolean {
    if (!this.armed.delete('dropNextDelete')) return false;
    const meta = ev.object.metadata;
    const key = meta?.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta?.name ?? '');
    this.record('dropNextDelete', `DELETED ${key} (rv ${meta?.resourceVersion ?? ''}) swallowed; the watch stays up`);
    return true;
  }

  private throwIfRefused(): void {
    if (this.clock.now() < this.refuseUntil) throw new TransportError('connection-refused', transportErrorText('connection-refused', this.inner.url));
  }

  private record(fault: ListerWatcherFault, detail: string): void {
    this.sink.emit({ t: this.clock.now(), type: 'fault.injected', fault, detail });
  }
}
