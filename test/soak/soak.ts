/**
 * `npm run soak -- [--restarts 100] [--compactions 20] [--resets 1000] [--resets-per-group 10]
 *                  [--bursts 20] [--objects 300] [--seed S] [--out DIR] [--max-growth 0.10] [--deadline-min M]`
 *
 * Informers under the v1.15, v1.32 and v1.36 profiles, side by side, each assembled as the CLI and
 * the extension assemble them (openLive: HTTP ListerWatcher → engine → TraceRecorder),
 * against a real kube-apiserver + etcd through the TCP fault proxy, while a writer creates,
 * updates and deletes ConfigMaps. Faults, in a seeded random order:
 *  - apiserver restarts, alternately a crash (SIGKILL) and a graceful shutdown (SIGTERM with
 *    GRACEFUL_SHUTDOWN_FLAGS: open watches are closed, requests while draining get 429);
 *  - etcd compactions that make watches expire: the engine's connections stall, objects change,
 *    etcd is compacted to its current revision, the stalled connections are reset and the engine
 *    re-watches at a compacted RV (the ConfigMap watch cache is off, so watches go to etcd and
 *    get its 410);
 *  - connection resets (RST on every live connection), ten at a time (--resets-per-group),
 *    50–300 ms apart;
 *  - 429 bursts: for 2–4 s every new connection reaches a server answering 429 + Retry-After.
 * After every fault the writer pauses and each store must come to equal a fresh consistent LIST
 * (key → resourceVersion and content); the time that takes is the convergence time.
 * RSS and heap are sampled every 2 s (after a GC). At the end everything is stopped and no timer
 * or socket may be left (process.getActiveResourcesInfo()).
 *
 * Writes DIR/soak.json (every figure) and DIR/soak-memory.svg; prints a summary; exits 1 when a
 * store did not converge, something was lost, an unhandled rejection or uncaught exception
 * happened, a recorder went over its cap, a handle was left, or memory grew more than
 * --max-growth after warm-up (checked on runs of 20 minutes or more: the short soak, ~13 minutes
 * here, is mostly warm-up). With --deadline-min, no new
 * fault starts after M minutes: the run ends with the faults done so far (soak.json says how many
 * of the planned ones). soak.json is rewritten every 10 faults; SIGINT/SIGTERM end the run the
 * same way (the cluster is stopped).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { findProfile } from '../../src/engine/profiles';
import type { ApiResource } from '../../src/kube/discovery';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { openLive, type LiveInformer } from '../../src/app/liveInformer';
import { E2ECluster, GRACEFUL_SHUTDOWN_FLAGS } from '../e2e/cluster';
import { FaultProxy } from '../e2e/faultProxy';
import { sleep } from '../e2e/helpers';
import { ThrottleServer } from './throttleServer';

// ---- arguments

function num(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) {
    console.error(`soak: --${name} needs a number, got ${process.argv[i + 1]}`);
    process.exit(2);
  }
  return v;
}
function str(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
}

const OPTS = {
  restarts: num('restarts', 100),
  compactions: num('compactions', 20),
  resets: num('resets', 1000),
  /** Connection resets per fault: 1,000 resets are 100 faults. */
  resetsPerGroup: Math.max(1, Math.floor(num('resets-per-group', 10))),
  bursts: num('bursts', 20),
  objects: num('objects', 300),
  seed: num('seed', 1),
  out: str('out', path.resolve(__dirname, '../../docs/soak')),
  maxGrowth: num('max-growth', 0.1),
  settleTimeoutMs: num('settle-timeout-s', 180) * 1000,
  cap: num('cap', 20_000),
  /** Stop injecting faults after this many minutes (0 = none) and finish with what was done. */
  deadlineMin: num('deadline-min', 0),
};
const PROFILES = ['v1.15', 'v1.32', 'v1.36'];
const NS = 'soak';
const RESETS_PER_GROUP = OPTS.resetsPerGroup;

// ---- bookkeeping

const problems: string[] = [];
process.on('unhandledRejection', (r) => problems.push(`unhandled rejection: ${(r as Error)?.stack ?? String(r)}`));
process.on('uncaughtException', (e) => problems.push(`uncaught exception: ${e.stack ?? e.message}`));

