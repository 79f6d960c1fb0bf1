/**
 * The REST client's retry loop of one request, as client-go runs it below the reflector
 * (rest/request.go, rest/with_retry.go): after every attempt the rule table of the profile's line
 * (src/engine/restRetries.ts) says whether the same GET goes out again and after how long; the
 * wait runs on the engine's clock, and every retry is reported (for the trace: "429, retried
 * after 1 s (3/10)"). Used by HttpListerWatcher for LIST and WATCH.
 */
import type { Clock } from '../engine/clock';
import { maxRestRetries, restOutcome, retryWait, type AttemptEnd, type RestLine, type RestOutcome } from '../engine/restRetries';

/** One retry the REST client makes: the attempt that failed and the wait before the next. */
export interface RestRetryInfo {
  verb: 'list' | 'watch';
  /** 1 for the first retry, up to maxRetries. */
  retry: number;
  maxRetries: number;
  waitMs: number;
  /** The failed attempt's HTTP status, or its transport failure. */
  code?: number;
  error?: string;
}

export interface RestRetryOptions {
  client: RestLine;
  verb: 'list' | 'watch';
  clock: Clock;
  /** A lower cap on the retries than the line's (tests); absent: the line's. */
  maxRetries?: number;
  onRetry?: (info: RestRetryInfo) => void;
}

/** The retry state of one request: ask `again` after each failed attempt. */
export class RestRetry {
  private attempts = 0;
  private readonly max: number;

  constructor(private readonly o: RestRetryOptions) {
    this.max = Math.min(maxRestRetries(o.client), o.maxRetries ?? Infinity);
  }

  /**
   * The attempt ended as `end`: when the REST client retries, waits (virtual or real time, on the
   * clock) and resolves true; false when it stops. Rejects with an AbortError if `signal` aborts.
   */
  async again(end: AttemptEnd, signal: AbortSignal): Promise<boolean> {
    this.attempts++;
    const wait = this.attempts > this.max ? undefined : retryWait(this.o.client, this.o.verb, end, this.attempts);
    if (wait === undefined) return false;
    this.o.onRetry?.({
      verb: this.o.verb,
      retry: this.attempts,
      maxRetries: this.max,
      waitMs: wait,
      ...(end.kind === 'status' ? { code: end.code } : { error: end.network }),
    });
    await this.o.clock.sleep(wait, signal);
    return true;
  }

  /** What the caller gets now that the REST client stopped after `end`. */
  outcome(end: AttemptEnd): RestOutcome {
    return restOutcome(this.o.client, this.o.verb, end);
  }
}
