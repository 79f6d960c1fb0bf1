/**
 * The engine variants of the peer benchmark, run as the extension runs the engine: in a
 * worker_threads worker of its own bundle, with the product's resource limits
 * (src/app/workerLimits.ts, given by client.ts). workerData: { mode, url, events }; posts one Result.
 *
 * The informer is v1.36 over the real HttpListerWatcher of src/kube on the RealClock, with two
 * handlers that only count updates, and the null sink or a TraceRecorder.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { EventBatches } from '../../src/app/eventBatches';
import { performance, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import * as path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { benchKubeconfig } from '../benchKubeconfig';
import { RealClock } from '../../src/engine/clock';
import { findProfile, withGates } from '../../src/engine/profiles';
import { nullSink } from '../../src/engine/sink';
import { SharedIndexInformer } from '../../src/engine/sharedInformer';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { HttpListerWatcher } from '../../src/kube/listerWatcher';
import { DEFAULT_TRACE_CAP, TraceRecorder } from '../../src/trace/recorder';
import { Counter, currentMemSampler, memSampler, watchPhase, type Mode, type Result } from './clientCommon';

/** The recorder's window: the product's default, unless a diagnostic run (PEERS_RECORDER_CAP, never set for a measured run) asks for another. */
function recorderCap(): number {
  const v = Number(process.env.PEERS_RECORDER_CAP);
  return Number.isInteger(v) && v > 0 ? v : DEFAULT_TRACE_CAP;
}

async function engine(url: string, events: number, recorder: boolean, batchPort: MessagePort | undefined): Promise<Result> {
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
      }, recorderCap())
    : nullSink;
  // PEERS_MEM: each memory sample also reads how many events the recorder's window holds.
  if (sink instanceof TraceRecorder) currentMemSampler().probe = () => sink.held;
  // engine-session: attached as engineWorker.ts attaches a live session's recorder, its batches posted to the main thread.
  if (sink instanceof TraceRecorder && batchPort) {
    const batches = new EventBatches((m, moved) => batchPort.postMessage(m, moved));
    // A --baseline revision may predate attach (its EventBatches subscribed to the recorder's objects).
    const older = batches as unknown as { attach?: unknown; recorder: TraceRecorder; collect: Parameters<TraceRecorder['subscribe']>[0] };
    if (typeof older.attach === 'function') batches.attach(sink);
    else {
      older.recorder = sink;
      sink.subscribe(older.collect);
    }
  }
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock, sink, name: 'bench' });
  const counter = new Counter(2, events);
  for (let h = 0; h < 2; h++) informer.addEventHandler(`handler-${h}`, { onUpdate: counter.handler(h) });
  const abort = new AbortController();
  const t0 = performance.now();
  const running = informer.run(abort.signal);
  while (!informer.hasSynced()) await new Promise((r) => setTimeout(r, 1));
  const syncMs = performance.now() - t0;
  // Diagnostics only (never set for a measured run): every allocation of the watch phase, sampled, collected ones too.
  const alloc = process.env.PEERS_ALLOCPROF ? await startAllocationSampling() : undefined;
  const gc = process.env.PEERS_GCSTATS ? gcStats() : undefined;
  const r = await watchPhase(url, counter, () => informer.getIndexer().listKeys().length, syncMs);
  if (gc) writeFileSync(diagnosticFile(process.env.PEERS_GCSTATS!, recorder, 'gc.json'), JSON.stringify(gc()));
  if (alloc) await alloc(diagnosticFile(process.env.PEERS_ALLOCPROF!, recorder, 'heapprofile'));
  // Diagnostics only (never set for a measured run): the worker's heap once the watch is handled.
  if (process.env.PEERS_HEAPSNAP) writeHeapSnapshot(diagnosticFile(process.env.PEERS_HEAPSNAP, recorder, 'heapsnapshot'));
  abort.abort();
  await running.catch(() => undefined);
  return r;
}

/** Where a diagnostic of this worker goes: `<sink>-<pid>.<ext>` in dir. */
function diagnosticFile(dir: string, recorder: boolean, ext: string): string {
  return path.join(dir, `${recorder ? 'recorder' : 'null'}-${process.pid}.${ext}`);
}

/** Counts the worker's garbage collections by kind (their number and summed pause, ms) until the returned function is called. */
function gcStats(): () => Record<string, { count: number; ms: number }> {
  const names: Record<number, string> = {
    [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
    [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
    [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
  };
  const out: Record<string, { count: number; ms: number }> = {};
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = names[((e as unknown as { detail: { kind: number } }).detail).kind] ?? 'other';
      const o = (out[kind] ??= { count: 0, ms: 0 });
      o.count++;
      o.ms += e.duration;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return () => {
    obs.disconnect();
    return out;
  };
}

/** Starts V8's sampling heap profiler with collected objects kept (what a GC had to clean up); the returned function writes the profile. */
async function startAllocationSampling(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return async (file) => {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

async function main(): Promise<void> {
  const { mode, url, events, batches } = workerData as { mode: Mode; url: string; events: number; batches?: MessagePort };
  const mem = memSampler(mode);
  const r = await engine(url, events, mode !== 'engine-null', mode === 'engine-session' ? batches : undefined);
  parentPort?.postMessage({ ...r, mem: mem.finish() });
}

main().catch((e: unknown) => {
  // The main thread reports the worker's error event (client.ts).
  throw e;
});
