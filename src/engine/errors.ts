/**
 * How the reflector classifies a failure (apimachinery api/errors, util/net; client-go reflector).
 * Go's errors.As walks a wrap chain; here the chain is Error.cause, so a "failed to list …"
 * wrapper still classifies as the StatusError or TransportError inside it.
 */
import { StatusError, TransportError, type Status, type StatusCause } from './listWatch';
import type { Outcome, RelistReason } from '../format/events';
import type { KubeObject } from './objects';
import type { Profile } from './profiles';
import { ListEnd, WatchEnd, type DecisionRow } from './decisionRows';

// ---- walking the chain ----------------------------------------------------------------------

function* chain(err: unknown): Generator<unknown> {
  let cur: unknown = err;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 32; depth++) {
    yield cur;
    cur = cur instanceof Error ? (cur as Error & { cause?: unknown }).cause : undefined;
  }
}

/** errors.As(err, *StatusError): the Status carried anywhere in the chain. */
export function statusOf(err: unknown): Status | undefined {
  for (const e of chain(err)) if (e instanceof StatusError) return e.status;
  return undefined;
}

function transportOf(err: unknown): TransportError | undefined {
  for (const e of chain(err)) if (e instanceof TransportError) return e;
  return undefined;
}

// ---- apierrors predicates --------------------------------------------------------------------

/**
 * Reasons apierrors knows. A bare HTTP code only counts (IsGone on 410, IsTooManyRequests on 429,
 * IsInternalError on 500, IsTimeout on 504) when the reason is not one of these.
 */
const KNOWN_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

function reasonOrCode(err: unknown, reason: string, code: number): boolean {
  const s = statusOf(err);
  if (!s) return false;
  const r = s.reason ?? '';
  if (r === reason) return true;
  return !KNOWN_REASONS.has(r) && s.code === code;
}

/** apierrors.IsResourceExpired: reason Expired only (410 with another reason is not Expired). */
export function isExpired(err: unknown): boolean {
  return statusOf(err)?.reason === 'Expired';
}

export function isGone(err: unknown): boolean {
  return reasonOrCode(err, 'Gone', 410);
}

/** The reflector's isExpiredError: Expired or Gone. */
export function isExpiredOrGone(err: unknown): boolean {
  return isExpired(err) || isGone(err);
}

export function isTooManyRequests(err: unknown): boolean {
  return reasonOrCode(err, 'TooManyRequests', 429);
}

export function isInternalError(err: unknown): boolean {
  return reasonOrCode(err, 'InternalError', 500);
}

/** apierrors.IsTimeout (the 504 status, not a transport timeout). */
export function isTimeoutStatus(err: unknown): boolean {
  return reasonOrCode(err, 'Timeout', 504);
}

/**
 * The Status's causes that are objects. A Status from a ListerWatcher is untyped JSON: causes
 * that are not an array, or entries that are not objects, would not decode in Go and count as none.
 */
function causesOf(s: Status | undefined): StatusCause[] {
  const causes: unknown = s?.details?.causes;
  return Array.isArray(causes) ? causes.filter((c): c is StatusCause => c !== null && typeof c === 'object') : [];
}

export function hasStatusCause(err: unknown, type: string): boolean {
  // On the wire the cause type travels as "reason" (Go: Type CauseType `json:"reason"`).
  return causesOf(statusOf(err)).some((c) => (c.reason ?? c.type) === type);
}

/**
 * isTooLargeResourceVersionError: the ResourceVersionTooLarge cause, or (servers before 1.18.6)
 * a Timeout whose cause or message says "Too large resource version". client-go returns false
 * before looking at the message when the Status has no details at all; that is kept.
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (hasStatusCause(err, 'ResourceVersionTooLarge')) return true;
  if (!isTimeoutStatus(err)) return false;
  const s = statusOf(err);
  if (!s?.details) return false;
  if (causesOf(s).some((c) => c.message === 'Too large resource version')) return true;
  return typeof s.message === 'string' && s.message.includes('Too large resource version');
}

/** Whether a watch ERROR event is a client-side decode failure turned into a 500 by StreamWatcher (§1.9). */
export function isClientWatchDecoding(err: unknown): boolean {
  return hasStatusCause(err, 'ClientWatchDecoding');
}

