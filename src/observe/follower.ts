/**
 * A ListerWatcher that sends nothing: it answers the engine's reflector with the responses the
 * observed process got, in the order the process sent its requests. The engine decides what it
 * would request next (its own profile, backoff and classification); this class compares that
 * with what the process did send, reports every difference as a divergence, and hands the
 * observed response over. So the engine's reflector, FIFO and informer go through exactly the
 * lists, watches, events and endings the process went through (PASSIVE mode).
 *
 * The REST client's own retries are recognised: a failure the REST client retries (a reset or
 * EOF, or a 429/5xx with Retry-After) followed by the same request again is a retry, not a
 * reflector decision, as inside HttpListerWatcher.
 */
import { PassThrough } from 'node:stream';
import { abortError, RealClock, type Clock, type TimerHandle } from '../engine/clock';
import { TransportError, type ListerWatcher, type ListOptions, type ObjectList, type WatchOptions, type Watcher } from '../engine/listWatch';
import { retryAfterSeconds, statusErrorFrom, type GetResponse } from '../kube/http';
import { decodeList } from '../kube/listerWatcher';
import { EmptyWatcher, StreamWatcher } from '../kube/watchStream';
import type { BodyEnd, ObservedExchange, ObservedFailure, ObservedResponse } from './exchange';
import type { CollectionRef } from './requests';

/** A difference between what the engine would send next and what the process sent. */
export interface Divergence {
  kind: 'relist-instead-of-watch' | 'list-instead-of-watch-list' | 'watch-instead-of-list' | 'other-resource-version' | 'other-options' | 'no-backoff';
  /** What the engine (the profile) would have sent. */
  expected: string;
  /** What the process sent. */
  got: string;
  /** Date.now() of the process's request. */
  at: number;
}

/** The body of one observed response, buffered from the moment it arrived, replayable once. */
class RecordedBody {
  private readonly chunks: Buffer[] = [];
  private end: BodyEnd | undefined;
  private sink: PassThrough | undefined;
  private closeHeldUntil: (() => Promise<void>) | undefined;

  constructor(readonly response: ObservedResponse) {
    response.body.on('data', (c: Buffer) => {
      if (this.sink) this.sink.write(c);
      else this.chunks.push(c);
    });
    response.body.on('end', () => {
      void response.done.then((e) => {
        this.end = e;
        if (this.sink) this.finish(this.sink, e);
      });
    });
  }

  /**
   * A watch the process closes itself ends for the engine only when `until` resolves (the
   * process's next request): a process that stopped (exited, or stopped its informer) sends
   * none, and the engine's reflector must not open a watch the process never sent.
   */
  holdClientClose(until: () => Promise<void>): void {
    this.closeHeldUntil = until;
  }

  private finish(pt: PassThrough, e: BodyEnd): void {
    if (e === 'client-closed' && this.closeHeldUntil) void this.closeHeldUntil().then(() => finishSink(pt, e));
    else finishSink(pt, e);
  }

  /** The body as a GetResponse for the kube decoders: bytes so far, then live ones, then its end. */
  asGetResponse(): GetResponse {
    const pt = new PassThrough({ highWaterMark: 1 << 20 });
    for (const c of this.chunks) pt.write(c);
    this.chunks.length = 0;
    this.sink = pt;
    if (this.end) this.finish(pt, this.end);
    return {
      status: this.response.status,
      headers: this.response.headers,
      body: pt,
      close: () => undefined,
      failure: () => this.response.failure(),
    };
  }

  /** The whole body once it is complete; rejects like a client reading a broken body. */
  async all(): Promise<Buffer> {
    const res = this.asGetResponse();
    const parts: Buffer[] = [];
    return new Promise((resolve, reject) => {
      res.body.on('data', (c: Buffer) => parts.push(c));
      res.body.on('end', () => resolve(Buffer.concat(parts)));
      res.body.on('close', () => {
        if (res.body.readableEnded) return;
        const f = res.failure();
        reject(f instanceof TransportError ? f : new TransportError('eof', 'unexpected EOF'));
      });
    });
  }
}

