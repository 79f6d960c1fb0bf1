/**
 * Time is injected: the engine never reads Date or setTimeout directly, so backoff, resync and
 * watch durations are testable without sleeping. Times are milliseconds on a monotonic scale.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Calls fn once, ms from now. */
  setTimer(ms: number, fn: () => void): TimerHandle;
  /** Resolves after ms; rejects with AbortError-like Error if the signal aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const onAbort = () => {
      timer.cancel();
      reject(abortError());
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortError(): Error {
  const e = new Error('stop requested');
  e.name = 'AbortError';
  return e;
}

export function isAbortError(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

/**
 * Wall-clock time through the host's timers. now() counts from the clock's creation, so a trace
 * whose header records the wall time of that moment reads t as "ms since start" everywhere.
 */
/**
 * The host's performance object, read once: in Node `globalThis.performance` is a getter, which
 * cost ~20 ns of each now() (the engine reads the clock once per trace event, ~7 per watch event).
 */
const perf: { now(): number } | undefined = globalThis.performance;

export class RealClock implements Clock {
  private readonly origin = RealClock.read();
  private static read(): number {
    return perf !== undefined ? perf.now() : Date.now();
  }
  now(): number {
    return RealClock.read() - this.origin;
  }
  setTimer(ms: number, fn: () => void): TimerHandle {
    // A zero delay is "after everything already queued": one macrotask turn, without the
    // 1 ms minimum setTimeout imposes (the FIFOs yield this way on every wake-up).
    if (ms <= 0 && typeof setImmediate === 'function') {
      const h = setImmediate(fn);
      return { cancel: () => clearImmediate(h) };
    }
    const h = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(h) };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }
}

/** Event-loop turns a held FakeClock spins for outside work before it polls on a timer. */
const HOLD_TURNS = 100;
/** Wall-clock ms a held FakeClock waits at most for outside work before moving on. */
const HOLD_WALL_MS = 30_000;

interface FakeTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * Virtual time. Nothing moves until advance()/runUntilIdle() is called; timers due at the same
 * instant fire in the order they were set.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: FakeTimer[] = [];
  private readonly holds: (() => boolean)[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer: FakeTimer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /**
   * Outside work that must settle before time moves on (stream I/O, decompression on the thread
   * pool): while `busy()` is true, advance/runUntilIdle/runNext keep turning the event loop
   * (bounded) before they fire the next timer.
   */
  holdWhile(busy: () => boolean): void {
    this.holds.push(busy);
  }

  private async quiet(): Promise<void> {
    await settle();
    if (!this.held()) return;
    // Work on the thread pool finishes in its own time: spin a little, then poll.
    for (let i = 0; i < HOLD_TURNS && this.held(); i++) await settle(1);
    const until = Date.now() + HOLD_WALL_MS;
    while (this.held() && Date.now() < until) await new Promise<void>((r) => setTimeout(r, 1));
    await settle();
  }

  /** Whether outside work (holdWhile) is still under way. */
  held(): boolean {
    return this.holds.some((h) => h());
  }

  /** Pending (not cancelled) timers. */
  pendingTimers(): number {
    this.timers = this.timers.filter((x) => !x.cancelled);
    return this.timers.length;
  }

  /** When the next timer is due, or undefined if none. */
  nextTimerAt(): number | undefined {
    let best: FakeTimer | undefined;
    for (const x of this.timers) {
      if (x.cancelled) continue;
      if (!best || x.at < best.at || (x.at === best.at && x.seq < best.seq)) best = x;
    }
    return best?.at;
  }

  /** Moves time forward by ms, firing due timers in order (each after the previous one's microtasks). */
  async advance(ms: number): Promise<void> {
    const until = this.t + ms;
    for (;;) {
      await this.quiet();
      const next = this.nextTimerAt();
      if (next === undefined || next > until) break;
      this.fireNext();
    }
    this.t = until;
    await this.quiet();
  }

  /**
   * Runs virtual time like Go's synctest: whenever every task is idle, jump to the next timer.
   * Stops when `done()` is true, when no timer is left (everything is blocked on something
   * outside time), or after maxMs of virtual time.
   */
  async runUntilIdle(done: () => boolean = () => false, maxMs = 24 * 3600_000): Promise<'done' | 'blocked' | 'limit'> {
    const limit = this.t + maxMs;
    for (;;) {
      await this.quiet();
      if (done()) return 'done';
      const next = this.nextTimerAt();
      if (next === undefined) return 'blocked';
      if (next > limit) return 'limit';
      this.fireNext();
    }
  }

  /**
   * Fires the next timer alone (moving time to it) and lets its continuations run; false when no
   * timer is left. For drivers that wait for outside work (real I/O) between timers.
   */
  async runNext(): Promise<boolean> {
    await this.quiet();
    if (this.nextTimerAt() === undefined) return false;
    this.fireNext();
    await this.quiet();
    return true;
  }

  private fireNext(): void {
    let idx = -1;
    for (let i = 0; i < this.timers.length; i++) {
      const x = this.timers[i];
      if (x.cancelled) continue;
      if (idx < 0 || x.at < this.timers[idx].at || (x.at === this.timers[idx].at && x.seq < this.timers[idx].seq)) idx = i;
    }
    if (idx < 0) return;
    const [timer] = this.timers.splice(idx, 1);
    if (timer.at > this.t) this.t = timer.at;
    timer.fn();
  }
}

/**
 * Lets every queued promise continuation run. One macrotask turn drains the whole microtask
 * queue, including continuations queued while draining; a few turns cover chains that hop
 * through setImmediate themselves.
 */
export async function settle(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}