// ---- transport predicates (util/net) ------------------------------------------------------------

/** utilnet.IsConnectionRefused: an ECONNREFUSED errno anywhere in the chain. */
export function isConnectionRefused(err: unknown): boolean {
  return transportOf(err)?.kind === 'connection-refused';
}

const PROBABLE_EOF_FRAGMENTS = [
  'http2: server sent goaway and closed the connection',
  'connection reset by peer',
  'use of closed network connection',
];

/** utilnet.IsProbableEOF, on the transport errors the ListerWatcher can produce. */
export function isProbableEOF(err: unknown): boolean {
  const t = transportOf(err);
  if (!t) return false;
  if (t.kind === 'eof' || t.kind === 'connection-reset') return true;
  const msg = t.message.toLowerCase();
  if (t.message === "http: can't write HTTP request on broken connection") return true;
  return PROBABLE_EOF_FRAGMENTS.some((f) => msg.includes(f));
}

/** utilnet.IsTimeout: a net.Error whose Timeout() is true (context deadline, Client.Timeout). */
export function isTransportTimeout(err: unknown): boolean {
  return transportOf(err)?.kind === 'timeout';
}

// ---- errors the reflector makes itself -----------------------------------------------------------

/** errorStopRequested: the reflector's context is done. */
export class StopRequestedError extends Error {
  constructor() {
    super('stop requested');
    this.name = 'StopRequestedError';
  }
}

/** A watch that closed within 1 s with no accepted event (spec §1.7, row 5). */
export class VeryShortWatchError extends Error {
  constructor(readonly reflectorName: string) {
    super(`very short watch: ${reflectorName}: Unexpected watch close - watch lasted less than a second and no items received`);
    this.name = 'VeryShortWatchError';
  }
}

/** apierrors.UnexpectedObjectError: an ERROR event whose object is not a Status (row 20). */
export class UnexpectedObjectError extends Error {
  constructor(readonly object: unknown) {
    super(`unexpected object: ${describeObject(object)}`);
    this.name = 'UnexpectedObjectError';
  }
}

/** fmt.Errorf("…: %w", cause): the text reads like Go's, the cause stays classifiable. */
export function wrapError(prefix: string, cause: unknown): Error {
  const text = cause instanceof Error ? cause.message : String(cause);
  return new Error(`${prefix}: ${text}`, { cause });
}

/**
 * apierrors.FromObject on an ERROR event's object: a v1 Status becomes a StatusError whose text is
 * its message; anything else an UnexpectedObjectError.
 */
export function errorFromWatchObject(obj: KubeObject | undefined): Error {
  if (obj && typeof obj === 'object' && obj.kind === 'Status') {
    const api = obj.apiVersion;
    if (api === undefined || api === 'v1' || api === 'meta.k8s.io/v1') return new StatusError(obj as unknown as Status);
  }
  return new UnexpectedObjectError(obj);
}

/** A compact %v-like rendering of an object for error texts (never whole payloads). */
export function describeObject(obj: unknown): string {
  if (obj === null || obj === undefined) return '<nil>';
  if (typeof obj !== 'object') return String(obj);
  const o = obj as KubeObject;
  const meta = o.metadata;
  const name = meta?.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta?.name ?? '');
  const gvk = [o.apiVersion, o.kind].filter(Boolean).join(', Kind=');
  return `&{${gvk || 'unknown'} ${name}}`.replace(/ }$/, '}');
}

// ---- the decision table (docs/reflector-decisions.md, spec §1.10): how an ending is classified ------------------------------------------------------

/** The profile switches that change an outcome in the §1.10 table. */
export type ClassifyProfile = Pick<Profile, 'refusedWatchRelists' | 'tooManyRequestsRewatches'>;

/** One row of the decision table (docs/reflector-decisions.md) as it applies to one ending. */
export interface Classification {
  row: DecisionRow;
  outcome: Outcome;
  /** Set whenever the outcome leads to a relist (or a new watch-list), for the next 'relist' event. */
  reason?: RelistReason;
}

