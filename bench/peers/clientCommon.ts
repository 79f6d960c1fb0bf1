/**
 * What every Node client of the peer benchmark shares (client.ts on the main thread,
 * engineClient.ts in the engine's worker): the result line, the update counter, the timed watch
 * phase and the memory sampler (PEERS_MEM, memSampler.ts).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { MemSampler } from './memSampler';

export type Mode = 'engine-null' | 'engine-recorder' | 'engine-session' | 'client-node' | 'floor';

/** The one JSON line a client prints for the runner (bench/peers/run.ts). */
export interface Result {
  syncMs: number;
  watchCpuS: number;
  watchWallS: number;
  peakRssKiB: number;
  objects: number;
  /** Memory lines from the engine's worker (PEERS_MEM), printed by the main thread. */
  mem?: string[];
}

export const LIMIT_MS = 300_000;

/** Samples memory through the run when PEERS_MEM names a directory (memSampler.ts). */
export function memSampler(mode: string): MemSampler {
  return (sampler = new MemSampler(process.env.PEERS_MEM || undefined, mode));
}

/** The sampler memSampler made last (the engine client sets its probe once its recorder exists). */
export function currentMemSampler(): MemSampler {
  return sampler;
}
let sampler = new MemSampler(undefined, '');

/** CPU time of the whole process (every thread, V8's helpers included), in seconds. */
function cpuS(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
}

export function get(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'application/json' } }, resolve);
    req.on('error', reject);
    req.setTimeout(LIMIT_MS, () => req.destroy(new Error(`no answer from ${url}`)));
  });
}

/** Counts updates per handler; resolves once every handler has seen `events`. */
export class Counter {
  readonly counts: number[];
  readonly done: Promise<void>;
  private resolve!: () => void;
  constructor(handlers: number, private readonly events: number) {
    this.counts = new Array<number>(handlers).fill(0);
    this.done = new Promise((r) => (this.resolve = r));
  }
  handler(h: number): () => void {
    return () => {
      if (++this.counts[h] === this.events && this.counts.every((n) => n >= this.events)) this.resolve();
    };
  }
}

/** The timed part every mode shares once its cache is synced. */
export async function watchPhase(url: string, counter: Counter, objects: () => number, syncMs: number): Promise<Result> {
  sampler.mark('synced');
  const gc = process.env.PEERS_GC_MARKS ? gcWatch() : undefined;
  const cpu0 = cpuS();
  const w0 = performance.now();
  (await get(`${url}/bench/go`)).resume();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    counter.done,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`updates handled: ${counter.counts.join(', ')}`)), LIMIT_MS);
    }),
  ]);
  clearTimeout(timer);
  sampler.mark('handled');
  const r = { syncMs, watchCpuS: cpuS() - cpu0, watchWallS: (performance.now() - w0) / 1000, peakRssKiB: peakRssKiB(), objects: objects() };
  if (gc) await gc();
  return r;
}

/**
 * Diagnostics only (PEERS_GC_MARKS set, never for a measured run): marks the watch phase's start
 * and end among V8's own GC trace lines (PEERS_NODE_ARGS=--trace-gc-nvp; both write to fd 1 of
 * this thread, in order), and prints the GCs of this thread's isolate during the phase as a
 * PerformanceObserver saw them. The returned function ends the phase.
 */
function gcWatch(): () => Promise<void> {
  const pauses = new Map<number, number[]>([[1, []], [4, []], [8, []]]);
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.get((e as unknown as { detail: { kind: number } }).detail.kind)?.push(e.duration);
  });
  obs.observe({ entryTypes: ['gc'] });
  fs.writeSync(1, 'PEERS_GC_MARK watch-start\n');
  return async () => {
    fs.writeSync(1, 'PEERS_GC_MARK watch-end\n');
    await new Promise((r) => setTimeout(r, 50));
    obs.disconnect();
    const line = (kind: number) => {
      const a = pauses.get(kind) ?? [];
      return `${a.length} ${a.reduce((x, y) => x + y, 0).toFixed(1)} ms`;
    };
    // perf_hooks kinds: 1 minor (scavenge), 4 major (mark-compact), 8 incremental marking.
    fs.writeSync(1, `PEERS_GC watch minor ${line(1)}, major ${line(4)}, incremental ${line(8)}\n`);
  };
}

/**
 * This process's peak RSS in KiB: VmHWM of /proc/self/status, the high-water mark of the memory
 * this program mapped. Not getrusage's maxRSS: on Linux a spawned child's maxRSS starts at its
 * parent's RSS when it was spawned (the parent's mm is carried over exec), so every client would
 * read at least the runner's RSS (~210 MiB while it holds the generated data). maxRSS only where
 * /proc is not there.
 */
export function peakRssKiB(): number {
  try {
    const m = /^VmHWM:\s*(\d+)\s*kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // No /proc: getrusage's number.
  }
  return process.resourceUsage().maxRSS;
}
