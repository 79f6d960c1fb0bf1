/**
 * `npm run bench:peers`: this engine beside real client-go v0.36, @kubernetes/client-node and the
 * Node floor, on the same bytes from one fake apiserver (bench/peers/fakeApiserver.ts), each
 * client in its own process, rounds interleaved. Prints the markdown table of docs/BENCHMARKS.md.
 *
 *   npm run bench:peers                                  N = 10 000, 50 000 events, 5 rounds
 *   npm run bench:peers -- --objects 50000 --rounds 3 --events 20000 --only engine-recorder,typed-proto
 *   npm run bench:peers -- --rounds 1 --only engine-recorder --cpu-prof /tmp/prof   a V8 CPU profile per Node client
 *   PEERS_ALLOCPROF=/tmp/alloc npm run bench:peers -- --rounds 1 --only engine-recorder   (diagnostic) the engine worker's allocations in the watch phase
 *   PEERS_GCSTATS=/tmp/gc npm run bench:peers -- --rounds 2 --only engine-recorder,engine-null   (diagnostic) its GCs by kind, count and pause
 *   npm run bench:peers -- --rounds 5 --only engine-recorder,engine-session,typed-proto   a live session's cost beside the recorder's (client.ts)
 *   npm run bench:peers -- --rounds 3 --only engine-recorder,engine-recorder-baseline --baseline 758f211
 *                                                        the engine of a git revision beside the working tree's
 *
 * Builds bench/clientgo (Go modules, k8s.io/client-go v0.36.6) when its binary is older than its
 * sources, generates the workload once per (objects, events) under the OS temp directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { FakeApiserver, loadWorkload } from './fakeApiserver';
import { summarize, table, thousands, type Summary } from '../stats';
import { unpackRevision } from '../baseline';
import type { Result } from './clientCommon';

const VARIANTS = [
  'engine-null',
  'engine-recorder',
  'engine-session',
  'typed-proto',
  'typed-json',
  'dynamic',
  'client-node',
  'floor',
  'engine-null-baseline',
  'engine-recorder-baseline',
  'engine-session-baseline',
] as const;
type Variant = (typeof VARIANTS)[number];
/** The variants that run the engine of --baseline's revision, and the client mode each runs. */
const BASELINE_MODE: Partial<Record<Variant, Variant>> = { 'engine-null-baseline': 'engine-null', 'engine-recorder-baseline': 'engine-recorder', 'engine-session-baseline': 'engine-session' };
const LABEL: Record<Variant, string> = {
  'engine-null': 'this engine, v1.36, null sink',
  'engine-recorder': 'this engine, v1.36, TraceRecorder',
  'engine-session': "this engine, v1.36, TraceRecorder and a live session's batches to the host",
  'engine-null-baseline': 'the baseline engine, v1.36, null sink',
  'engine-recorder-baseline': 'the baseline engine, v1.36, TraceRecorder',
  'engine-session-baseline': "the baseline engine, v1.36, TraceRecorder and a live session's batches",
  'typed-proto': 'client-go v0.36 typed, protobuf',
  'typed-json': 'client-go v0.36 typed, JSON',
  dynamic: 'client-go v0.36 dynamic (JSON)',
  'client-node': '@kubernetes/client-node informer',
  floor: 'Node floor: socket, split lines, JSON.parse',
};
const GO_VARIANTS = new Set<Variant>(['typed-proto', 'typed-json', 'dynamic']);
const ROOT = path.resolve(__dirname, '..', '..');
const GO_DIR = path.join(ROOT, 'bench', 'clientgo');
const GO_BIN = path.join(GO_DIR, 'bin', 'peers');
const RUN_LIMIT_MS = 330_000;

interface Args {
  objects: number;
  events: number;
  rounds: number;
  only: Variant[];
  /** Write a V8 CPU profile of every Node client into this directory (node --cpu-prof). */
  cpuProf?: string;
  /** The git revision whose src/ the *-baseline variants run. */
  baseline?: string;
}

