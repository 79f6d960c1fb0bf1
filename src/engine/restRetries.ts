/**
 * The REST client's own retries of one request (spec §1.9), below the reflector: given how an
 * attempt of a LIST or WATCH ended, whether client-go's REST client sends it again, how long it
 * waits first, and what the caller gets once it stops. One rule table for both paths: the HTTP
 * request layer that talks to real clusters and the conformance responder (src/kube/restRequest.ts)
 * asks `retryWait` after every attempt; the ListerWatcher-level scripted server (sandbox, replay)
 * reads the whole run of a call from `restRetries`, which is derived from the same rule.
 *
 * client-go v0.32+ (rest/request.go, rest/with_retry.go): `NewRequest` sets `maxRetries: 10`;
 * `withRetry.IsNextRetry` counts attempts and stops once `attempts > maxRetries` (10 retries,
 * 11 requests). A retry needs a response that `checkWait` accepts (429 or ≥ 500 with a numeric
 * Retry-After header) or an error the request kind treats as retryable, for which it makes an
 * artificial "Retry-After: 1" response: `request()` (LIST) retries a GET on
 * `IsConnectionReset || IsProbableEOF`, `Watch()` on `IsProbableEOF || IsTimeout` (a reset is
 * probable-EOF too) and, once the retries are spent on such an error, returns
 * `watch.NewEmptyWatch(), nil`.
 *
 * client-go 1.15 (rest/request.go): `request()` counts `retries++` and retries while
 * `checkWait(resp) && retries < maxRetries` (10): 9 retries, 10 requests. A GET failing with
 * `IsConnectionReset` gets the artificial `500, Retry-After: 1` response; when the retries are
 * spent that artificial response is what `Do()` transforms, so the LIST fails with a 500 Status
 * error. Any other error (io.EOF included) fails the LIST at once. `Watch()` never retries:
 * `IsProbableEOF` (EOF, reset) gives the empty watcher, anything else the error.
 */
import type { Status } from './listWatch';
import type { Profile } from './profiles';

/**
 * client-go 1.15: a LIST whose every attempt is reset ends with the REST client's artificial
 * "500, Retry-After: 1" response, which Do() turns into this Status (rest/request.go).
 */
export const ARTIFICIAL_RETRY_AFTER_500: Status = {
  apiVersion: 'v1',
  kind: 'Status',
  status: 'Failure',
  message: 'an error on the server ("unknown") has prevented the request from succeeding',
  reason: 'InternalError',
  code: 500,
  details: { causes: [{ type: 'UnexpectedServerResponse', reason: 'UnexpectedServerResponse', message: 'unknown' }] },
};

/** How one HTTP attempt ended ('eof': the peer closed before answering; 'other': any other transport failure). */
export type AttemptEnd =
  | { kind: 'status'; code: number; retryAfterSeconds?: number }
  | { kind: 'network'; network: 'connection-refused' | 'connection-reset' | 'timeout' | 'eof' | 'other' };

export type RestOutcome = 'error' | 'empty-watcher' | 'internal-error';

export interface RestRetries {
  /** Retries after the first attempt (every attempt ends the same way). */
  retries: number;
  /** The wait before each retry. */
  waitMs: number;
  /** What the caller gets once the retries are spent. */
  outcome: RestOutcome;
}

export type RestLine = Pick<Profile, 'restRetriesWatchOpen'>;

/** The REST client's retry budget of the line: v0.32+ 10 retries (11 requests), 1.15 9 (10 requests). */
export function maxRestRetries(client: RestLine): number {
  return client.restRetriesWatchOpen ? 10 : 9;
}

/**
 * After the `attempts`-th attempt of a call (1 for the first) ended as `end`: the wait in ms
 * before the REST client sends it again, or undefined when it does not.
 */
export function retryWait(client: RestLine, verb: 'list' | 'watch', end: AttemptEnd, attempts: number): number | undefined {
  if (attempts > maxRestRetries(client)) return undefined;
  const modern = client.restRetriesWatchOpen;
  if (end.kind === 'status') {
    if (verb === 'watch' && !modern) return undefined;
    // checkWait: 429 or ≥ 500 with a Retry-After header strconv.Atoi reads (0 included).
    if (end.code !== 429 && end.code < 500) return undefined;
    return end.retryAfterSeconds === undefined ? undefined : Math.max(0, end.retryAfterSeconds) * 1000;
  }
  return retryableError(modern, verb, end.network) ? 1000 : undefined;
}

function retryableError(modern: boolean, verb: 'list' | 'watch', network: string): boolean {
  if (!modern) return verb === 'list' && network === 'connection-reset';
  if (verb === 'list') return network === 'connection-reset' || network === 'eof';
  return network === 'connection-reset' || network === 'eof' || network === 'timeout';
}

/** What the caller gets when the REST client stops after an attempt that ended as `end`. */
export function restOutcome(client: RestLine, verb: 'list' | 'watch', end: AttemptEnd): RestOutcome {
  if (end.kind === 'status') return 'error';
  const modern = client.restRetriesWatchOpen;
  const n = end.network;
  if (verb === 'list') return !modern && n === 'connection-reset' ? 'internal-error' : 'error';
  // v0.32+: Watch's isErrRetryableFunc (probable-EOF or timeout); 1.15: IsProbableEOF only.
  const emptyWatch = n === 'connection-reset' || n === 'eof' || (modern && n === 'timeout');
  return emptyWatch ? 'empty-watcher' : 'error';
}

/** The whole run of a call whose every attempt ends as `end` (the scripted server's view). */
export function restRetries(client: RestLine, verb: 'list' | 'watch', end: AttemptEnd): RestRetries {
  let retries = 0;
  let waitMs = 0;
  for (let w = retryWait(client, verb, end, 1); w !== undefined; w = retryWait(client, verb, end, retries + 1)) {
    retries++;
    waitMs = w;
  }
  return { retries, waitMs, outcome: restOutcome(client, verb, end) };
}