/** Ends the replay stream the way the observed body ended, after every byte has been read. */
function finishSink(pt: PassThrough, e: BodyEnd): void {
  if (e === 'complete') {
    pt.end();
    return;
  }
  const tryDestroy = () => {
    if (pt.destroyed) return;
    if (pt.readableLength > 0) setTimeout(tryDestroy, 5);
    else pt.destroy();
  };
  tryDestroy();
}

interface Entry {
  x: ObservedExchange;
  outcome?: ObservedResponse | ObservedFailure;
  body?: RecordedBody;
  ready: Promise<void>;
  /** Date.now() when its response (or failure) was complete. */
  endedAt?: number;
}

export interface FollowerOptions {
  ref: CollectionRef;
  /** For error texts (the collection, as the process addressed it). */
  url: string;
  onDivergence: (d: Divergence) => void;
  /** Called when the engine takes an observed request (the process's request, for the notification log). */
  onTaken?: (x: ObservedExchange) => void;
  /** The engine's backoff before its next request (ms), from its 'backoff' events; read and cleared per request. */
  takeBackoffMs?: () => number;
  /**
   * The REST client of the profile (Profile.restRetriesWatchOpen): whether a watch open that
   * fails with a reset/EOF/timeout is retried (v0.32+) or, as in client-go 1.15, a reset gives
   * the empty watcher at once and a timeout is the error. Default true.
   */
  restRetriesWatchOpen?: boolean;
  /** How long to wait for the process to repeat a request the REST client would retry. Default 65 s. */
  retryWindowMs?: number;
}

const MAX_REST_RETRIES = 10;

export class FollowerListerWatcher implements ListerWatcher {
  readonly watchListSupported = true;
  readonly url: string;
  private readonly queue: Entry[] = [];
  private waiter: (() => void) | undefined;
  private lastEndedAt: number | undefined;
  private readonly arrivalListeners = new Set<() => void>();

  constructor(private readonly o: FollowerOptions) {
    this.url = o.url;
  }

  /** One more request of the process, in the order they arrived. */
  push(x: ObservedExchange): void {
    const entry: Entry = { x, ready: Promise.resolve() };
    entry.ready = x.outcome.then((o) => {
      entry.outcome = o;
      if (o.kind === 'response') {
        entry.body = new RecordedBody(o);
        void o.done.then(() => (entry.endedAt = Date.now()));
      } else entry.endedAt = Date.now();
    });
    this.queue.push(entry);
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
    for (const fn of [...this.arrivalListeners]) fn();
  }

  /** Calls fn whenever a request of the process arrives; returns the unsubscribe function. */
  onArrival(fn: () => void): () => void {
    this.arrivalListeners.add(fn);
    return () => this.arrivalListeners.delete(fn);
  }

  /** Requests of the process not yet taken by the engine. */
  get pending(): number {
    return this.queue.length;
  }

