/**
 * Measurement helpers for the benchmarks. The machine is shared and noisy, so every number is
 * the median of several repetitions with its spread, and variants that are compared are run
 * interleaved (A B C, A B C, ...) so that a burst of load from elsewhere hits all of them alike.
 */
import { performance } from 'node:perf_hooks';

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, as a fraction; 0 for a single sample. */
  spread: number;
  n: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const min = sorted[0];
  const max = sorted[sorted.length - 1];
  return { median, min, max, spread: median === 0 ? 0 : (max - min) / median, n: values.length };
}

/**
 * Runs every variant `repeats` times, round-robin, and returns the samples per variant.
 * Each run returns its own measured value (the runner decides what is timed).
 */
export async function interleaved<K extends string, R>(
  variants: readonly K[],
  repeats: number,
  run: (variant: K, repetition: number) => Promise<R>,
): Promise<Map<K, R[]>> {
  const out = new Map<K, R[]>(variants.map((v) => [v, []]));
  for (let r = 0; r < repeats; r++) {
    for (const v of variants) {
      collectGarbage();
      out.get(v)?.push(await run(v, r));
    }
  }
  return out;
}

/**
 * Wall and CPU milliseconds of this process. CPU time is the steadier of the two on a shared
 * machine (other processes' load shows up in wall time only), so the tables lead with it; it
 * includes V8's parallel GC threads, so it can exceed wall time.
 */
export interface Timing {
  wallMs: number;
  cpuMs: number;
}

export function startTiming(): () => Timing {
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  return () => {
    const cpu = process.cpuUsage(cpu0);
    return { wallMs: performance.now() - wall0, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
}

export async function timeAsync(fn: () => Promise<void>): Promise<Timing> {
  const stop = startTiming();
  await fn();
  return stop();
}

export function timeSync(fn: () => void): Timing {
  const stop = startTiming();
  fn();
  return stop();
}

/** A full GC when node runs with --expose-gc (npm run bench does); otherwise nothing. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

export function hasGc(): boolean {
  return typeof (globalThis as { gc?: () => void }).gc === 'function';
}

export function heapUsed(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** "12.3 (11.9–13.0, ±4%)": median, range, and spread relative to the median. */
export function fmt(s: Summary, digits = 1): string {
  const f = (x: number) => x.toFixed(digits);
  return `${f(s.median)} (${f(s.min)}–${f(s.max)}, ±${Math.round((s.spread * 100) / 2)}%)`;
}

/** Thousands with a thin grouping, e.g. 123 456. */
export function thousands(x: number): string {
  return Math.round(x).toLocaleString('en-US').replace(/,/g, ' ');
}

export function fmtRate(s: Summary): string {
  return `${thousands(s.median)} (${thousands(s.min)}–${thousands(s.max)})`;
}

/** A markdown table. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Rejects if the promise has not settled within ms, so a stuck run fails instead of hanging the bench. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