let seed = OPTS.seed >>> 0 || 1;
function rand(): number {
  // xorshift32: the fault order and the writer's choices repeat for one seed.
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 2 ** 32;
}

type FaultKind = 'restart-kill' | 'restart-graceful' | 'compaction' | 'resets' | 'burst-429';
interface FaultRecord {
  kind: FaultKind;
  at: number;
  faultMs: number;
  convergedMs: Record<string, number | null>;
  /** Backoff sleeps (ms) the reflector chose from the start of the fault until it settled. */
  backoffMs: Record<string, number>;
  lost?: string;
  note?: string;
}

const t0 = Date.now();
const elapsed = () => (Date.now() - t0) / 1000;
let interrupted = '';
process.on('SIGINT', () => (interrupted = 'SIGINT'));
process.on('SIGTERM', () => (interrupted = 'SIGTERM'));

// ---- the writer

class Writer {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly present = new Set<number>();
  ops = { create: 0, update: 0, delete: 0, failed: 0 };
  private counter = 0;

  constructor(private readonly c: E2ECluster, private readonly n: number) {}

  async seed(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await this.create(i);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = Promise.all([this.work(), this.work()]).then(() => undefined);
  }

  async pause(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async work(): Promise<void> {
    while (this.running) {
      const i = Math.floor(rand() * this.n);
      try {
        if (!this.present.has(i)) await this.create(i);
        else if (rand() < 0.75) await this.update(i);
        else await this.remove(i);
      } catch {
        this.ops.failed++;
        await sleep(100);
      }
      await sleep(20);
    }
  }

  private body(i: number) {
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: NS, name: `cm-${i}`, labels: { soak: 'yes' } }, data: { v: String(++this.counter), pad: 'x'.repeat(64 + (i % 7) * 100) } };
  }

  private async create(i: number): Promise<void> {
    const r = await this.c.admin('POST', `/api/v1/namespaces/${NS}/configmaps`, this.body(i), 10_000);
    if (r.status === 201 || r.status === 409) this.present.add(i);
    if (r.status === 201) this.ops.create++;
    else if (r.status !== 409) this.ops.failed++;
  }

  private async update(i: number): Promise<void> {
    const r = await this.c.admin('PUT', `/api/v1/namespaces/${NS}/configmaps/cm-${i}`, this.body(i), 10_000);
    if (r.status === 200) this.ops.update++;
    else {
      if (r.status === 404) this.present.delete(i);
      this.ops.failed++;
    }
  }

  private async remove(i: number): Promise<void> {
    const r = await this.c.admin('DELETE', `/api/v1/namespaces/${NS}/configmaps/cm-${i}`, undefined, 10_000);
    if (r.status === 200 || r.status === 404) this.present.delete(i);
    if (r.status === 200) this.ops.delete++;
    else if (r.status !== 404) this.ops.failed++;
  }
}

// ---- consistency

type Obj = { apiVersion?: string; kind?: string; metadata?: { namespace?: string; name?: string; resourceVersion?: string } };
const keyOf = (o: Obj) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** How a store differs from a fresh LIST in keys, resourceVersions and content; "" when equal. */
function difference(store: Obj[], fresh: Obj[]): string {
  const want = new Map(fresh.map((o) => [keyOf(o), { apiVersion: 'v1', kind: 'ConfigMap', ...o }]));
  const have = new Map(store.map((o) => [keyOf(o), o]));
  const missing = [...want.keys()].filter((k) => !have.has(k));
  const extra = [...have.keys()].filter((k) => !want.has(k));
  const stale = [...want.keys()].filter((k) => have.has(k) && have.get(k)!.metadata?.resourceVersion !== want.get(k)!.metadata?.resourceVersion);
  const differs = [...want.keys()].filter((k) => have.has(k) && !stale.includes(k) && !isDeepStrictEqual(have.get(k), want.get(k)));
  if (!missing.length && !extra.length && !stale.length && !differs.length) return '';
  const some = (xs: string[]) => xs.slice(0, 3).join(', ');
  return `missing ${missing.length} (${some(missing)}), extra ${extra.length} (${some(extra)}), stale ${stale.length} (${some(stale)}), content differs ${differs.length} (${some(differs)})`;
}

// ---- etcd compaction (etcd's v3 JSON gateway on 127.0.0.1)