/** isWatchErrorRetriable, with the two historical exceptions the profile names. */
export function isWatchOpenRetriable(err: unknown, profile: ClassifyProfile): boolean {
  if (isConnectionRefused(err)) return !profile.refusedWatchRelists;
  if (isTooManyRequests(err)) return profile.tooManyRequestsRewatches;
  return false;
}

/** A relist reason named after the failure itself (used for list and open failures). */
export function reasonOf(err: unknown): RelistReason | undefined {
  if (isExpired(err)) return 'Expired';
  if (isGone(err)) return 'Gone';
  if (isTooLargeResourceVersion(err)) return 'TooLargeResourceVersion';
  if (isTooManyRequests(err)) return 'TooManyRequests';
  if (isConnectionRefused(err)) return 'ConnectionRefused';
  if (isProbableEOF(err)) return 'ConnectionReset';
  if (isTransportTimeout(err) || isTimeoutStatus(err)) return 'Timeout';
  if (isInternalError(err)) return isClientWatchDecoding(err) ? 'DecodeError' : 'InternalError';
  return undefined;
}

/** Opening a plain watch failed (rows 6, 10, 14, 18). The handler runs unless the outcome re-watches. */
export function classifyWatchOpenError(err: unknown, profile: ClassifyProfile): Classification {
  const retriable = isWatchOpenRetriable(err, profile);
  if (isConnectionRefused(err)) return retriable ? { row: WatchEnd.RefusedOnOpen, outcome: 'rewatch-after-backoff' } : { row: WatchEnd.RefusedOnOpen, outcome: 'relist', reason: 'ConnectionRefused' };
  if (isTooManyRequests(err)) return retriable ? { row: WatchEnd.TooManyRequestsOnOpen, outcome: 'rewatch-after-backoff' } : { row: WatchEnd.TooManyRequestsOnOpen, outcome: 'relist', reason: 'TooManyRequests' };
  if (isExpiredOrGone(err)) return { row: WatchEnd.ExpiredStatus, outcome: 'relist', reason: isExpired(err) ? 'Expired' : 'Gone' };
  return { row: WatchEnd.OpenFailed, outcome: 'relist', reason: reasonOf(err) ?? 'WatchOpenFailed' };
}

/** Where a watch stream's error came from: the stream itself or the resync goroutine. */
export type StreamErrorSource = 'stream' | 'resync';

/**
 * An established plain watch ended with an error (rows 5, 9, 13, 15, 17, 19, 20, 23).
 * `internalErrorRetry` is retry.ShouldRetry(), asked only for internal errors.
 */
export function classifyWatchStreamError(
  err: unknown,
  source: StreamErrorSource,
  profile: ClassifyProfile,
  internalErrorRetry: () => boolean,
): Classification {
  if (source === 'resync') return { row: WatchEnd.ResyncError, outcome: 'relist', reason: 'ResyncError' };
  if (err instanceof VeryShortWatchError) return { row: WatchEnd.VeryShortWatch, outcome: 'relist', reason: 'VeryShortWatch' };
  if (isExpiredOrGone(err)) return { row: WatchEnd.ExpiredEvent, outcome: 'relist', reason: isExpired(err) ? 'Expired' : 'Gone' };
  if (isTooManyRequests(err)) {
    return profile.tooManyRequestsRewatches
      ? { row: WatchEnd.TooManyRequestsEvent, outcome: 'rewatch-after-backoff' }
      : { row: WatchEnd.TooManyRequestsEvent, outcome: 'relist', reason: 'TooManyRequests' };
  }
  if (isInternalError(err)) {
    if (internalErrorRetry()) return { row: WatchEnd.InternalErrorEvent, outcome: 'rewatch' };
    return { row: WatchEnd.InternalErrorEvent, outcome: 'relist', reason: isClientWatchDecoding(err) ? 'DecodeError' : 'InternalError' };
  }
  if (err instanceof UnexpectedObjectError) return { row: WatchEnd.UnexpectedObjectEvent, outcome: 'relist', reason: 'UnexpectedObject' };
  if (isTooLargeResourceVersion(err)) return { row: WatchEnd.TimeoutEvent, outcome: 'relist', reason: 'TooLargeResourceVersion' };
  if (isTimeoutStatus(err)) return { row: WatchEnd.TimeoutEvent, outcome: 'relist', reason: 'Timeout' };
  return { row: WatchEnd.OtherErrorEvent, outcome: 'relist', reason: statusOf(err) ? 'ErrorEvent' : 'Other' };
}

