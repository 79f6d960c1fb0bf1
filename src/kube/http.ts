/**
 * One HTTP GET to the API server, and the mapping of its failures to the engine's typed errors
 * the way client-go's REST client would report them (spec §1.9). This is the only place that
 * sends requests to a cluster, and it can only send GET.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as zlib from 'node:zlib';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { abortError } from '../engine/clock';
import { Status, StatusCause, StatusError, TransportError, TransportErrorKind, transportErrorText } from '../engine/listWatch';
import { USER_AGENT } from '../format/tool';
import type { KubeConnection } from './kubeconfig';

/** Where requests go: a cluster's URL and its per-request options (a KubeConnection, or an in-memory server's). */
export type HttpTarget = Pick<KubeConnection, 'server' | 'requestOptions'>;

export interface GetOptions {
  signal: AbortSignal;
  /** Like rest.Config.Timeout (http.Client.Timeout): covers connect, headers and the whole body. 0 = none. */
  timeoutMs?: number;
  accept?: string;
  /**
   * Called synchronously when the response headers arrive, before the body's first byte is handed
   * on: attach the body's consumer here. A connection that breaks in the same tick as the last
   * bytes arrive destroys an unread body (and its buffered bytes) before an awaiting caller runs;
   * a consumer attached here has already taken them, as Go's reader would from the socket.
   */
  onResponse?: (res: GetResponse) => void;
}

export interface GetResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The (decompressed) body. */
  body: Readable;
  /** Call when done with the body; clears the client timeout and releases the connection. */
  close(): void;
  /** Set when the body failed: why (reset by the peer, client timeout, abort). */
  readonly failure: () => TransportError | 'aborted' | undefined;
}

/** The marker a client-side timeout puts on the request it destroys. */
class ClientTimeout extends Error {
  constructor(readonly phase: 'headers' | 'body') {
    super('client timeout');
  }
}

/**
 * GETs `url` (absolute, under the connection's server). Resolves once the response headers are in,
 * whatever the status; rejects with a TransportError when no response arrives, or an AbortError.
 */
export async function httpGet(conn: HttpTarget, url: string, opts: GetOptions): Promise<GetResponse> {
  if (opts.signal.aborted) throw abortError();
  const reqOpts = await conn.requestOptions({
    accept: opts.accept ?? 'application/json',
    'accept-encoding': 'gzip',
    'user-agent': USER_AGENT,
  });
  if (opts.signal.aborted) throw abortError();
  reqOpts.method = 'GET';
  const mod = url.startsWith('https:') ? https : http;
  return new Promise<GetResponse>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let failure: TransportError | 'aborted' | undefined;
    let socketError: NodeJS.ErrnoException | undefined;
    const req = mod.request(url, reqOpts);
    let socket: import('node:net').Socket | undefined;
    const onSocketError = (e: NodeJS.ErrnoException) => (socketError = e);
    const clear = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      opts.signal.removeEventListener('abort', onAbort);
      socket?.off('error', onSocketError);
    };
    const onAbort = () => {
      failure = 'aborted';
      req.destroy(abortError());
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    if (opts.timeoutMs && opts.timeoutMs > 0) {
      timer = setTimeout(() => {
        if (settled && !failure) failure = bodyTimeout(url);
        req.destroy(new ClientTimeout(settled ? 'body' : 'headers'));
      }, opts.timeoutMs);
    }
    req.on('socket', (s) => {
      socket = s;
      s.on('error', onSocketError);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return; // body failures are reported through the response stream
      settled = true;
      clear();
      if (opts.signal.aborted) reject(abortError());
      else reject(transportError(err, url));
    });
    req.on('response', (res) => {
      settled = true;
      let body: Readable = res;
      const enc = String(res.headers['content-encoding'] ?? '').toLowerCase();
      if (enc === 'gzip') {
        const gunzip = zlib.createGunzip();
        const feed = inflateFeed(res, gunzip);
        // A body cut short never ends the gunzip stream: end it, so that what it decompresses from
        // the bytes that did arrive is still handed on; the failure is then reported through
        // failure() (and the truncated gzip stream's own error).
        res.on('close', () => {
          if (res.complete || gunzip.destroyed || gunzip.writableEnded) return;
          if (!failure) failure = new TransportError('eof', `Get "${redactedUrl(url)}": unexpected EOF`);
          // Bytes still buffered in the (paused) response went nowhere yet.
          for (let c: Buffer | null; (c = res.read() as Buffer | null) !== null; ) feed.write(c);
          feed.end();
        });
        body = gunzip;
      }
      const onBodyError = (e: NodeJS.ErrnoException) => {
        if (failure) return;
        if (opts.signal.aborted) failure = 'aborted';
        else if (e instanceof ClientTimeout) failure = bodyTimeout(url);
        else if (socketError || e.syscall) failure = transportError(socketError ?? e, url);
        // Node's "aborted" without a socket errno: the peer closed (FIN) mid-body → Go's io.ErrUnexpectedEOF.
        else failure = new TransportError('eof', `Get "${redactedUrl(url)}": unexpected EOF`);
      };
      res.on('error', onBodyError);
      req.on('error', onBodyError);
      const response: GetResponse = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body,
        close: () => {
          clear();
          req.destroy();
        },
        failure: () => failure,
      };
      if (opts.onResponse) {
        try {
          opts.onResponse(response);
        } catch (e) {
          response.close();
          reject(e);
          return;
        }
      }
      resolve(response);
    });
    req.end();
  });
}

