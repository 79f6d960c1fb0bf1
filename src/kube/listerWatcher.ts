/**
 * The ListerWatcher for real clusters: LIST and WATCH over HTTP GET, with client-go's REST-client
 * behaviour below the reflector (spec §1.9): its retries per profile line (restRequest.ts, the
 * rule table of src/engine/restRetries.ts: Retry-After, resets, 1.15's artificial 500, the empty
 * watcher), its query parameters, and its error values.
 */
import { Clock, RealClock } from '../engine/clock';
import { goDuration } from '../engine/reflectorLogs';
import {
  ListOptions,
  ListerWatcher,
  ObjectList,
  StatusError,
  TransportError,
  WatchOptions,
  Watcher,
  type WatchEvent,
} from '../engine/listWatch';
import { watchDecodeErrorStatus } from '../engine/statusErrors';
import { ARTIFICIAL_RETRY_AFTER_500, type AttemptEnd, type RestLine } from '../engine/restRetries';
import { GetResponse, httpGet, type HttpTarget, readBody, redactedUrl, retryAfterSeconds, statusErrorFrom } from './http';
import { RestRetry, type RestRetryInfo } from './restRequest';
import type { KubeObject } from '../engine/objects';
import type { ApiResource } from './discovery';
import { EmptyWatcher, StreamWatcher } from './watchStream';
import { decodeList } from './listDecode';
import { readList, StreamedList } from './listStream';

export { decodeList };

export interface HttpRequestInfo {
  verb: 'list' | 'watch';
  /** Always "GET". */
  method: 'GET';
  url: string;
  /** 0 for the first try, then 1, 2, … for the REST client's own retries. */
  attempt: number;
}

export interface HttpListerWatcherOptions {
  /** Only this namespace (namespaced resources); "" or absent: all namespaces. */
  namespace?: string;
  /** Like rest.Config.Timeout: a client-side limit on each whole request, watches included. 0 = none (the default, as in client-go). */
  requestTimeoutMs?: number;
  /** Which REST client line to follow (Profile.restRetriesWatchOpen); default the modern one (v0.32+). */
  restClient?: RestLine;
  /** A lower cap on the REST client's retries per request than its line's (tests). */
  maxRetries?: number;
  /** Called before each of the REST client's own retries (after the failed attempt, before the wait). */
  onRetry?: (info: RestRetryInfo) => void;
  /** Used for the REST client's Retry-After sleeps. */
  clock?: Clock;
  /** Called for every HTTP request sent, retries included. */
  onRequest?: (info: HttpRequestInfo) => void;
}

type ResourceRef = Pick<ApiResource, 'group' | 'version' | 'resource' | 'namespaced'>;

export class HttpListerWatcher implements ListerWatcher {
  /** For error texts: the collection URL with a password in its user info as "***". */
  readonly url: string;
  /** Where requests go (user info intact: Node sends it as basic auth, as Go's client does). */
  private readonly base: string;
  private readonly clock: Clock;
  private readonly restClient: RestLine;

