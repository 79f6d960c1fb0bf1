/**
 * Where a peers client's memory goes: with PEERS_MEM=DIR in its environment, a Node client samples
 * process.memoryUsage() and v8.getHeapSpaceStatistics() every 20 ms (and at each phase mark:
 * start, synced, go, done) and writes them, with the sample at the RSS peak, to
 * DIR/<mode>-<pid>[-t<thread>].json. Without PEERS_MEM it does nothing (the measured runs).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { threadId } from 'node:worker_threads';

interface Sample {
  t: number;
  mark?: string;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Per V8 space: [size, used] in bytes. */
  spaces: Record<string, [number, number]>;
  /** What `probe` read (the recorder's events in memory), when set. */
  probed?: number;
}

const MiB = 1048576;

export class MemSampler {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly t0 = Date.now();
  /** Read at each sample when set (the engine client: the recorder's window, `held`). */
  probe: (() => number) | undefined;

  constructor(
    private readonly dir: string | undefined,
    private readonly mode: string,
  ) {
    if (dir === undefined) return;
    this.timer = setInterval(() => this.sample(), 20);
    this.timer.unref();
    this.mark('start');
  }

  mark(name: string): void {
    if (this.dir !== undefined) this.sample(name);
  }

  private sample(mark?: string): void {
    const m = process.memoryUsage();
    const spaces: Sample['spaces'] = {};
    for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = [s.space_size, s.space_used_size];
    this.samples.push({ t: Date.now() - this.t0, ...(mark ? { mark } : {}), rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, spaces, ...(this.probe ? { probed: this.probe() } : {}) });
  }

  /** Writes the samples and returns the peak's breakdown, two lines (none without PEERS_MEM). */
  finish(): string[] {
    if (this.dir === undefined) return [];
    clearInterval(this.timer);
    this.mark('done');
    const peak = this.samples.reduce((a, b) => (b.rss > a.rss ? b : a));
    const f = (n: number) => (n / MiB).toFixed(0);
    const spaces = Object.entries(peak.spaces)
      .map(([k, [size, used]]) => `${k} ${f(size)}/${f(used)}`)
      .join(', ');
    const marks = this.samples.filter((s) => s.mark).map((s) => `${s.mark}@${s.t}ms rss ${f(s.rss)} heap ${f(s.heapTotal)}/${f(s.heapUsed)}${s.probed === undefined ? '' : ` probe ${s.probed}`}`);
    const lines = [`mem ${this.mode}: peak rss ${f(peak.rss)} MiB at ${peak.t} ms: heap ${f(peak.heapTotal)} total / ${f(peak.heapUsed)} used, external ${f(peak.external)}, arrayBuffers ${f(peak.arrayBuffers)}${peak.probed === undefined ? '' : `, probe ${peak.probed}`}; spaces size/used: ${spaces}`, `mem ${this.mode}: ${marks.join('; ')}`];
    fs.mkdirSync(this.dir, { recursive: true });
    // The engine's worker and its process's main thread share the pid: the worker's file is named by its thread too.
    fs.writeFileSync(path.join(this.dir, `${this.mode}-${process.pid}${threadId ? `-t${threadId}` : ''}.json`), JSON.stringify({ peak, samples: this.samples }));
    return lines;
  }
}