  private async next(signal: AbortSignal, timeoutMs?: number): Promise<Entry | undefined> {
    for (;;) {
      if (signal.aborted) throw abortError();
      const e = this.queue[0];
      if (e) return e;
      const arrived = await new Promise<boolean>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const onAbort = () => resolve(false);
        this.waiter = () => {
          if (timer) clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        if (timeoutMs !== undefined) {
          timer = setTimeout(() => {
            this.waiter = undefined;
            signal.removeEventListener('abort', onAbort);
            resolve(false);
          }, timeoutMs);
        }
      });
      if (signal.aborted) throw abortError();
      if (!arrived) return undefined;
    }
  }

  /** Resolves once the process has a request the engine has not taken (now, or when one arrives). */
  private nextRequest(): Promise<void> {
    if (this.queue.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.onArrival(() => {
        off();
        resolve();
      });
    });
  }

  private take(): Entry {
    const e = this.queue.shift() as Entry;
    this.o.onTaken?.(e.x);
    return e;
  }

  /** Whether the process's next request repeats `e`'s (a REST-client retry); waits for it within the window. */
  private async repeated(e: Entry, signal: AbortSignal, waitMs: number): Promise<boolean> {
    const n = await this.next(signal, waitMs + (this.o.retryWindowMs ?? 5000));
    if (!n) return false;
    return n.x.call.verb === e.x.call.verb && sameQuery(n.x.call.options, e.x.call.options);
  }

  private checkBackoff(e: Entry): void {
    const backoff = this.o.takeBackoffMs?.() ?? 0;
    if (backoff > 0 && this.lastEndedAt !== undefined) {
      const gap = e.x.receivedAt - this.lastEndedAt;
      if (gap < backoff / 2 - 50) {
        this.o.onDivergence({ kind: 'no-backoff', expected: `a backoff of about ${backoff} ms`, got: `the next request after ${Math.max(0, gap)} ms`, at: e.x.receivedAt });
      }
    }
  }

  private compare(verb: 'list' | 'watch', want: ListOptions & WatchOptions, e: Entry): void {
    const got = e.x.call.options;
    if ((want.resourceVersion ?? '') !== (got.resourceVersion ?? '')) {
      this.o.onDivergence({ kind: 'other-resource-version', expected: describe(verb, want), got: describe(verb, got), at: e.x.receivedAt });
      return;
    }
    if (!sameQuery(want, got)) this.o.onDivergence({ kind: 'other-options', expected: describe(verb, want), got: describe(verb, got), at: e.x.receivedAt });
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList> {
    let attempt = 0;
    for (;;) {
      let e = (await this.next(signal)) as Entry;
      while (e.x.call.verb !== 'list') {
        // The profile lists here; the process watched. The watch cannot answer a list: it is skipped.
        this.o.onDivergence({ kind: 'watch-instead-of-list', expected: describe('list', options), got: describe('watch', e.x.call.options), at: e.x.receivedAt });
        this.take();
        e = (await this.next(signal)) as Entry;
      }
      if (attempt === 0) {
        this.checkBackoff(e);
        this.compare('list', options, e);
      }
      this.take();
      await e.ready;
      const out = e.outcome as ObservedResponse | ObservedFailure;
      if (out.kind === 'failed') {
        this.lastEndedAt = e.endedAt;
        if ((out.error.kind === 'connection-reset' || out.error.kind === 'eof') && attempt < MAX_REST_RETRIES && (await this.repeated(e, signal, 1000))) {
          attempt++;
          continue;
        }
        throw out.error;
      }
      let body: Buffer;
      try {
        body = await (e.body as RecordedBody).all();
      } catch (err) {
        this.lastEndedAt = e.endedAt;
        if (err instanceof TransportError) throw new TransportError(err.kind, `unexpected error when reading response body. Please retry. Original error: ${err.message}`);
        throw err;
      }
      this.lastEndedAt = e.endedAt;
      if (out.status < 200 || out.status > 206) {
        const wait = retryAfterSeconds(out.headers);
        if ((out.status === 429 || out.status >= 500) && wait !== undefined && attempt < MAX_REST_RETRIES && (await this.repeated(e, signal, wait * 1000))) {
          attempt++;
          continue;
        }
        throw statusErrorFrom(out.status, out.headers, body, this.o.ref);
      }
      return decodeList(body);
    }
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    let attempt = 0;
    for (;;) {
      const e = (await this.next(signal)) as Entry;
      if (e.x.call.verb !== 'watch') {
        // The profile would (re-)watch; the process lists. The engine is told the watch failed,
        // so it relists and takes that list.
        const kind = options.sendInitialEvents ? 'list-instead-of-watch-list' : 'relist-instead-of-watch';
        this.o.onDivergence({ kind, expected: describe('watch', options), got: describe('list', e.x.call.options), at: e.x.receivedAt });
        throw new TransportError('other', `the observed process sent a LIST where ${describe('watch', options)} was expected`);
      }
      if (attempt === 0) {
        this.checkBackoff(e);
        this.compare('watch', options, e);
      }
      this.take();
      await e.ready;
      const out = e.outcome as ObservedResponse | ObservedFailure;
      if (out.kind === 'failed') {
        this.lastEndedAt = e.endedAt;
        const k = out.error.kind;
        if (this.o.restRetriesWatchOpen === false && (k === 'connection-reset' || k === 'eof')) {
          return new EmptyWatcher({ kind: 'open-retries-exhausted', message: out.error.message });
        }
        if (this.o.restRetriesWatchOpen !== false && (k === 'connection-reset' || k === 'eof' || k === 'timeout')) {
          if (attempt < MAX_REST_RETRIES && (await this.repeated(e, signal, 1000))) {
            attempt++;
            continue;
          }
          // Not repeated at all: the process gave up at once (say its retry was refused before it
          // reached the proxy): the reflector got an error. After retries: they ran out, an empty watcher.
          if (attempt === 0) throw out.error;
          return new EmptyWatcher({ kind: 'open-retries-exhausted', message: out.error.message });
        }
        throw out.error;
      }
      if (out.status === 200) {
        const body = e.body as RecordedBody;
        body.holdClientClose(() => this.nextRequest());
        void out.done.then(() => (this.lastEndedAt = Date.now()));
        return new StreamWatcher(body.asGetResponse());
      }
      let text: Buffer;
      try {
        text = await (e.body as RecordedBody).all();
      } catch {
        text = Buffer.alloc(0);
      }
      this.lastEndedAt = e.endedAt;
      const wait = retryAfterSeconds(out.headers);
      if ((out.status === 429 || out.status >= 500) && wait !== undefined && attempt < MAX_REST_RETRIES && (await this.repeated(e, signal, wait * 1000))) {
        attempt++;
        continue;
      }
      if (out.status >= 200 && out.status <= 206) throw new TransportError('other', `for request ${this.url}, got status: ${out.status}`);
      throw statusErrorFrom(out.status, out.headers, text, this.o.ref);
    }
  }
}