function etcdPost(port: number, p: string, body: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = http.request({ host: '127.0.0.1', port, path: p, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': data.length }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`etcd ${p}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`etcd ${p} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

async function compactEtcd(port: number): Promise<number> {
  const r = await etcdPost(port, '/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
  const rev = Number(r.header.revision);
  await etcdPost(port, '/v3/kv/compaction', { revision: String(rev), physical: true });
  return rev;
}

// ---- statistics

function quantile(xs: number[], q: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

interface Sample {
  t: number;
  rss: number;
  heap: number;
}

function memorySvg(samples: Sample[], warmupT: number): string {
  const W = 800;
  const H = 300;
  const pad = 40;
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const yMax = Math.max(1, ...samples.map((s) => s.rss)) * 1.1;
  const x = (t: number) => pad + ((W - 2 * pad) * t) / tMax;
  const y = (v: number) => H - pad - ((H - 2 * pad) * v) / yMax;
  const line = (f: (s: Sample) => number) => samples.map((s) => `${x(s.t).toFixed(1)},${y(f(s)).toFixed(1)}`).join(' ');
  const mb = (v: number) => `${(v / 2 ** 20).toFixed(0)} MiB`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="white"/>
<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#888"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" stroke="#888"/>
<line x1="${x(warmupT)}" y1="${pad}" x2="${x(warmupT)}" y2="${H - pad}" stroke="#bbb" stroke-dasharray="4"/><text x="${x(warmupT) + 3}" y="${pad + 10}" fill="#888">warm-up ends</text>
<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="${line((s) => s.rss)}"/>
<polyline fill="none" stroke="#d62728" stroke-width="1.5" points="${line((s) => s.heap)}"/>
<text x="${pad}" y="${pad - 8}">RSS (blue) and V8 heap used after GC (red) of the soak process; y max ${mb(yMax)}, x = ${tMax.toFixed(0)} s</text>
<text x="${pad - 4}" y="${H - pad + 14}">0</text><text x="${W - pad - 30}" y="${H - pad + 14}">${tMax.toFixed(0)} s</text>
<text x="2" y="${y(yMax / 1.1) + 4}">${mb(yMax / 1.1)}</text>
</svg>
`;
}

// ---- the run

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  console.log(`soak: ${JSON.stringify(OPTS)}`);
  const flags = ['--watch-cache-sizes=configmaps#0', '--etcd-compaction-interval=0', ...GRACEFUL_SHUTDOWN_FLAGS];
  const cluster = await E2ECluster.start({ apiserverFlags: flags });
  const vars = cluster.stateVars();
  const etcdPort = Number(vars.ETCD_CLIENT_PORT);
  const pki = path.join(cluster.dir, 'pki');
  const throttle = new ThrottleServer({ key: readFileSync(path.join(pki, 'apiserver.key')), cert: readFileSync(path.join(pki, 'apiserver.crt')) });
  const throttlePort = await throttle.listen();
  const proxy = new FaultProxy({ host: '127.0.0.1', port: cluster.port });
  await proxy.listen();
  const samples: Sample[] = [];
  const faults: FaultRecord[] = [];
  const relists: Record<string, Record<string, number>> = {};
  const drops: Record<string, { markers: number; events: number }> = {};
  const backoffTotal: Record<string, number> = {};
  let capExceeded = '';
  let informers: { profile: string; li: LiveInformer }[] = [];
  const sampler = setInterval(() => {
    gc?.();
    const m = process.memoryUsage();
    samples.push({ t: elapsed(), rss: m.rss, heap: m.heapUsed });
    for (const { profile, li } of informers) {
      const n = li.recorder.events().length;
      if (n > OPTS.cap && !capExceeded) capExceeded = `${profile}: ${n} events held, cap ${OPTS.cap}`;
    }
  }, 2000);
  try {
    await cluster.adminOk('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const writer = new Writer(cluster, OPTS.objects);
    await writer.seed(Math.floor(OPTS.objects * 0.6));
    const conn = KubeConnection.load({ kubeconfigYaml: cluster.kubeconfigYaml({ server: proxy.url }) });
    const resource: ApiResource = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], categories: [], verbs: ['list', 'watch'] };
    informers = PROFILES.map((profile) => {
      const li = openLive({ conn, resource, profile: findProfile(profile)!, namespace: NS }, { cap: OPTS.cap });
      relists[profile] = {};
      drops[profile] = { markers: 0, events: 0 };
      backoffTotal[profile] = 0;
      li.recorder.subscribe((batch) => {
        for (const e of batch) {
          if (e.type === 'relist') relists[profile][e.reason] = (relists[profile][e.reason] ?? 0) + 1;
          else if (e.type === 'backoff') backoffTotal[profile] += e.sleepMs;
          else if (e.type === 'trace.dropped') {
            drops[profile].markers++;
            drops[profile].events += e.count;
          }
        }
      });
      li.informer.addEventHandler('main', {});
      li.start();
      return { profile, li };
    });

    /** Waits until every store equals a fresh consistent LIST; the ms each took, or null (and what differs). */
    const settle = async (since: number): Promise<{ ms: Record<string, number | null>; lost?: string }> => {
      const ms: Record<string, number | null> = Object.fromEntries(PROFILES.map((p) => [p, null]));
      const last: Record<string, string> = {};
      for (;;) {
        let fresh: Obj[] | undefined;
        try {
          fresh = (await cluster.consistentList(`/api/v1/namespaces/${NS}/configmaps`)).items as Obj[];
        } catch {
          fresh = undefined; // the apiserver may still be starting its handlers
        }
        if (fresh) {
          for (const { profile, li } of informers) {
            if (ms[profile] !== null) continue;
            const d = li.informer.hasSynced() ? difference(li.informer.getIndexer().list() as Obj[], fresh) : 'not synced';
            last[profile] = d;
            if (d === '') ms[profile] = Date.now() - since;
          }
          // A store that matched once must still match (nothing is written while settling).
          if (PROFILES.every((p) => ms[p] !== null)) {
            const again = informers.map(({ profile, li }) => [profile, difference(li.informer.getIndexer().list() as Obj[], fresh!)] as const).filter(([, d]) => d !== '');
            if (again.length === 0) return { ms };
            for (const [p] of again) ms[p] = null;
          }
        }
        if (Date.now() - since > OPTS.settleTimeoutMs) {
          return { ms, lost: PROFILES.filter((p) => ms[p] === null).map((p) => `${p}: ${last[p]}`).join('; ') };
        }
        await sleep(200);
      }
    };

    // Warm-up: the initial sync.
    const first = await settle(Date.now());
    if (first.lost) problems.push(`initial sync: ${first.lost}`);
    console.log(`soak: synced at ${elapsed().toFixed(1)} s (${JSON.stringify(first.ms)})`);

    const plan: FaultKind[] = [
      ...Array.from({ length: OPTS.restarts }, (_, i) => (i % 2 === 0 ? 'restart-kill' : 'restart-graceful') as FaultKind),
      ...Array.from({ length: OPTS.compactions }, () => 'compaction' as FaultKind),
      ...Array.from({ length: Math.ceil(OPTS.resets / RESETS_PER_GROUP) }, () => 'resets' as FaultKind),
      ...Array.from({ length: OPTS.bursts }, () => 'burst-429' as FaultKind),
    ];
    for (let i = plan.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [plan[i], plan[j]] = [plan[j], plan[i]];
    }
    let resetsDone = 0;
    const writePartial = (done: number) => {
      mkdirSync(OPTS.out, { recursive: true });
      writeFileSync(
        path.join(OPTS.out, 'soak.partial.json'),
        JSON.stringify({ options: OPTS, planned: plan.length, done, runSeconds: elapsed(), resetsApplied: resetsDone, throttled429: throttle.throttled, writes: writer.ops, relistsByReason: relists, recorder: { cap: OPTS.cap, drops }, problems, faults, samples }, null, 1),
      );
    };
    let stopReason = '';
    const warmupFaults = Math.ceil(plan.length * 0.2);
    let warmupT = -1;
    for (const [n, kind] of plan.entries()) {
      if (interrupted) stopReason = `stopped by ${interrupted}`;
      else if (OPTS.deadlineMin > 0 && elapsed() > OPTS.deadlineMin * 60) stopReason = `deadline of ${OPTS.deadlineMin} min reached`;
      if (stopReason) {
        console.log(`soak: ${stopReason} after ${n} of ${plan.length} faults`);
        break;
      }
      // Warm-up: the first fifth of the faults or the first 5 minutes, whichever ends first.
      if (warmupT < 0 && (n === warmupFaults || elapsed() > 300)) warmupT = elapsed();
      writer.start();
      await sleep(400 + rand() * 800);
      const f0 = Date.now();
      const backoffBefore = { ...backoffTotal };
      let note: string | undefined;
      try {
        switch (kind) {
          case 'restart-kill':
          case 'restart-graceful':
            try {
              await cluster.restartApiserver(undefined, kind === 'restart-kill' ? 'kill' : 'graceful');
            } catch (e) {
              note = `restart failed: ${(e as Error).message.split('\n')[0]}`;
              await cluster.startApiserver().catch((e2: Error) => problems.push(`apiserver did not come back: ${e2.message}`));
            }
            break;
          case 'compaction': {
            // The engine's connections go silent (a partition: nothing flows, nothing is refused),
            // objects change that it cannot see, etcd drops that history, and then the silent
            // connections are reset: the watch had events and lasted, so the reflector re-watches
            // at once, at a compacted resourceVersion, and gets etcd's 410.
            proxy.stall();
            await sleep(1000); // the writer keeps changing objects the engine cannot see
            const rev = await compactEtcd(etcdPort);
            note = `compacted at revision ${rev}`;
            proxy.cutAll('reset');
            proxy.resume();
            break;
          }
          case 'resets':
            for (let k = 0; k < RESETS_PER_GROUP && resetsDone < OPTS.resets; k++, resetsDone++) {
              proxy.cutAll('reset');
              await sleep(50 + rand() * 250);
            }
            break;
          case 'burst-429': {
            proxy.retarget(throttlePort);
            proxy.cutAll('reset');
            await sleep(2000 + rand() * 2000);
            proxy.retarget(cluster.port);
            break;
          }
        }
      } catch (e) {
        problems.push(`fault ${kind} could not be applied: ${(e as Error).message}`);
      }
      const faultMs = Date.now() - f0;
      await writer.pause();
      const s = await settle(Date.now());
      const backoffMs = Object.fromEntries(PROFILES.map((p) => [p, Math.round(backoffTotal[p] - backoffBefore[p])]));
      faults.push({ kind, at: elapsed(), faultMs, convergedMs: s.ms, backoffMs, ...(s.lost ? { lost: s.lost } : {}), ...(note ? { note } : {}) });
      if (s.lost) problems.push(`after fault ${n + 1} (${kind}) not converged in ${OPTS.settleTimeoutMs / 1000} s: ${s.lost}`);
      if ((n + 1) % 10 === 0 || n === plan.length - 1) {
        writePartial(n + 1);
        const m = process.memoryUsage();
        console.log(`soak: ${n + 1}/${plan.length} faults at ${elapsed().toFixed(0)} s, rss ${(m.rss / 2 ** 20).toFixed(0)} MiB heap ${(m.heapUsed / 2 ** 20).toFixed(0)} MiB, writes ${JSON.stringify(writer.ops)}, problems ${problems.length}`);
      }
    }
    await writer.pause();
    if (warmupT < 0) warmupT = elapsed();

    // ---- stop everything, then look for what was left behind
    await Promise.all(informers.map(({ li }) => li.stop()));
    clearInterval(sampler);
    await proxy.close();
    await throttle.close();
    await cluster.stop();
    // Sockets closed by the peer (the apiserver's graceful stop, the proxy's FIN) need a moment on a loaded machine.
    let left: string[] = [];
    for (let i = 0; i < 10; i++) {
      await sleep(500);
      left = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap' && r !== 'FSReqCallback');
      if (left.length === 0) break;
    }
    if (left.length) {
      // Which sockets: the ports say whose they are (the proxy's, the apiserver's, etcd's).
      const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
      const sockets = handles
        .filter((h): h is import('node:net').Socket => h instanceof (require('node:net') as typeof import('node:net')).Socket)
        .map((s) => `${s.localAddress}:${s.localPort}→${s.remoteAddress}:${s.remotePort} (destroyed ${s.destroyed}, pending ${s.pending})`);
      problems.push(`left after stop: ${left.join(', ')}; sockets: ${sockets.join('; ')}; proxy ${proxy.port}, apiserver ${cluster.port}, etcd ${etcdPort}, throttle ${throttlePort}`);
    }

    // ---- figures
    const post = samples.filter((s) => s.t >= warmupT);
    const tenth = Math.max(1, Math.floor(post.length / 10));
    const growth = (f: (s: Sample) => number) => (post.length >= 4 ? mean(post.slice(-tenth).map(f)) / mean(post.slice(0, tenth).map(f)) - 1 : 0);
    const rssGrowth = growth((s) => s.rss);
    const heapGrowth = growth((s) => s.heap);
    const runS = elapsed();
    if (runS >= 1200 && (rssGrowth > OPTS.maxGrowth || heapGrowth > OPTS.maxGrowth)) {
      problems.push(`memory grew after warm-up: RSS ${(rssGrowth * 100).toFixed(1)} %, heap ${(heapGrowth * 100).toFixed(1)} % (bound ${(OPTS.maxGrowth * 100).toFixed(0)} %)`);
    }
    if (capExceeded) problems.push(`recorder over its cap: ${capExceeded}`);
    const kinds = [...new Set(faults.map((f) => f.kind))];
    const convergence = Object.fromEntries(
      kinds.map((k) => {
        const xs = faults.filter((f) => f.kind === k).flatMap((f) => Object.values(f.convergedMs).filter((v): v is number => v !== null));
        return [k, { faults: faults.filter((f) => f.kind === k).length, medianMs: quantile(xs, 0.5), p99Ms: quantile(xs, 0.99), maxMs: quantile(xs, 1) }];
      }),
    );
    const result = {
      options: OPTS,
      faultsPlanned: plan.length,
      stopReason: stopReason || 'all planned faults applied',
      kubeVersion: cluster.kubeVersion,
      apiserverFlags: flags,
      runSeconds: runS,
      faultsSurvived: faults.filter((f) => !f.lost).length,
      faultsApplied: faults.length,
      resetsApplied: resetsDone,
      throttled429: throttle.throttled,
      writes: writer.ops,
      relistsByReason: relists,
      recorder: { cap: OPTS.cap, drops },
      convergence,
      memory: { warmupEndsAtS: warmupT, rssGrowth, heapGrowth, first: samples[0], last: samples[samples.length - 1], maxRss: Math.max(...samples.map((s) => s.rss)) },
      lost: faults.filter((f) => f.lost).map((f) => ({ kind: f.kind, at: f.at, lost: f.lost })),
      problems,
      faults,
      samples,
    };
    mkdirSync(OPTS.out, { recursive: true });
    writeFileSync(path.join(OPTS.out, 'soak.json'), JSON.stringify(result, null, 1));
    writeFileSync(path.join(OPTS.out, 'soak-memory.svg'), memorySvg(samples, warmupT));
    rmSync(path.join(OPTS.out, 'soak.partial.json'), { force: true });
    console.log(`soak: ${runS.toFixed(0)} s, ${result.faultsSurvived}/${faults.length} faults survived (of ${plan.length} planned) (${resetsDone} resets, ${throttle.throttled} requests answered 429)`);
    console.log(`soak: convergence ${JSON.stringify(convergence)}`);
    console.log(`soak: relists ${JSON.stringify(relists)}`);
    console.log(`soak: recorder drops ${JSON.stringify(drops)}; memory after warm-up: RSS ${(rssGrowth * 100).toFixed(1)} %, heap ${(heapGrowth * 100).toFixed(1)} %`);
    for (const p of problems) console.log(`soak: PROBLEM ${p.slice(0, 2000)}`);
    console.log(`${problems.length === 0 ? 1 : 0} passed, ${problems.length === 0 ? 0 : 1} failed`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  } catch (e) {
    clearInterval(sampler);
    for (const { li } of informers) await li.stop().catch(() => undefined);
    await proxy.close().catch(() => undefined);
    await throttle.close().catch(() => undefined);
    await cluster.stop().catch(() => undefined);
    console.error(`soak: ${(e as Error).stack ?? e}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
  }
}

// A handle left behind (reported above as a problem) would keep the process alive: end it here.
void main().finally(() => process.exit());