/** How a watch's result channel closed without an error, as the reflector's 'how'. */
export type CleanEnd = 'eof' | 'unexpected-eof' | 'reset' | 'timeout' | 'open-retries-exhausted' | 'stopped';

/**
 * A clean close that was not "very short" (rows 1–4, 8): re-watch at once. An `eof` that came at or
 * after the requested timeout is the server's own close (row 1); earlier it is a mid-stream EOF (row 2).
 */
export function classifyCleanClose(how: CleanEnd, durationMs: number, timeoutSeconds: number): Classification {
  switch (how) {
    case 'unexpected-eof':
      return { row: WatchEnd.UnexpectedEOF, outcome: 'rewatch' };
    case 'reset':
    case 'timeout':
      return { row: WatchEnd.ResetOrClientTimeout, outcome: 'rewatch' };
    case 'open-retries-exhausted':
      return { row: WatchEnd.OpenRetriesExhausted, outcome: 'rewatch' };
    default:
      return { row: durationMs >= timeoutSeconds * 1000 ? WatchEnd.ServerTimeoutClose : WatchEnd.MidStreamEOF, outcome: 'rewatch' };
  }
}

/**
 * Watch-list (§1.8): retriable failures try the stream again (after a backoff for refused/429,
 * at once with RV "" for Expired/Gone/TooLarge); anything else falls back to a LIST (row 27).
 */
export function classifyWatchListError(err: unknown, phase: 'open' | 'stream', profile: ClassifyProfile): Classification & { backoff: boolean; unavailable: boolean } {
  const opening = phase === 'open';
  if (isWatchOpenRetriable(err, profile)) {
    const row = isConnectionRefused(err) ? WatchEnd.RefusedOnOpen : opening ? WatchEnd.TooManyRequestsOnOpen : WatchEnd.TooManyRequestsEvent;
    return { row, outcome: 'watchlist-again', reason: reasonOf(err), backoff: true, unavailable: false };
  }
  if (isExpiredOrGone(err)) {
    return { row: opening ? WatchEnd.ExpiredStatus : WatchEnd.ExpiredEvent, outcome: 'watchlist-again', reason: isExpired(err) ? 'Expired' : 'Gone', backoff: false, unavailable: true };
  }
  if (isTooLargeResourceVersion(err)) return { row: WatchEnd.WatchListTooLargeRV, outcome: 'watchlist-again', reason: 'TooLargeResourceVersion', backoff: false, unavailable: true };
  const reason = err instanceof VeryShortWatchError ? 'VeryShortWatch' : (reasonOf(err) ?? (opening ? 'WatchOpenFailed' : 'Other'));
  return { row: WatchEnd.WatchListFallback, outcome: 'fallback-to-list', reason, backoff: false, unavailable: false };
}

/** A failed list() as ListAndWatch returns it (rows 7, 16, 25): the handler runs, then a relist. */
export function classifyListFailure(err: unknown, phase: 'request' | 'sync'): Classification {
  if (phase === 'sync') return { row: ListEnd.SyncFailed, outcome: 'relist', reason: 'SyncFailed' };
  if (isTooManyRequests(err)) return { row: ListEnd.TooManyRequests, outcome: 'relist', reason: 'TooManyRequests' };
  const r = reasonOf(err);
  return { row: ListEnd.Failed, outcome: 'relist', reason: r === 'ConnectionRefused' || r === 'ConnectionReset' || r === 'Timeout' ? r : 'ListFailed' };
}