/** Chunks handed to a gunzip stream and not yet processed, over every response (see inflating()). */
let inflatingChunks = 0;

/**
 * How many compressed chunks zlib is still working on. zlib streams decompress on the thread
 * pool, outside the event loop's turns: a virtual-time driver (the conformance engine side) waits
 * for this to reach 0 before it moves time on, so a gzip body is decoded at the instant it arrived.
 */
export function inflating(): number {
  return inflatingChunks;
}

/** Whole (list or error) bodies being read right now: their bytes are all in flight at once. */
let bodiesReading = 0;

/**
 * Work on response bodies that finishes without any timer: zlib chunks in progress (inflating())
 * and whole bodies still being read (their 'end' may wait on the thread pool). A virtual-time
 * driver holds time still while this is above 0.
 */
export function bodyWorkPending(): number {
  return inflatingChunks + bodiesReading;
}

/** Feeds a response into its gunzip stream with backpressure, counting the work zlib has not finished. */
function inflateFeed(res: http.IncomingMessage, gunzip: zlib.Gunzip): { write(c: Buffer): void; end(): void } {
  let pending = 0;
  const done = () => {
    if (pending > 0) {
      pending--;
      inflatingChunks--;
    }
  };
  const track = () => {
    pending++;
    inflatingChunks++;
  };
  const feed = {
    write(c: Buffer) {
      if (gunzip.destroyed || gunzip.writableEnded) return;
      track();
      if (!gunzip.write(c, done)) {
        res.pause();
        gunzip.once('drain', () => res.resume());
      }
    },
    end() {
      if (gunzip.destroyed || gunzip.writableEnded) return;
      // Pending until the decompressed side has ended too: its 'end' follows the final flush on
      // the thread pool, and whoever reads the body learns only then that it is over.
      ending = true;
      inflatingChunks++;
      gunzip.end();
    },
  };
  let ending = false;
  const ended = () => {
    if (!ending) return;
    ending = false;
    inflatingChunks--;
  };
  res.on('data', feed.write);
  res.on('end', feed.end);
  gunzip.once('end', ended);
  // Whatever zlib never got to (destroyed, failed) is no longer pending.
  gunzip.once('close', () => {
    inflatingChunks -= pending;
    pending = 0;
    ended();
  });
  return feed;
}

function bodyTimeout(url: string): TransportError {
  return new TransportError(
    'timeout',
    `Get "${redactedUrl(url)}": net/http: request canceled (Client.Timeout exceeded while reading body)`,
  );
}

