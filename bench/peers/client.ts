/**
 * The Node clients of the peer benchmark, one per process (bench/peers/run.ts bundles this file
 * and engineClient.ts, and starts this one once per variant and round):
 *
 *   node client.js MODE URL EVENTS
 *     engine-null       this engine, profile v1.36, real HTTP ListerWatcher (src/kube), null sink
 *     engine-recorder   the same with a TraceRecorder as the sink
 *     engine-session    the same recorder subscribed as a live session's is (src/app/eventBatches.ts:
 *                       the running summary, the findings, batches posted to this thread), and
 *                       this thread keeps them in a TraceMirror as the extension host does
 *     client-node       @kubernetes/client-node's informer (makeInformer; clientNode.ts)
 *     floor             read the socket, split lines, JSON.parse, keep the objects in a Map
 *
 * The engine runs as the extension runs it: in a worker thread (engineClient.js) with the
 * product's resource limits (src/app/workerLimits.ts); this thread waits for its result (and for
 * engine-session plays the extension host's part), and
 * the process's CPU time and peak RSS (both threads) are what is measured. The other clients run
 * on the main thread.
 *
 * Each informer has two handlers that only count updates. When synced, the client notes its CPU
 * time, calls GET /bench/go (the server then streams the watch events) and waits until both
 * handlers have seen EVENTS updates. Prints one JSON line like bench/clientgo's client.
 */
import * as path from 'node:path';
import { MessageChannel, Worker, type ResourceLimits } from 'node:worker_threads';
import { ENGINE_WORKER_LIMITS } from '../../src/app/workerLimits';
import { TraceMirror } from '../../src/app/traceMirror';
import { Chunk, type ChunkParts } from '../../src/trace/eventChunk';
import type { RecordedEvent } from '../../src/format/events';
import type { WorkerToHost } from '../../src/app/workerProtocol';
import type { TraceHeader } from '../../src/format/trace';
import { DEFAULT_TRACE_CAP } from '../../src/trace/recorder';
import { Counter, get, memSampler, watchPhase, type Mode, type Result } from './clientCommon';

/** The engine worker's resource limits: the product's, unless a diagnostic run overrides them. */
function engineLimits(): ResourceLimits {
  // PEERS_WORKER_LIMITS=none: V8's defaults, as before the engine's worker had limits.
  const limits: ResourceLimits = process.env.PEERS_WORKER_LIMITS === 'none' ? {} : { ...ENGINE_WORKER_LIMITS };
  // Diagnostics only (never set for a measured run): other limits, to see what they do.
  if (process.env.PEERS_WORKER_OLD_MB) limits.maxOldGenerationSizeMb = Number(process.env.PEERS_WORKER_OLD_MB);
  if (process.env.PEERS_WORKER_YOUNG_MB) limits.maxYoungGenerationSizeMb = Number(process.env.PEERS_WORKER_YOUNG_MB);
  return limits;
}

/**
 * @kubernetes/client-node's informer, from its own bundle (clientNode.js, loaded only for this
 * mode: the 15 MB bundle would otherwise sit in every variant's main thread).
 */
function clientNode(url: string, events: number): Promise<Result> {
  const file = path.join(__dirname, 'clientNode.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file beside this bundle, loaded at run time
  const m = require(file) as typeof import('./clientNode');
  return m.clientNode(url, events);
}

/** With --cpu-prof (run.ts --cpu-prof), the worker writes its own profile beside the main thread's: "<name>-worker.cpuprofile". */
function workerExecArgv(): string[] {
  const a = process.execArgv;
  const name = a[a.indexOf('--cpu-prof-name') + 1];
  if (!a.includes('--cpu-prof') || name === undefined) return [];
  return ['--cpu-prof', '--cpu-prof-dir', a[a.indexOf('--cpu-prof-dir') + 1], '--cpu-prof-name', name.replace(/\.cpuprofile$/, '-worker.cpuprofile')];
}

/** The header the host's mirror reports (only header() reads it; the bench never does). */
function benchHeader(): TraceHeader {
  return {
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: '0.1.0' },
    profile: 'v1.36',
    gates: {},
    resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
    source: 'cluster',
    startedAt: new Date().toISOString(),
    cap: DEFAULT_TRACE_CAP,
    dropped: 0,
    redacted: true,
  };
}