/** The options client-go's decisions show in, compared (timeoutSeconds is random; selectors are part of the group). */
function sameQuery(a: ListOptions & WatchOptions, b: ListOptions & WatchOptions): boolean {
  return (
    (a.resourceVersion ?? '') === (b.resourceVersion ?? '') &&
    (a.resourceVersionMatch ?? '') === (b.resourceVersionMatch ?? '') &&
    (a.limit ?? 0) === (b.limit ?? 0) &&
    (a.continue ?? '') === (b.continue ?? '') &&
    !!a.sendInitialEvents === !!b.sendInitialEvents &&
    !!a.allowWatchBookmarks === !!b.allowWatchBookmarks
  );
}

export function describe(verb: 'list' | 'watch', o: ListOptions & WatchOptions): string {
  const parts = [`${verb.toUpperCase()} resourceVersion=${JSON.stringify(o.resourceVersion ?? '')}`];
  if (o.resourceVersionMatch) parts.push(`resourceVersionMatch=${o.resourceVersionMatch}`);
  if (o.limit) parts.push(`limit=${o.limit}`);
  if (o.continue) parts.push('continue=…');
  if (o.sendInitialEvents) parts.push('sendInitialEvents=true');
  if (o.allowWatchBookmarks) parts.push('allowWatchBookmarks=true');
  return parts.join(' ');
}

/**
 * The engine's clock in passive mode: real time, except that a sleep (the reflector's backoff)
 * ends as soon as the process has sent its next request. The engine never waits longer than the
 * process did, so its lanes stay in step with the process; the backoff it would have taken is
 * still in its 'backoff' event, and a much shorter gap is a 'no-backoff' divergence.
 */
export class FollowerClock implements Clock {
  private readonly real = new RealClock();

  constructor(private readonly follower: FollowerListerWatcher) {}

  now(): number {
    return this.real.now();
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    return this.real.setTimer(ms, fn);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return this.real.sleep(ms, signal);
    if (this.follower.pending > 0) return this.real.sleep(0, signal);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError());
        return;
      }
      const done = () => {
        timer.cancel();
        off();
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(abortError());
      };
      const timer = this.real.setTimer(ms, () => {
        done();
        resolve();
      });
      const off = this.follower.onArrival(() => {
        done();
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
