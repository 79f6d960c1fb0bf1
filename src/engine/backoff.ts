/**
 * The reflector's backoff (spec §1.2): one state per Reflector, consumed by the Run loop, the
 * watch-restart backoff (connection refused / 429) and the watch-list retry, so a burst of 429s
 * also lengthens the next relist delay.
 *
 * The delay function is apimachinery's wait.Backoff.Step: return the current base jittered into
 * [base, 2·base), then double the base up to the 30 s cap. Only the reset rule differs by line.
 */
import type { Clock } from './clock';
import type { Profile } from './profiles';

export const BACKOFF_INIT_MS = 800;
export const BACKOFF_CAP_MS = 30_000;
export const BACKOFF_RESET_MS = 120_000;
export const BACKOFF_FACTOR = 2;
export const BACKOFF_JITTER = 1;
/** wait.Until(…, 1 s) between ListAndWatch runs up to Kubernetes 1.17. */
export const FIXED_PERIOD_MS = 1000;

/** One computed delay: the base before jitter, the jittered sleep, and whether this call reset the state. */
export interface BackoffStep {
  baseMs: number;
  sleepMs: number;
  reset: boolean;
}

export interface BackoffPolicy {
  /** Computes the next delay; every call advances the shared state. */
  step(): BackoffStep;
}

/** apimachinery wait.Jitter: d + rand·factor·d, a factor ≤ 0 meaning 1. */
export function jitter(durationMs: number, factor: number, rand: () => number): number {
  const f = factor <= 0 ? 1 : factor;
  return durationMs + rand() * f * durationMs;
}

/**
 * wait.Backoff with the reflector's parameters. Steps only decide when the base stops growing:
 * v0.36 uses ceil(30 s / 800 ms) = 38, ≤v0.35 MaxInt32; both reach the cap at step 6.
 */
class ExponentialDelay {
  private durationMs = BACKOFF_INIT_MS;
  private steps: number;

  constructor(
    private readonly initialSteps: number,
    private readonly rand: () => number,
  ) {
    this.steps = initialSteps;
  }

  restore(): void {
    this.durationMs = BACKOFF_INIT_MS;
    this.steps = this.initialSteps;
  }

  step(): { baseMs: number; sleepMs: number } {
    if (this.steps < 1) {
      return { baseMs: this.durationMs, sleepMs: jitter(this.durationMs, BACKOFF_JITTER, this.rand) };
    }
    this.steps--;
    const current = this.durationMs;
    let next = current * BACKOFF_FACTOR;
    if (next > BACKOFF_CAP_MS) {
      next = BACKOFF_CAP_MS;
      this.steps = 0;
    }
    this.durationMs = next;
    return { baseMs: current, sleepMs: jitter(current, BACKOFF_JITTER, this.rand) };
  }
}

/**
 * ≤v0.35 ExponentialBackoffManager: resets when more than 2 min passed since the previous delay
 * was computed, and always remembers now. Under continuous failures it stays at 30–60 s.
 */
class QuietResetBackoff implements BackoffPolicy {
  private readonly delay: ExponentialDelay;
  private lastBackoffStart: number;

  constructor(
    private readonly clock: Clock,
    rand: () => number,
  ) {
    this.delay = new ExponentialDelay(2 ** 31 - 1, rand);
    this.lastBackoffStart = clock.now();
  }

  step(): BackoffStep {
    const now = this.clock.now();
    const reset = now - this.lastBackoffStart > BACKOFF_RESET_MS;
    if (reset) this.delay.restore();
    this.lastBackoffStart = now;
    return { ...this.delay.step(), reset };
  }
}

/**
 * v0.36 Backoff.DelayWithReset: lastStart moves only when a reset happens, so the sequence
 * restarts every ~2 min even during an unbroken stream of failures.
 */
class DelayWithResetBackoff implements BackoffPolicy {
  private readonly delay: ExponentialDelay;
  private lastStart: number;

  constructor(
    private readonly clock: Clock,
    rand: () => number,
  ) {
    this.delay = new ExponentialDelay(Math.ceil(BACKOFF_CAP_MS / BACKOFF_INIT_MS), rand);
    this.lastStart = clock.now();
  }

  step(): BackoffStep {
    const now = this.clock.now();
    const reset = now - this.lastStart > BACKOFF_RESET_MS;
    if (reset) {
      this.delay.restore();
      this.lastStart = now;
    }
    return { ...this.delay.step(), reset };
  }
}

/** wait.Until with a 1 s period and no jitter (Kubernetes ≤1.17). */
class FixedPeriodBackoff implements BackoffPolicy {
  step(): BackoffStep {
    return { baseMs: FIXED_PERIOD_MS, sleepMs: FIXED_PERIOD_MS, reset: false };
  }
}

/** The reflector's backoff for a profile; the 2-minute window starts now. */
export function newReflectorBackoff(profile: Pick<Profile, 'backoff'>, clock: Clock, rand: () => number): BackoffPolicy {
  switch (profile.backoff) {
    case 'fixed-1s':
      return new FixedPeriodBackoff();
    case 'quiet-reset':
      return new QuietResetBackoff(clock, rand);
    case 'delay-with-reset':
      return new DelayWithResetBackoff(clock, rand);
  }
}