function engine(mode: Mode, url: string, events: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    // A live session's batches come over a channel of their own (the result is the worker's one message).
    const batches = mode === 'engine-session' ? new MessageChannel() : undefined;
    let received = 0;
    // PEERS_MEM (diagnostics): what the batches carried, in bytes.
    const carried = { typed: 0, strings: 0, diffs: 0, events: 0 };
    // The host's side of a live session: each batch into a TraceMirror, as workerSession.ts does.
    const mirror = batches ? new TraceMirror(benchHeader(), DEFAULT_TRACE_CAP) : undefined;
    batches?.port1.on('message', (m: WorkerToHost) => {
      if (m.type !== 'batch') return;
      received++;
      // A baseline's worker may still send objects.
      const old = m as unknown as { events?: RecordedEvent[] };
      if (old.events) mirror?.append(old.events, m.status);
      else {
        const chunk = Chunk.fromParts(m.packed);
        if (process.env.PEERS_MEM) count(m.packed, chunk, carried);
        // PEERS_NO_MIRROR (diagnostics, never set for a measured run): the batches are taken and none is kept.
        if (!process.env.PEERS_NO_MIRROR) mirror?.appendPacked(chunk, m.firstSeq, m.status);
      }
    });
    const w = new Worker(path.join(__dirname, 'engineClient.js'), {
      workerData: { mode, url, events, batches: batches?.port2 },
      transferList: batches ? [batches.port2] : [],
      resourceLimits: engineLimits(),
      execArgv: workerExecArgv(),
    });
    if (batches) w.once('exit', () => batches.port1.close());
    w.once('message', (r: Result) => {
      if (process.env.PEERS_MEM && received > 0) r.mem = [...(r.mem ?? []), `mem ${mode} host: ${received} batches of ${carried.events} events carried ${((carried.typed + carried.strings) / MiB).toFixed(1)} MiB: typed arrays ${(carried.typed / MiB).toFixed(1)}, string bytes ${(carried.strings / MiB).toFixed(1)} (update diffs' texts ${(carried.diffs / MiB).toFixed(1)})`];
      // A session that sent the host nothing measured no session.
      if (batches && received === 0) reject(new Error('engine-session: the host received no batch'));
      else resolve(r);
    });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`the engine's worker exited with ${code} before its result`)));
  });
}

const MiB = 1048576;

/** Adds what one batch carried to `into`: its typed arrays' bytes, its string table's, and the update diffs' texts among them. */
function count(p: ChunkParts, chunk: Chunk, into: { typed: number; strings: number; diffs: number; events: number }): void {
  into.events += p.count;
  into.typed += p.types.byteLength + p.starts.byteLength + p.times.byteLength + p.slots.byteLength + p.wide.byteLength;
  into.strings += p.strings.text.byteLength + p.strings.ends.byteLength;
  for (let j = 0; j < chunk.entries; j++) {
    const e = chunk.entry(j);
    if (typeof e === 'string' && e.startsWith('[{"path"')) into.diffs += e.length;
  }
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
  const mem = memSampler(mode);
  let r: Result;
  if (mode === 'engine-null' || mode === 'engine-recorder' || mode === 'engine-session') r = await engine(mode, url, events);
  else if (mode === 'client-node') r = await clientNode(url, events);
  else if (mode === 'floor') r = await floor(url, events);
  else throw new Error(`unknown mode ${String(mode)}`);
  // The engine's worker sampled its own heap; this thread's lines follow (the process's RSS is in both).
  for (const line of [...(r.mem ?? []), ...mem.finish()]) console.error(line);
  delete r.mem;
  console.log(JSON.stringify(r));
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(`peers client: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
