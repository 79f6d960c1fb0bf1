/**
 * The ListerWatcher boundary: everything below it (HTTP, a scripted scenario server, the sandbox)
 * hands the reflector exactly what client-go's REST client would hand it, after the REST client's
 * own retries (spec §1.9). The engine's classification (errors.ts) works only on these values.
 */
import type { KubeObject } from './objects';

export interface ListOptions {
  /** "" (consistent read), "0" (any) or a specific RV. */
  resourceVersion: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact' | string;
  /** 0 or absent: no limit. */
  limit?: number;
  continue?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface WatchOptions {
  resourceVersion: string;
  resourceVersionMatch?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ObjectList {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  /** Usually a WatchEventType; anything else is an "Unknown watch event" for the reflector. */
  type: string;
  object: KubeObject;
}

/**
 * Why a watch's result channel closed, as client-go's StreamWatcher saw it. The reflector treats
 * all of these as a normal close (spec §1.10 rows 1–4); the kind is kept for the trace.
 */
export type StreamEnd =
  | { kind: 'eof' }
  | { kind: 'unexpected-eof' }
  | { kind: 'reset'; message: string }
  | { kind: 'timeout'; message: string }
  /** stop() was called by the consumer. */
  | { kind: 'stopped' }
  /** The REST client gave up retrying a probable-EOF/timeout on open and returned an empty closed watcher (row 8). */
  | { kind: 'open-retries-exhausted'; message: string };

export interface Watcher {
  /**
   * The next event, or null once the result channel is closed. Undecodable stream data is not
   * thrown: it arrives as one ERROR event (Status 500 InternalError, ClientWatchDecoding), then null.
   */
  next(): Promise<WatchEvent | null>;
  /** Closes the stream; a pending next() resolves null. Idempotent. */
  stop(): void;
  /**
   * Set once next() has returned null. The empty watcher handed over when the REST client's retries
   * of an open ran out (open-retries-exhausted) has it from the start: no stream was ever open.
   */
  readonly end?: StreamEnd;
}

export interface ListerWatcher {
  /** A failed list rejects with a StatusError or a TransportError. */
  list(options: ListOptions, signal: AbortSignal): Promise<ObjectList>;
  /** A failed open rejects with a StatusError or a TransportError. */
  watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher>;
  /**
   * false when the source cannot serve watch-list (client-go's IsWatchListSemanticsUnSupported);
   * the reflector then never tries it. Absent means supported.
   */
  readonly watchListSupported?: boolean;
  /** The URL-ish description used in error texts, e.g. `https://127.0.0.1:6443/api/v1/configmaps`. */
  readonly url: string;
}

// ---- Errors the reflector sees -------------------------------------------------------------

export interface StatusCause {
  /** Older spelling some sources use; the JSON field is `reason`. */
  type?: string;
  /** The cause type (metav1.CauseType), e.g. ResourceVersionTooLarge. */
  reason?: string;
  message?: string;
  field?: string;
}

/** A metav1.Status as it travels in HTTP bodies and ERROR watch events. */
export interface Status {
  apiVersion?: string;
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
}

/** apierrors.StatusError: an HTTP status with a Status body; its text is the Status message. */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? `the server responded with status ${status.code ?? 'unknown'}`);
    this.name = 'StatusError';
  }
}

/**
 * A failure below HTTP, shaped like Go's *url.Error. `kind` is what errors.As would find in the
 * chain: ECONNREFUSED, ECONNRESET/probable EOF, a net.Error with Timeout() true, or anything else.
 */
export type TransportErrorKind = 'connection-refused' | 'connection-reset' | 'timeout' | 'eof' | 'other';

export class TransportError extends Error {
  constructor(
    readonly kind: TransportErrorKind,
    /** The Go-style text, e.g. `Get "https://…": dial tcp 127.0.0.1:6443: connect: connection refused`. */
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** Go-style texts for the transport failures, so traces read like client-go logs. */
export function transportErrorText(kind: TransportErrorKind, url: string, host = hostOf(url)): string {
  switch (kind) {
    case 'connection-refused':
      return `Get "${url}": dial tcp ${host}: connect: connection refused`;
    case 'connection-reset':
      return `Get "${url}": read tcp 127.0.0.1:50000->${host}: read: connection reset by peer`;
    case 'timeout':
      return `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
    case 'eof':
      return `Get "${url}": EOF`;
    default:
      return `Get "${url}": unknown error`;
  }
}

function hostOf(url: string): string {
  // dial errors name host:port only, never the URL's user info
  const m = /^[a-z]+:\/\/(?:[^/@]*@)?([^/]+)/i.exec(url);
  return m ? m[1] : url;
}
