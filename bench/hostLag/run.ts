/**
 * Extension-host event-loop delay while an informer handles N events/s, engine on the host
 * thread ("host", as before issue 12) and in a worker thread ("worker"), side by side in one run:
 * each round starts a fresh paced apiserver (pacedApiserver.ts, 127.0.0.1) in this process and
 * one client process per variant (client.ts), interleaved host, worker, host, worker, …
 *
 *   npm run bench:lag -- [--rate 10000] [--seconds 10] [--rounds 3] [--objects 1000]
 *
 * Prints a Markdown table (median and range of each variant's p99 over the rounds, and every
 * round's numbers); docs/BENCHMARKS.md quotes it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { summarize } from '../stats';
import type { ClientResult } from './client';
import { PacedApiserver } from './pacedApiserver';

const ENGINES = ['host', 'worker'] as const;

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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rate: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' }, objects: { type: 'string' } } });
  const rate = Number(values.rate ?? 10_000);
  const seconds = Number(values.seconds ?? 10);
  const rounds = Number(values.rounds ?? 3);
  const objects = Number(values.objects ?? 1000);
  const results = new Map<string, ClientResult[]>(ENGINES.map((e) => [e, []]));
  const sent: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const engine of ENGINES) {
      // The stream lasts longer than the window: the client needs a moment to list and open its watch.
      const server = new PacedApiserver({ objects, rate, seconds: seconds + 15 });
      const url = await server.start();
      try {
        const res = await runClient(url, engine, seconds);
        results.get(engine)!.push(res);
        sent.push(server.stats.sent);
        process.stderr.write(`round ${r + 1} ${engine}: ${JSON.stringify(res)}; apiserver sent ${server.stats.sent} events so far\n`);
      } finally {
        await server.stop();
      }
    }
  }
  const lines = [
    `Host-lag benchmark: ${rate} events/s offered for ${seconds} s windows, ${objects} Pods, ${rounds} rounds (node ${process.version}, ${new Date().toISOString()})`,
    '',
    '| engine | event-loop delay p99 (median, range) | p50 | max | watch events/s handled | host CPU ms per s |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const engine of ENGINES) {
    const rs = results.get(engine)!;
    const p99 = summarize(rs.map((x) => x.p99Ms));
    p99.median = round(p99.median);
    const med = (f: (x: ClientResult) => number) => round(summarize(rs.map(f)).median);
    lines.push(
      `| ${engine} | ${p99.median} ms (${p99.min}–${p99.max}) | ${med((x) => x.p50Ms)} ms | ${med((x) => x.maxMs)} ms | ${med((x) => x.eventsPerSecond)} | ${med((x) => x.cpuPerSecondMs)} |`,
    );
  }
  lines.push('', 'Per round (p99 ms, events/s): ' + [...Array(rounds).keys()].map((r) => `round ${r + 1}: ` + ENGINES.map((e) => `${e} ${results.get(e)![r].p99Ms} ms / ${results.get(e)![r].eventsPerSecond}`).join(', ')).join('; '));
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:lag: ${(e as Error).message}\n`);
  process.exit(1);
});
