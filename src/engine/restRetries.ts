/**
 * The REST client's own retries of one request (spec §1.9), below the reflector: given how each
 * attempt of a LIST or WATCH ends, how many times client-go's REST client sends it again and how
 * long it waits before each retry. Read by the ListerWatchers that stand for the REST client
 * (the scripted scenario server), not by the engine.
 *
 * client-go v0.32+ (rest/request.go, rest/with_retry.go): `NewRequest` sets `maxRetries: 10`;
 * `withRetry.IsNextRetry` counts attempts and stops once `attempts > maxRetries` (10 retries,
 * 11 requests). A retry needs a response that `checkWait` accepts (429 or ≥ 500 with a numeric
 * Retry-After header) or an error the request kind treats as retryable, for which it makes an
 * artificial "Retry-After: 1" response: `request()` (LIST) retries a GET on
 * `IsConnectionReset || IsProbableEOF`, `Watch()` on `IsProbableEOF || IsTimeout` and, once the
 * retries are spent on such an error, returns `watch.NewEmptyWatch(), nil`.
 *
 * client-go 1.15 (rest/request.go): `request()` counts `retries++` and retries while
 * `checkWait(resp) && retries < maxRetries` (10): 9 retries, 10 requests. A GET failing with
 * `IsConnectionReset` gets the artificial `500, Retry-After: 1` response; when the retries are
 * spent that artificial response is what `Do()` transforms, so the LIST fails with a 500 Status
 * error. `Watch()` never retries: `IsProbableEOF` gives the empty watcher, anything else the error.
 */
import type { Profile } from './profiles';

/** How one HTTP attempt ended. */
export type AttemptEnd =
  | { kind: 'status'; code: number; retryAfterSeconds?: number }
  | { kind: 'network'; network: 'connection-refused' | 'connection-reset' | 'timeout' };

export interface RestRetries {
  /** Retries after the first attempt (every attempt ends the same way). */
  retries: number;
  /** The wait before each retry. */
  waitMs: number;
  /** What the caller gets once the retries are spent. */
  outcome: 'error' | 'empty-watcher' | 'internal-error';
}

type RestLine = Pick<Profile, 'restRetriesWatchOpen'>;

export function restRetries(client: RestLine, verb: 'list' | 'watch', end: AttemptEnd): RestRetries {
  const modern = client.restRetriesWatchOpen;
  const maxRetries = modern ? 10 : 9;
  const none: RestRetries = { retries: 0, waitMs: 0, outcome: 'error' };
  if (end.kind === 'status') {
    if (verb === 'watch' && !modern) return none;
    const waits = (end.code === 429 || end.code >= 500) && (end.retryAfterSeconds ?? 0) > 0;
    return waits ? { retries: maxRetries, waitMs: (end.retryAfterSeconds ?? 0) * 1000, outcome: 'error' } : none;
  }
  if (end.network === 'connection-refused') return none;
  if (verb === 'list') {
    if (end.network !== 'connection-reset') return none;
    return { retries: maxRetries, waitMs: 1000, outcome: modern ? 'error' : 'internal-error' };
  }
  if (!modern) return end.network === 'connection-reset' ? { ...none, outcome: 'empty-watcher' } : none;
  return { retries: maxRetries, waitMs: 1000, outcome: 'empty-watcher' };
}
