/**
 * The Node clients of the peer benchmark, one per process (bench/peers/run.ts bundles this file
 * and starts it once per variant and round):
 *
 *   node client.js MODE URL EVENTS
 *     engine-null       this engine, profile v1.36, real HTTP ListerWatcher (src/kube), null sink
 *     engine-recorder   the same with a TraceRecorder as the sink
 *     client-node       @kubernetes/client-node's informer (makeInformer)
 *     floor             read the socket, split lines, JSON.parse, keep the objects in a Map
 *
 * Each informer has two handlers that only count updates. When synced, the client notes its CPU
 * time, calls GET /bench/go (the server then streams the watch events) and waits until both
 * handlers have seen EVENTS updates. Prints one JSON line like bench/clientgo's client.
 */
import { benchKubeconfig } from '../benchKubeconfig';
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import { CoreV1Api, KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import { RealClock } from '../../src/engine/clock';
import { findProfile, withGates } from '../../src/engine/profiles';
import { nullSink } from '../../src/engine/sink';
import { SharedIndexInformer } from '../../src/engine/sharedInformer';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { HttpListerWatcher } from '../../src/kube/listerWatcher';
import { DEFAULT_TRACE_CAP, TraceRecorder } from '../../src/trace/recorder';

type Mode = 'engine-null' | 'engine-recorder' | 'client-node' | 'floor';

/** The one JSON line a client prints for the runner (bench/peers/run.ts). */
export interface Result {
  syncMs: number;
  watchCpuS: number;
  watchWallS: number;
  peakRssKiB: number;
  objects: number;
}

const LIMIT_MS = 300_000;

function cpuS(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
}

function get(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'application/json' } }, resolve);
    req.on('error', reject);
    req.setTimeout(LIMIT_MS, () => req.destroy(new Error(`no answer from ${url}`)));
  });
}

/** Counts updates per handler; resolves once every handler has seen `events`. */
class Counter {
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
async function watchPhase(url: string, counter: Counter, objects: () => number, syncMs: number): Promise<Result> {
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
  return { syncMs, watchCpuS: cpuS() - cpu0, watchWallS: (performance.now() - w0) / 1000, peakRssKiB: process.resourceUsage().maxRSS, objects: objects() };
}

async function engine(url: string, events: number, recorder: boolean): Promise<Result> {
  const base = findProfile('v1.36');
  if (!base) throw new Error('no profile v1.36');
  // LIST then WATCH, as every other client here does (the fake apiserver has no streaming list).
  const profile = withGates(base, { WatchListClient: false });
  const conn = KubeConnection.load({ kubeconfigYaml: benchKubeconfig(url) });
  const clock = new RealClock();
  const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true }, { clock });
  const sink = recorder
    ? new TraceRecorder({
        format: 'informer-trace/v1',
        tool: { name: 'informer-inspector', version: '0.1.0' },
        profile: profile.name,
        gates: { ...profile.gates },
        resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
        source: 'cluster',
        startedAt: new Date().toISOString(),
        cap: DEFAULT_TRACE_CAP,
        redacted: true,
      })
    : nullSink;
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock, sink, name: 'bench' });
  const counter = new Counter(2, events);
  for (let h = 0; h < 2; h++) informer.addEventHandler(`handler-${h}`, { onUpdate: counter.handler(h) });
  const abort = new AbortController();
  const t0 = performance.now();
  const running = informer.run(abort.signal);
  while (!informer.hasSynced()) await new Promise((r) => setTimeout(r, 1));
  const syncMs = performance.now() - t0;
  const r = await watchPhase(url, counter, () => informer.getIndexer().listKeys().length, syncMs);
  abort.abort();
  await running.catch(() => undefined);
  return r;
}

async function clientNode(url: string, events: number): Promise<Result> {
  const kc = new KubeConfig();
  // client-node refuses plain HTTP unless TLS verification is marked off (there is no TLS here).
  kc.loadFromString(benchKubeconfig(url).replace(`server: "${url}"`, `server: "${url}", insecure-skip-tls-verify: true`));
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1Pod>(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
  const counter = new Counter(2, events);
  for (let h = 0; h < 2; h++) informer.on('update', counter.handler(h));
  informer.on('error', (e: unknown) => console.error('client-node informer error:', String(e)));
  const t0 = performance.now();
  await informer.start();
  const syncMs = performance.now() - t0;
  const r = await watchPhase(url, counter, () => informer.list().length, syncMs);
  await informer.stop();
  return r;
}

async function floor(url: string, events: number): Promise<Result> {
  const cache = new Map<string, unknown>();
  const key = (o: { metadata: { namespace: string; name: string } }) => `${o.metadata.namespace}/${o.metadata.name}`;
  const t0 = performance.now();
  const res = await get(`${url}/api/v1/pods`);
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: { metadata: { namespace: string; name: string } }[]; metadata: { resourceVersion: string } };
  for (const o of list.items) cache.set(key(o), o);
  const syncMs = performance.now() - t0;
  const counter = new Counter(1, events);
  const onUpdate = counter.handler(0);
  const watch = await get(`${url}/api/v1/pods?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
  let rest = '';
  watch.setEncoding('utf8');
  watch.on('data', (s: string) => {
    const lines = (rest + s).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.length === 0) continue;
      const ev = JSON.parse(line) as { type: string; object: { metadata: { namespace: string; name: string } } };
      cache.set(key(ev.object), ev.object);
      onUpdate();
    }
  });
  const r = await watchPhase(url, counter, () => cache.size, syncMs);
  watch.destroy();
  return r;
}

async function main(): Promise<void> {
  const [mode, url, eventsArg] = process.argv.slice(2) as [Mode, string, string];
  const events = Number(eventsArg);
  if (!url?.startsWith('http://127.0.0.1:') || !(events > 0)) throw new Error('usage: client.js MODE http://127.0.0.1:PORT EVENTS');
  let r: Result;
  if (mode === 'engine-null' || mode === 'engine-recorder') r = await engine(url, events, mode === 'engine-recorder');
  else if (mode === 'client-node') r = await clientNode(url, events);
  else if (mode === 'floor') r = await floor(url, events);
  else throw new Error(`unknown mode ${String(mode)}`);
  console.log(JSON.stringify(r));
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(`peers client: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
