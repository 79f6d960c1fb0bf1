/**
 * Extension-host event-loop delay while an informer handles N events/s, engine on the host
 * thread ("host", as before issue 12) and in a worker thread ("worker"), side by side in one run:
 * each round starts, per variant, a fresh paced apiserver in a process of its own
 * (apiserverMain.ts, 127.0.0.1) and one client process (client.ts), interleaved host, worker,
 * host, worker, … plus an `idle` client that opens nothing (the machine's own delay).
 *
 *   npm run bench:lag -- [--rate 10000] [--seconds 10] [--rounds 3] [--objects 1000]
 *
 * Prints a Markdown table (median and range of each variant's p99 over the rounds, offered and
 * handled rates, and every round's numbers); docs/BENCHMARKS.md quotes it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { summarize } from '../stats';
import type { ClientResult } from './client';
import type { PacedStats } from './pacedApiserver';

/** `idle` opens no session: the machine's own scheduling delay, measured between the two. */
const ENGINES = ['host', 'worker', 'idle'] as const;

const round = (x: number): number => Math.round(x * 10) / 10;

function runClient(url: string, engine: string, seconds: number): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'client.ts'), url, engine, String(seconds)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 120) * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`client ${engine} exited ${code}: ${err.trim().split('\n').pop()}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as ClientResult);
    });
  });
}

/** A paced apiserver process: its URL once it listens, and its stats when it is told to stop. */
async function startApiserver(objects: number, rate: number, seconds: number): Promise<{ url: string; stop(): Promise<PacedStats> }> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'apiserverMain.ts'), String(objects), String(rate), String(seconds)]);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const first = await lines.next();
  if (first.done) throw new Error(`the paced apiserver did not start: ${err.trim().split('\n').pop()}`);
  const { url } = JSON.parse(first.value) as { url: string };
  return {
    url,
    stop: async () => {
      child.stdin.end('stop\n');
      const last = await lines.next();
      if (last.done) throw new Error(`the paced apiserver ended without its stats: ${err.trim().split('\n').pop()}`);
      return JSON.parse(last.value) as PacedStats;
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rate: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' }, objects: { type: 'string' } } });
  const rate = Number(values.rate ?? 10_000);
  const seconds = Number(values.seconds ?? 10);
  const rounds = Number(values.rounds ?? 3);
  const objects = Number(values.objects ?? 1000);
  const results = new Map<string, ClientResult[]>(ENGINES.map((e) => [e, []]));
  const offered = new Map<string, number[]>(ENGINES.map((e) => [e, []]));
  for (let r = 0; r < rounds; r++) {
    for (const engine of ENGINES) {
      // The stream lasts longer than the window: the client needs a moment to list and open its watch.
      const server = await startApiserver(objects, rate, seconds + 15);
      let res: ClientResult | undefined;
      try {
        res = await runClient(server.url, engine, seconds);
        results.get(engine)!.push(res);
      } finally {
        const stats = await server.stop();
        const perSecond = stats.durationMs > 0 ? Math.round(stats.sent / (stats.durationMs / 1000)) : 0;
        offered.get(engine)!.push(perSecond);
        process.stderr.write(`round ${r + 1} ${engine}: ${JSON.stringify(res)}; apiserver sent ${stats.sent} events at ${perSecond}/s\n`);
      }
    }
  }
  const lines = [
    `Host-lag benchmark: ${rate} events/s offered for ${seconds} s windows, ${objects} Pods, ${rounds} rounds (node ${process.version}, ${new Date().toISOString()})`,
    '',
    '| engine | event-loop delay p99 (median, range) | p50 | max | apiserver sent/s | watch events/s handled | host CPU ms per s | host heap MB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const engine of ENGINES) {
    const rs = results.get(engine)!;
    const p99 = summarize(rs.map((x) => x.p99Ms));
    p99.median = round(p99.median);
    const med = (f: (x: ClientResult) => number) => round(summarize(rs.map(f)).median);
    lines.push(
      `| ${engine} | ${p99.median} ms (${p99.min}–${p99.max}) | ${med((x) => x.p50Ms)} ms | ${med((x) => x.maxMs)} ms | ${round(summarize(offered.get(engine)!).median)} | ${med((x) => x.eventsPerSecond)} | ${med((x) => x.cpuPerSecondMs)} | ${med((x) => x.heapMB)} |`,
    );
  }
  const perRound = (r: number) => ENGINES.map((e) => `${e} ${results.get(e)![r].p99Ms} ms / ${offered.get(e)![r]} sent / ${results.get(e)![r].eventsPerSecond} handled`).join(', ');
  lines.push('', 'Per round (p99 ms / apiserver events/s / handled events/s): ' + [...Array(rounds).keys()].map((r) => `round ${r + 1}: ${perRound(r)}`).join('; '));
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:lag: ${(e as Error).message}\n`);
  process.exit(1);
});