function parseArgs(argv: readonly string[]): Args {
  const o: Args = { objects: 10_000, events: 50_000, rounds: 5, only: [...VARIANTS] };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[++i] ?? '';
    if (argv[i - 1] === '--objects') o.objects = Number(v);
    else if (argv[i - 1] === '--events') o.events = Number(v);
    else if (argv[i - 1] === '--rounds') o.rounds = Number(v);
    else if (argv[i - 1] === '--only') {
      o.only = v.split(',').map((s) => s.trim()) as Variant[];
      const bad = o.only.filter((s) => !VARIANTS.includes(s));
      if (bad.length > 0) throw new Error(`--only takes a comma list of ${VARIANTS.join(', ')}; got ${bad.join(',')}`);
    } else if (argv[i - 1] === '--cpu-prof') {
      if (v === '') throw new Error('--cpu-prof takes a directory');
      o.cpuProf = path.resolve(v);
    } else if (argv[i - 1] === '--baseline') {
      if (!/^[\w./-]+$/.test(v)) throw new Error('--baseline takes a git revision');
      o.baseline = v;
    } else throw new Error(`unknown argument ${argv[i - 1]} (use --objects N, --events N, --rounds N, --only a,b, --cpu-prof DIR, --baseline REV)`);
  }
  if (!argv.includes('--only')) o.only = o.only.filter((v) => BASELINE_MODE[v] === undefined || o.baseline !== undefined);
  if (o.baseline === undefined && o.only.some((v) => BASELINE_MODE[v] !== undefined)) throw new Error('the *-baseline variants need --baseline REV');
  for (const [k, n] of [['objects', o.objects], ['events', o.events], ['rounds', o.rounds]] as const) {
    if (!Number.isInteger(n) || n <= 0 || n > 1_000_000) throw new Error(`--${k} must be a whole number from 1 to 1000000`);
  }
  return o;
}

function newestMtime(dir: string, names: readonly string[]): number {
  return Math.max(...names.map((n) => fs.statSync(path.join(dir, n)).mtimeMs));
}

/** Builds the Go client unless its binary is newer than main.go, go.mod and go.sum. */
function buildGo(): void {
  const src = newestMtime(GO_DIR, ['main.go', 'go.mod', 'go.sum']);
  if (fs.existsSync(GO_BIN) && fs.statSync(GO_BIN).mtimeMs > src) return;
  console.error('building bench/clientgo …');
  const r = spawnSync('go', ['build', '-o', GO_BIN, '.'], { cwd: GO_DIR, stdio: 'inherit', timeout: 900_000 });
  if (r.status !== 0) throw new Error('go build of bench/clientgo failed');
}

