/**
 * What moving bytes from the extension host to a webview costs in code-server, and where: a
 * controlled experiment behind the 1,000,000-event trace open (docs/BENCHMARKS.md, "Drawing a
 * large trace from its companion"). A probe extension (bench/transit, a fixture) opens one
 * webview and per case either posts a message carrying ArrayBuffers (zeros, random bytes or the
 * first bytes of the 1M trace's binary companion; total size and number of buffers varied) or
 * asks the webview to fetch a file as a webview resource. The webview answers when it holds the
 * bytes. Per case: wall time host post → webview has the bytes, and the CPU time meanwhile of
 * the extension host, the code-server server, the browser's renderers and its other processes
 * (/proc, all threads).
 *
 * Run: npx tsx bench/webviewTransit.ts [--rounds R] [--only zeros,random,companion,fetch]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, ensureCodeServer, startCodeServer } from '../test/e2e/vscode/codeServer';
import { openWorkbench, runCommand } from '../test/e2e/vscode/workbench';
import { fmt, summarize } from './stats';

interface Case {
  kind: 'zeros' | 'random' | 'companion' | 'fetch';
  mb: number;
  buffers: number;
  file?: string;
}

const CASES: Case[] = [
  { kind: 'zeros', mb: 16, buffers: 1 },
  { kind: 'zeros', mb: 64, buffers: 1 },
  { kind: 'random', mb: 16, buffers: 1 },
  { kind: 'random', mb: 64, buffers: 1 },
  { kind: 'random', mb: 64, buffers: 64 },
  { kind: 'companion', mb: 16, buffers: 1 },
  { kind: 'companion', mb: 61, buffers: 1 },
  { kind: 'companion', mb: 61, buffers: 11 },
  { kind: 'fetch', mb: 61, buffers: 1, file: 'data.bin' },
  { kind: 'fetch', mb: 64, buffers: 1, file: 'random.bin' },
];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Group = 'extension host' | 'server' | 'renderers' | 'browser, other';

/** CPU ms so far per group of the code-server tree (found by its user-data dir) and the browser's tree. */
function cpuByGroup(userDir: string): Record<Group, number> {
  const table = new Map<number, { ppid: number; cpuMs: number; cmd: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(f[1]), cpuMs: (Number(f[11]) + Number(f[12])) * 10, cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8') });
    } catch {
      // ended meanwhile
    }
  }
  const tree = (roots: number[]) => {
    const s = new Set(roots);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of table) if (!s.has(pid) && s.has(p.ppid)) grew = s.add(pid) !== undefined;
    }
    return s;
  };
  const out: Record<Group, number> = { 'extension host': 0, server: 0, renderers: 0, 'browser, other': 0 };
  for (const pid of tree([...table].filter(([, p]) => p.cmd.includes(userDir)).map(([pid]) => pid))) {
    const p = table.get(pid)!;
    out[p.cmd.includes('extensionHost') ? 'extension host' : 'server'] += p.cpuMs;
  }
  // The browser is a child of this process (playwright launched it); code-server is not.
  const browserRoots = [...table].filter(([pid, p]) => p.ppid === process.pid && p.cmd.includes('chrom')).map(([pid]) => pid);
  for (const pid of tree(browserRoots)) {
    const p = table.get(pid)!;
    out[p.cmd.includes('--type=renderer') ? 'renderers' : 'browser, other'] += p.cpuMs;
  }
  return out;
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '2'));
  const dir = mkdtempSync(join(tmpdir(), 'transit-'));
  const companion = join(REPO, '.cache', 'bench', 'trace-1000000-companion.informer-trace.bin');
  if (!existsSync(companion)) throw new Error(`run bench/traceOpen.ts once first: ${companion} is missing`);
  linkSync(companion, join(dir, 'data.bin'));
  writeFileSync(join(dir, 'random.bin'), Buffer.from(new Uint8Array(64e6).map(() => (Math.random() * 256) | 0)));
  const only = arg('only', '');
  const chosen = only ? CASES.filter((c) => only.split(',').includes(c.kind)) : CASES;
  const cases = Array.from({ length: rounds }, () => chosen).flat();
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  const vsix = join(REPO, '.cache', 'transit-probe.vsix');
  execFileSync(join(REPO, 'node_modules', '.bin', 'vsce'), ['package', '--allow-missing-repository', '--skip-license', '-o', vsix], { cwd: join(REPO, 'bench', 'transit'), stdio: ['ignore', 'ignore', 'inherit'] });
  const cs = await startCodeServer(ensureCodeServer(), vsix, 'Default Dark Modern', undefined, undefined, { env: { TRANSIT_DIR: dir } });
  const { browser, page } = await openWorkbench(cs.url, { width: 1200, height: 800 });
  const rows: { c: Case; wallMs: number; inTransitMs: number; resolvedMs?: number; cpu: Record<Group, number>; hostCpuMs: number; bytes: number }[] = [];
  try {
    await runCommand(page, 'Transit probe: run');
    await sleep(3000);
    for (let i = 0; i < cases.length; i++) {
      const c0 = cpuByGroup(cs.userDir);
      writeFileSync(join(dir, `go-${i}`), '');
      const done = join(dir, `done-${i}`);
      const deadline = Date.now() + 300_000;
      while (!existsSync(done)) {
        if (Date.now() > deadline) throw new Error(`case ${i} did not finish in 300 s`);
        await sleep(20);
      }
      const c1 = cpuByGroup(cs.userDir);
      const r = JSON.parse(readFileSync(done, 'utf8')) as { t0: number; t1: number; received: number; resolvedAt?: number; hostCpuMs: number; bytes: number; buildMs?: number };
      const cpu = Object.fromEntries(Object.keys(c0).map((k) => [k, c1[k as Group] - c0[k as Group]])) as Record<Group, number>;
      const c = cases[i];
      rows.push({ c, wallMs: r.received - r.t0, inTransitMs: r.received - r.t0 - (r.buildMs ?? 0), ...(r.resolvedAt ? { resolvedMs: r.resolvedAt - r.t0 } : {}), cpu, hostCpuMs: r.hostCpuMs, bytes: r.bytes });
      console.log(`${c.kind} ${c.mb} MB in ${c.buffers}: ${r.received - r.t0} ms to the webview (payload built in ${r.buildMs ?? 0} ms; postMessage resolved after ${r.resolvedAt ? r.resolvedAt - r.t0 : '?'} ms), ${r.bytes} bytes; CPU ${JSON.stringify(cpu)}`);
      await sleep(1500);
    }
  } finally {
    await browser.close();
    cs.stop();
  }
  console.log('\n| payload | MB | buffers | host post → webview holds it, wall ms | CPU ms: extension host | server | renderers | browser, other |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const c of chosen) {
    const mine = rows.filter((r) => r.c.kind === c.kind && r.c.mb === c.mb && r.c.buffers === c.buffers);
    const col = (f: (r: (typeof rows)[number]) => number) => fmt(summarize(mine.map(f)), 0);
    const label = c.kind === 'fetch' ? `fetch(asWebviewUri) of ${c.file === 'data.bin' ? 'the companion' : 'random bytes'}` : c.kind;
    console.log(`| ${label} | ${(mine[0]?.bytes ?? 0) / 1e6} | ${c.buffers} | ${col((r) => r.inTransitMs)} | ${col((r) => r.cpu['extension host'])} | ${col((r) => r.cpu.server)} | ${col((r) => r.cpu.renderers)} | ${col((r) => r.cpu['browser, other'])} |`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