/**
 * The URL as net/http puts it into a *url.Error (stripPassword): a password in the user info
 * reads "***". Every error text, and so every trace, log and message, gets this form.
 */
export function redactedUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}

/** Maps a Node socket/HTTP failure to the error client-go's transport would have returned. */
export function transportError(err: NodeJS.ErrnoException, rawUrl: string): TransportError {
  const url = redactedUrl(rawUrl);
  if (err instanceof ClientTimeout) {
    return err.phase === 'headers'
      ? new TransportError('timeout', transportErrorText('timeout', url))
      : bodyTimeout(url);
  }
  const kind = transportKind(err);
  if (kind === 'other') return new TransportError('other', `Get "${url}": ${err.message}`);
  return new TransportError(kind, transportErrorText(kind, url));
}

function transportKind(err: NodeJS.ErrnoException): TransportErrorKind {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection-refused';
    case 'ECONNRESET':
      // Node says "socket hang up" when the peer closed (FIN) before answering: Go reads io.EOF.
      return /socket hang up/i.test(err.message) ? 'eof' : 'connection-reset';
    case 'EPIPE':
      return 'connection-reset';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'timeout';
    default:
      return 'other';
  }
}

/** How a body's chunks become its value: one chunk at a time, then the whole. */
export interface BodyCollector<T> {
  add(chunk: Buffer): void;
  done(): T;
}

/** The body as one Buffer. */
function bufferCollector(): BodyCollector<Buffer> {
  const chunks: Buffer[] = [];
  return { add: (c) => chunks.push(c), done: () => Buffer.concat(chunks) };
}

/**
 * The body as UTF-8 text, decoded chunk by chunk (a character split between chunks is joined as
 * a whole-body decode joins it; invalid bytes become U+FFFD alike), so that no chunk outlives its
 * arrival and no concatenated copy of the bytes is made: a LIST of 50 000 Pods is 100 MiB.
 */
export function utf8Collector(): BodyCollector<string> {
  const decoder = new StringDecoder('utf8');
  const pieces: string[] = [];
  return {
    add: (c) => {
      const t = decoder.write(c);
      if (t.length > 0) pieces.push(t);
    },
    done: () => {
      pieces.push(decoder.end());
      return pieces.join('');
    },
  };
}

/**
 * Reads a whole (small) body; rejects with the transport failure if the body broke. Call it from
 * GetOptions.onResponse so that no byte is lost to a connection that breaks at once; the promise
 * is marked handled there (the caller awaits it later).
 */
export function readBody(res: GetResponse, maxBytes = 512 << 20): Promise<Buffer> {
  return readBodyInto(res, maxBytes, bufferCollector());
}

/**
 * readBody with the chunks handed to `into` as they arrive (listStream.ts reads a LIST's items
 * so); the same limit, failures and bookkeeping.
 */
export function readBodyInto<T>(res: GetResponse, maxBytes: number, into: BodyCollector<T>): Promise<T> {
  bodiesReading++;
  const p = readBodyNow(res, maxBytes, into);
  p.then(
    () => bodiesReading--,
    () => bodiesReading--,
  );
  return p;
}

function readBodyNow<T>(res: GetResponse, maxBytes: number, into: BodyCollector<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    let n = 0;
    res.body.on('data', (c: Buffer) => {
      n += c.length;
      if (n > maxBytes) {
        res.close();
        reject(new TransportError('other', `response body larger than ${maxBytes} bytes`));
        return;
      }
      into.add(c);
    });
    res.body.on('end', () => {
      // A gzip body can end cleanly although the response under it was cut short.
      const f = res.failure();
      res.close();
      if (f === 'aborted') reject(abortError());
      else if (f) reject(f);
      else {
        try {
          resolve(into.done());
        } catch (e) {
          reject(e as Error);
        }
      }
    });
    res.body.on('error', () => {
      res.close();
      const f = res.failure();
      if (f === 'aborted') reject(abortError());
      else reject(f ?? new TransportError('eof', 'unexpected EOF'));
    });
    res.body.on('close', () => {
      if (!res.body.readableEnded) {
        const f = res.failure();
        if (f === 'aborted') reject(abortError());
        else reject(f ?? new TransportError('eof', 'unexpected EOF'));
      }
    });
  });
}