function generate(objects: number, events: number): { dir: string; sizes: Record<string, number> } {
  const dir = path.join(os.tmpdir(), `informer-inspector-peers-${objects}-${events}`);
  const sizesFile = path.join(dir, 'sizes.json');
  const fresh = fs.existsSync(sizesFile) && fs.statSync(sizesFile).mtimeMs > fs.statSync(GO_BIN).mtimeMs;
  if (!fresh) {
    const r = spawnSync(GO_BIN, ['gen', dir, String(objects), String(events)], { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`peers gen failed: ${r.stderr}`);
    fs.writeFileSync(sizesFile, r.stdout.trim());
  }
  return { dir, sizes: JSON.parse(fs.readFileSync(sizesFile, 'utf8')) as Record<string, number> };
}

/**
 * Bundles client.ts, the engine worker's engineClient.ts and clientNode.ts into a temporary
 * directory; returns client.js's path. With `src`, their imports of the repository's src/ are taken
 * from that directory instead (a baseline's), where it has the file (the harness's own helpers
 * that a baseline predates, such as app/workerLimits.ts, stay the working tree's).
 */
async function bundleNodeClient(src?: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'informer-inspector-peers-client-'));
  const entryPoints = ['client.ts', 'engineClient.ts', 'clientNode.ts'].map((f) => path.join(__dirname, f));
  const own = path.join(ROOT, 'src') + path.sep;
  const plugins = src
    ? [
        {
          name: 'baseline-src',
          setup(b: import('esbuild').PluginBuild) {
            const unpacked = path.dirname(src) + path.sep;
            b.onResolve({ filter: /^\./ }, (args) => {
              const target = path.resolve(args.resolveDir, args.path);
              // The working tree's src/ → the baseline's; what the baseline's src/ reaches outside it (package.json) → the working tree's.
              if (target.startsWith(own) && !args.resolveDir.startsWith(unpacked)) {
                const there = path.join(src, path.relative(own, target));
                if (!fs.existsSync(`${there}.ts`) && !fs.existsSync(there)) return undefined;
                return b.resolve(`./${path.relative(own, target)}`, { kind: args.kind, resolveDir: src });
              }
              if (target.startsWith(unpacked) && !target.startsWith(src + path.sep)) return { path: path.join(ROOT, path.relative(unpacked, target)) };
              return undefined;
            });
          },
        },
      ]
    : [];
  await build({ entryPoints, bundle: true, platform: 'node', target: 'node20', outdir: dir, logLevel: 'error', plugins, nodePaths: [path.join(ROOT, 'node_modules')] });
  return path.join(dir, 'client.js');
}

function runOne(variant: Variant, url: string, events: number, nodeClients: { own: string; baseline?: string }, cpuProf: string | undefined): Promise<Result> {
  const prof = cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf, '--cpu-prof-name', `${variant}-${Date.now()}.cpuprofile`] : [];
  const mode = BASELINE_MODE[variant];
  const client = mode ? (nodeClients.baseline as string) : nodeClients.own;
  // Diagnostics only (e.g. PEERS_NODE_ARGS=--trace-gc with PEERS_MEM): never set for a measured run.
  if (process.env.PEERS_NODE_ARGS) prof.push(...process.env.PEERS_NODE_ARGS.split(' ').filter((a) => a !== ''));
  const [cmd, args, env] = GO_VARIANTS.has(variant)
    ? [GO_BIN, ['client', variant, url, String(events)], { ...process.env, KUBE_FEATURE_WatchListClient: 'false' }]
    : [process.execPath, [...prof, client, mode ?? variant, url, String(events)], process.env];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (process.env.PEERS_NODE_ARGS) process.stderr.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
      // With PEERS_MEM set, a Node client reports where its memory went (memSampler.ts).
      if (process.env.PEERS_MEM) process.stderr.write(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      // The last JSON line: with PEERS_NODE_ARGS=--trace-gc…, V8's lines of a later GC may follow it.
      const last = out.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) return reject(new Error(`${variant} exited ${code}: ${err.trim().split('\n').slice(-5).join(' / ')}`));
      resolve(JSON.parse(last) as Result);
    });
  });
}

