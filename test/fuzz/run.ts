/**
 * `npm run fuzz -- --inputs N [--seed S] [--target T[,T2]] [--json FILE]`
 *
 * Spreads N inputs over the fuzz targets (by weight, each at least its floor), runs every target
 * in a worker thread with fast-check, and prints per target the inputs run, the time taken and
 * the result. An input that runs over its time bound fails as a hang; a worker that stops
 * reporting progress for HANG_MS (a synchronous input that never returns) is ended and fails the
 * same way. Ends with "N passed, M failed" (targets) and exits non-zero on any failure.
 */
import { Worker } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { TARGETS } from './targets';
import type { WorkerMessage } from './worker';

const HANG_MS = 60_000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function usage(message: string): never {
  console.error(`fuzz: ${message}\nusage: npm run fuzz -- --inputs N [--seed S] [--target NAME[,NAME]] [--json FILE]\ntargets: ${TARGETS.map((t) => t.name).join(', ')}`);
  process.exit(2);
}

export interface TargetResult {
  target: string;
  about: string;
  inputs: number;
  ms: number;
  slowestMs: number;
  failed: boolean;
  report?: string;
}

function runTarget(name: string, inputs: number, seed: number): Promise<TargetResult> {
  const target = TARGETS.find((t) => t.name === name)!;
  return new Promise((resolve) => {
    const worker = new Worker(path.join(__dirname, 'worker.ts'), {
      workerData: { target: name, inputs, seed },
      execArgv: ['--require', require.resolve('tsx/cjs')],
    });
    let last = Date.now();
    let settled = false;
    const finish = (r: Omit<TargetResult, 'target' | 'about'>) => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      void worker.terminate();
      resolve({ target: name, about: target.about, ...r });
    };
    const t0 = Date.now();
    let done = 0;
    const watchdog = setInterval(() => {
      if (Date.now() - last > HANG_MS) finish({ inputs: done, ms: Date.now() - t0, slowestMs: HANG_MS, failed: true, report: `no progress for ${HANG_MS / 1000} s after ${done} inputs: an input hangs` });
    }, 1000);
    worker.on('message', (m: WorkerMessage) => {
      last = Date.now();
      if (m.kind === 'progress') done = m.done;
      else finish(m);
    });
    worker.on('error', (e) => finish({ inputs: done, ms: Date.now() - t0, slowestMs: 0, failed: true, report: `the worker crashed: ${e.stack ?? e.message}` }));
    worker.on('exit', (code) => finish({ inputs: done, ms: Date.now() - t0, slowestMs: 0, failed: true, report: `the worker exited (${code}) without a result` }));
  });
}

async function main(): Promise<void> {
  const inputs = Number(arg('inputs') ?? 10_000);
  const seed = Number(arg('seed') ?? 20261123);
  if (!Number.isInteger(inputs) || inputs <= 0) usage('--inputs must be a positive whole number');
  if (!Number.isInteger(seed)) usage('--seed must be a whole number');
  const names = arg('target')?.split(',') ?? TARGETS.map((t) => t.name);
  for (const n of names) if (!TARGETS.some((t) => t.name === n)) usage(`no target "${n}"`);
  const chosen = TARGETS.filter((t) => names.includes(t.name));
  const totalWeight = chosen.reduce((s, t) => s + t.weight, 0);
  // Shares rounded down, the remainder to the largest fractions: the plan adds up to N (more only by floors).
  const exact = chosen.map((t) => (inputs * t.weight) / totalWeight);
  const counts = exact.map(Math.floor);
  const byFraction = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (let k = 0; k < inputs - counts.reduce((a, b) => a + b, 0); k++) counts[byFraction[k % byFraction.length][1]]++;
  const plan = chosen.map((t, i) => ({ name: t.name, inputs: Math.max(t.minInputs ?? 1, counts[i]) }));
  console.log(`fuzz: ${plan.reduce((s, p) => s + p.inputs, 0)} inputs over ${plan.length} targets, seed ${seed}`);
  const results: TargetResult[] = [];
  const t0 = Date.now();
  for (const p of plan) {
    const r = await runTarget(p.name, p.inputs, seed);
    results.push(r);
    const rate = r.ms > 0 ? Math.round((r.inputs / r.ms) * 1000) : 0;
    console.log(`${r.failed ? 'FAIL' : 'ok  '} ${r.target.padEnd(24)} ${String(r.inputs).padStart(9)} inputs ${(r.ms / 1000).toFixed(1).padStart(7)} s ${String(rate).padStart(7)}/s  slowest ${r.slowestMs.toFixed(0)} ms`);
    if (r.report) console.log(r.report.split('\n').map((l) => `     ${l}`).join('\n'));
  }
  const total = results.reduce((s, r) => s + r.inputs, 0);
  const failed = results.filter((r) => r.failed).length;
  console.log(`fuzz: ${total} inputs in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${failed} failing targets`);
  const json = arg('json');
  if (json) writeFileSync(json, JSON.stringify({ seed, requested: inputs, total, wallMs: Date.now() - t0, results }, null, 2));
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

void main();