/**
 * The error for a non-2xx response, as rest.Result.Error() builds it: the body's Status when it
 * decodes to one with status Failure, otherwise a generic server response error naming the
 * verb ("get") and the group/resource.
 */
export function statusErrorFrom(
  code: number,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
  groupResource: { group: string; resource: string } | undefined,
): StatusError {
  const contentType = String(headers['content-type'] ?? '');
  if (body.length > 0 && /json/i.test(contentType || 'application/json')) {
    try {
      const parsed = JSON.parse(body.toString('utf8')) as Status;
      // client-go defaults a missing apiVersion to v1 and needs kind Status with status Failure.
      if (parsed && typeof parsed === 'object' && parsed.kind === 'Status' && parsed.status === 'Failure') {
        return new StatusError(statusFromWire(parsed));
      }
    } catch {
      // not a Status: fall through to the generic error
    }
  }
  const isText = contentType === '' || /^text\//i.test(contentType);
  const message = isText ? body.subarray(0, 2048).toString('utf8').trim() : 'unknown';
  return new StatusError(genericServerResponse(code, message, retryAfterSeconds(headers) ?? 0, groupResource));
}

/**
 * A metav1.Status as decoded from JSON. On the wire a cause's type is the field `reason`
 * (`Type CauseType json:"reason"`); the engine reads `type`, as Go code reads the struct field.
 * Both are kept, so the object still reads like the server's.
 */
export function statusFromWire(s: Status): Status {
  const causes = s.details?.causes;
  if (!Array.isArray(causes)) return s;
  return { ...s, details: { ...s.details, causes: causes.map(causeOf) } };
}

function causeOf(c: StatusCause): StatusCause {
  // A null (or otherwise non-object) cause from the wire is passed on as it is, not a TypeError.
  if (c === null || typeof c !== 'object') return c;
  const type = c.type ?? c.reason;
  return type === undefined ? c : { ...c, type, reason: type };
}

/** apierrors.NewGenericServerResponse(code, "GET", gr, "", serverMessage, retryAfter, true). */
export function genericServerResponse(
  code: number,
  serverMessage: string,
  retryAfterSeconds: number,
  groupResource?: { group: string; resource: string },
): Status {
  let reason = 'Unknown';
  let message = `the server responded with the status code ${code} but did not return more information`;
  const generic: Record<number, [string, string]> = {
    409: ['Conflict', 'the server reported a conflict'],
    404: ['NotFound', 'the server could not find the requested resource'],
    400: ['BadRequest', 'the server rejected our request for an unknown reason'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  };
  if (generic[code]) [reason, message] = generic[code];
  else if (code === 403) {
    reason = 'Forbidden';
    message = serverMessage;
  } else if (code === 406) {
    reason = 'NotAcceptable';
    message = serverMessage || 'the server was unable to respond with a content type that the client supports';
  } else if (code === 415) {
    reason = 'UnsupportedMediaType';
    message = serverMessage;
  } else if (code >= 500) {
    reason = 'InternalError';
    message = `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  }
  const gr = groupResource && groupResource.resource ? groupResource : undefined;
  if (gr) message = `${message} (get ${gr.group ? `${gr.resource}.${gr.group}` : gr.resource})`;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
    details: {
      ...(gr ? { kind: gr.resource } : {}),
      causes: [causeOf({ type: 'UnexpectedServerResponse', message: serverMessage })],
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    },
  };
}

/** Go's %q for the common cases (JSON string escaping is the same for printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** The Retry-After header as whole seconds, like client-go's retryAfterSeconds (undefined if absent or invalid). */
export function retryAfterSeconds(headers: http.IncomingHttpHeaders): number | undefined {
  const h = headers['retry-after'];
  const v = Array.isArray(h) ? h[0] : h;
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}