const f1 = (x: number) => x.toFixed(2);
const range = (s: Summary, f: (x: number) => string) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  buildGo();
  const { dir, sizes } = generate(o.objects, o.events);
  const unpacked = o.baseline ? unpackRevision(o.baseline) : undefined;
  let nodeClients: { own: string; baseline?: string };
  try {
    nodeClients = { own: await bundleNodeClient(), baseline: unpacked ? await bundleNodeClient(path.join(unpacked.root, 'src')) : undefined };
  } finally {
    unpacked?.remove();
  }
  const server = new FakeApiserver(loadWorkload(dir));
  const url = await server.start();
  const results = new Map<Variant, Result[]>(o.only.map((v) => [v, []]));
  const log: string[] = [];
  try {
    for (let r = 0; r < o.rounds; r++) {
      for (const v of o.only) {
        server.reset();
        const res = await runOne(v, url, o.events, nodeClients, o.cpuProf);
        if (res.objects !== o.objects) throw new Error(`${v} cached ${res.objects} objects, not ${o.objects}`);
        log.push(`round ${r + 1} ${v}: ${server.requests.join(', ')}`);
        results.get(v)?.push(res);
        console.error(`round ${r + 1}/${o.rounds} ${v}: ${thousands(o.events / res.watchCpuS)} events/CPU-s, sync ${res.syncMs.toFixed(0)} ms, peak RSS ${(res.peakRssKiB / 1024).toFixed(0)} MiB`);
      }
    }
  } finally {
    await server.stop();
    for (const f of [nodeClients.own, nodeClients.baseline]) if (f) fs.rmSync(path.dirname(f), { recursive: true, force: true });
  }
  const rate = (v: Variant) => (results.get(v) ?? []).map((x) => o.events / x.watchCpuS);
  const rows = o.only.map((v) => {
    const rs = results.get(v) ?? [];
    return [
      LABEL[v],
      (() => {
        const s = summarize(rate(v));
        return `${thousands(s.median)} (${thousands(s.min)}–${thousands(s.max)})`;
      })(),
      range(summarize(rs.map((x) => o.events / x.watchWallS)), (x) => thousands(x)),
      range(summarize(rs.map((x) => x.syncMs / 1000)), f1),
      range(summarize(rs.map((x) => x.peakRssKiB / 1024)), (x) => x.toFixed(0)),
    ];
  });
  const lines: string[] = [];
  lines.push(
    `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}; ` +
      `N = ${thousands(o.objects)} Pods of ${sizes.podJsonBytes} bytes JSON (LIST ${(sizes.listJsonBytes / 1048576).toFixed(1)} MiB JSON, ${(sizes.listPbBytes / 1048576).toFixed(1)} MiB protobuf), ` +
      `${thousands(o.events)} MODIFIED events (${(sizes.watchJsonBytes / 1048576).toFixed(1)} MiB JSON, ${(sizes.watchPbBytes / 1048576).toFixed(1)} MiB protobuf); ${o.rounds} interleaved rounds, median (min–max).`,
  );
  lines.push(table([`client (N = ${thousands(o.objects)})`, 'watch events per CPU-second', 'watch events per wall-second', 'sync, wall s', 'peak RSS, MiB'], rows));
  const ratioRows: string[][] = [];
  const pairs: [Variant, Variant][] = [];
  for (const eng of ['engine-session', 'engine-recorder', 'engine-null', 'engine-session-baseline', 'engine-recorder-baseline', 'engine-null-baseline'] as const) {
    for (const peer of ['typed-proto', 'floor', 'client-node'] as const) pairs.push([eng, peer]);
  }
  pairs.push(['engine-session', 'engine-session-baseline'], ['engine-recorder', 'engine-recorder-baseline'], ['engine-null', 'engine-null-baseline'], ['engine-session', 'engine-recorder'], ['engine-recorder', 'engine-null']);
  {
    for (const [eng, peer] of pairs) {
      const a = results.get(eng);
      const b = results.get(peer);
      if (!a || !b) continue;
      const per = a.map((x, i) => (o.events / x.watchCpuS) / (o.events / b[i].watchCpuS));
      const rss = a.map((x, i) => x.peakRssKiB / b[i].peakRssKiB);
      const sync = a.map((x, i) => x.syncMs / b[i].syncMs);
      const s = summarize(per);
      ratioRows.push([`${eng} / ${peer}`, `${f1(s.median)}× (${per.map(f1).join(', ')})`, `${f1(summarize(sync).median)}× (${sync.map(f1).join(', ')})`, `${f1(summarize(rss).median)}× (${rss.map(f1).join(', ')})`]);
    }
  }
  if (ratioRows.length > 0) lines.push(table(['ratio, per round', 'events per CPU-second', 'sync wall time', 'peak RSS'], ratioRows));
  lines.push(`Requests answered (first round): ${log.slice(0, o.only.length).join('; ')}.`);
  console.log(lines.join('\n\n'));
}

main().catch((e: unknown) => {
  console.error(`bench:peers: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