  constructor(
    private readonly conn: HttpTarget,
    private readonly res: ResourceRef,
    private readonly opts: HttpListerWatcherOptions = {},
  ) {
    this.base = conn.server + collectionPath(res, opts.namespace);
    this.url = redactedUrl(this.base);
    this.clock = opts.clock ?? new RealClock();
    this.restClient = opts.restClient ?? { restRetriesWatchOpen: true };
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList> {
    const url = `${this.base}?${encodeQuery(listQuery(options))}`;
    const retry = this.retry('list');
    for (let attempt = 0; ; attempt++) {
      let res: GetResponse;
      let bodyRead: Promise<Buffer | StreamedList> | undefined;
      try {
        // The body is read from the moment the response arrives (see GetOptions.onResponse); a
        // success's items decoded as it streams in (listStream.ts), an error's as bytes.
        res = await this.send('list', url, attempt, signal, (r) => (bodyRead = isSuccess(r.status) ? readList(r) : readBody(r)));
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        const end: AttemptEnd = { kind: 'network', network: e.kind };
        if (await retry.again(end, signal)) continue;
        if (retry.outcome(end) === 'internal-error') throw new StatusError(structuredClone(ARTIFICIAL_RETRY_AFTER_500));
        throw e;
      }
      const body = await settledBody(bodyRead ?? readBody(res));
      // The retry is decided on the status and Retry-After alone (IsNextRetry runs before
      // transformResponse reads the body): a cut body of a retried answer does not matter.
      if (!isSuccess(res.status) && (await retry.again(statusEnd(res), signal))) continue;
      if (body instanceof Error) throw body;
      if (body instanceof StreamedList) return body.decode();
      if (!isSuccess(res.status)) throw statusErrorFrom(res.status, res.headers, body, this.res);
      return decodeList(body);
    }
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    const url = `${this.base}?${encodeQuery(watchQuery(options))}`;
    const retry = this.retry('watch');
    for (let attempt = 0; ; attempt++) {
      let res: GetResponse;
      let watcher: StreamWatcher | undefined;
      let bodyRead: Promise<Buffer> | undefined;
      try {
        // The stream is decoded from the moment the response arrives: events whose bytes come
        // together with a broken connection are delivered, not dropped with the unread body.
        res = await this.send('watch', url, attempt, signal, (r) => {
          if (r.status === 200) watcher = new StreamWatcher(r);
          else bodyRead = readBody(r, 1 << 20);
        });
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        const end: AttemptEnd = { kind: 'network', network: e.kind };
        if (await retry.again(end, signal)) continue;
        // Request.Watch: stopped on probable-EOF (v0.32+: or timeout) → watch.NewEmptyWatch(), nil.
        if (retry.outcome(end) === 'empty-watcher') return new EmptyWatcher({ kind: 'open-retries-exhausted', message: e.message });
        throw e;
      }
      if (res.status === 200) {
        const w = watcher ?? new StreamWatcher(res);
        return this.restClient.restRetriesWatchOpen ? w : new TimeoutAsErrorEvent(w);
      }
      const body = await settledBody(bodyRead ?? readBody(res, 1 << 20));
      if (await retry.again(statusEnd(res), signal)) continue;
      if (body instanceof Error) throw body;
      if (res.status >= 200 && res.status <= 206) {
        throw new TransportError('other', `for request ${redactedUrl(url)}, got status: ${res.status}`);
      }
      throw statusErrorFrom(res.status, res.headers, body, this.res);
    }
  }

  private retry(verb: 'list' | 'watch'): RestRetry {
    return new RestRetry({ client: this.restClient, verb, clock: this.clock, maxRetries: this.opts.maxRetries, onRetry: this.opts.onRetry });
  }

  private send(
    verb: 'list' | 'watch',
    url: string,
    attempt: number,
    signal: AbortSignal,
    onResponse: (res: GetResponse) => void,
  ): Promise<GetResponse> {
    this.opts.onRequest?.({ verb, method: 'GET', url, attempt });
    return httpGet(this.conn, url, { signal, timeoutMs: this.opts.requestTimeoutMs, onResponse });
  }
}

/**
 * The body, or the error transformResponse makes of a body that cannot be read: a plain wrapped
 * error (fmt.Errorf "%w"), so no identity check (io.EOF, io.ErrUnexpectedEOF) matches it; only
 * its text can (IsProbableEOF's "connection reset by peer").
 */
async function settledBody<T>(read: Promise<T>): Promise<T | Error> {
  try {
    return await read;
  } catch (e) {
    if (e instanceof TransportError) {
      return new TransportError('other', `unexpected error when reading response body. Please retry. Original error: ${e.message}`);
    }
    return e as Error;
  }
}

/**
 * client-go 1.15's StreamWatcher.receive has no IsTimeout case (apimachinery watch/streamwatcher.go):
 * a read that times out is not probable-EOF, so it becomes one ERROR event "unable to decode an
 * event from the watch stream: …" before the channel closes.
 */
class TimeoutAsErrorEvent implements Watcher {
  private reported = false;

  constructor(private readonly inner: Watcher) {}

  get end() {
    return this.inner.end;
  }

  async next(): Promise<WatchEvent | null> {
    const e = await this.inner.next();
    const end = this.inner.end;
    if (e !== null || this.reported || end?.kind !== 'timeout') return e;
    this.reported = true;
    return { type: 'ERROR', object: watchDecodeErrorStatus(readErrorText(end.message)) as unknown as KubeObject };
  }

  stop(): void {
    this.inner.stop();
  }
}

/** The socket error inside a `Get "url": …` text (what the stream's read returned). */
function readErrorText(message: string): string {
  return message.replace(/^Get "[^"]*": /, '');
}

/** A 2xx status, the range whose body transformResponse decodes as the answer. */
function isSuccess(status: number): boolean {
  return status >= 200 && status <= 206;
}

/** How a non-200 answer ended its attempt, for the retry rule (checkWait reads the Retry-After header). */
function statusEnd(res: GetResponse): AttemptEnd {
  return { kind: 'status', code: res.status, retryAfterSeconds: retryAfterSeconds(res.headers) };
}

export function collectionPath(res: ResourceRef, namespace?: string): string {
  const base = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
  const ns = res.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${res.resource}`;
}

function listQuery(o: ListOptions): Record<string, string> {
  const q: Record<string, string> = {};
  if (o.resourceVersion) q.resourceVersion = o.resourceVersion;
  if (o.resourceVersionMatch) q.resourceVersionMatch = o.resourceVersionMatch;
  if (o.limit && o.limit > 0) q.limit = String(o.limit);
  if (o.continue) q.continue = o.continue;
  if (o.labelSelector) q.labelSelector = o.labelSelector;
  if (o.fieldSelector) q.fieldSelector = o.fieldSelector;
  return q;
}

function watchQuery(o: WatchOptions): Record<string, string> {
  const q: Record<string, string> = { watch: 'true' };
  if (o.resourceVersion) q.resourceVersion = o.resourceVersion;
  if (o.resourceVersionMatch) q.resourceVersionMatch = o.resourceVersionMatch;
  if (o.allowWatchBookmarks) q.allowWatchBookmarks = 'true';
  if (o.sendInitialEvents !== undefined) q.sendInitialEvents = String(o.sendInitialEvents);
  if (o.labelSelector) q.labelSelector = o.labelSelector;
  if (o.fieldSelector) q.fieldSelector = o.fieldSelector;
  if (o.timeoutSeconds && o.timeoutSeconds > 0) {
    q.timeoutSeconds = String(o.timeoutSeconds);
    // The generated client also calls Request.Timeout(timeoutSeconds), which adds ?timeout=<duration>.
    q.timeout = goDuration(o.timeoutSeconds * 1000);
  }
  return q;
}

/** url.Values.Encode: keys sorted. */
function encodeQuery(q: Record<string, string>): string {
  return Object.keys(q)
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(q[k])}`)
    .join('&');
}
