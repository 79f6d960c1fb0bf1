/**
 * What the observing proxy hands its observers: one exchange per list or watch the process
 * sent (the request as forwarded, and its response body as passed on, or the failure the
 * process saw), notices about requests it could not observe, and its counters.
 */
import type * as http from 'node:http';
import type { PassThrough } from 'node:stream';
import type { TransportError } from '../engine/listWatch';
import type { ObservedCall } from './requests';

/** How the body of an observed response ended, as the proxy saw (and passed on) it. */
export type BodyEnd =
  | 'complete'
  /** The upstream reset the connection; the process's socket was reset. */
  | 'upstream-reset'
  /** The upstream closed (FIN) before the body was complete; the process's socket was ended. */
  | 'upstream-eof'
  /** The process closed its connection (it stopped the watch, or gave up). */
  | 'client-closed';

export interface ObservedResponse {
  kind: 'response';
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body bytes exactly as they were passed to the process; it always ends, `done` says how. */
  body: PassThrough;
  /** How the body ended (once it has). */
  done: Promise<BodyEnd>;
  /** The failure a client would see on this body: reset, 'aborted' (client closed), or none. */
  failure(): TransportError | 'aborted' | undefined;
}

export interface ObservedFailure {
  kind: 'failed';
  /** What the process saw instead of a response. */
  error: TransportError;
}

/** One list or watch the process sent, as the proxy forwarded it. */
export interface ObservedExchange {
  id: number;
  call: ObservedCall;
  userAgent: string;
  /** Date.now() when the request arrived. */
  receivedAt: number;
  /** false when the client accepts no JSON (protobuf/CBOR only): forwarded unchanged, not readable. */
  readable: boolean;
  outcome: Promise<ObservedResponse | ObservedFailure>;
}

export type ProxyNotice =
  | { kind: 'unauthorized'; method: string; path: string }
  /** A list/watch whose client accepts no JSON: forwarded unchanged, its reflector (reflectorKey) not reconstructed. */
  | { kind: 'unreadable'; method: string; path: string; userAgent: string; accept: string; reflector: string }
  | { kind: 'upstream-refused'; method: string; path: string }
  | { kind: 'listening-again'; port: number }
  | { kind: 'upstream-error'; method: string; path: string; text: string };

export interface ProxyStats {
  /** Requests that presented the token and were forwarded. */
  forwarded: number;
  /** Lists and watches teed to the observer. */
  observed: number;
  /** Requests answered 401 (not forwarded). */
  unauthorized: number;
  /** Process sockets reset or ended because the upstream failed. */
  cut: number;
}
