/**
 * (b) Initial list: time from run() to HasSynced for 10k and 50k objects (one LIST page, as a
 * watch cache serves RV "0"), and the heap the synced informer holds per cached object. The
 * heap is measured after a full GC with the informer alive and its queues drained; the objects
 * were built by the LIST and are held by nothing but the engine, so the figure includes the
 * objects themselves (their JSON size is given for scale).
 */
import { benchObject } from './memoryListerWatcher';
import { EngineRig, type BenchProfile } from './engineRig';
import { fmt, hasGc, heapUsed, interleaved, startTiming, summarize, table, type Timing } from './stats';

export interface InitialListOptions {
  sizes: readonly number[];
  profiles: readonly BenchProfile[];
  repeats: number;
}

interface ListSample extends Timing {
  bytesPerObject: number;
}

async function listOnce(profileName: BenchProfile, objects: number): Promise<ListSample> {
  const before = heapUsed();
  const rig = new EngineRig({ profile: profileName, objects, handlers: 1, sink: 'null' });
  const stop = startTiming();
  rig.start();
  const r = await rig.clock.runUntilIdle(() => rig.informer.hasSynced(), 3_600_000);
  const timing = stop();
  if (r !== 'done') throw new Error(`no sync (${r})`);
  await rig.untilSyncedAndWatching();
  const bytesPerObject = (heapUsed() - before) / objects;
  if (rig.informer.getIndexer().list().length !== objects) throw new Error('the cache does not hold every object');
  await rig.stop();
  return { ...timing, bytesPerObject };
}

export async function initialList(o: InitialListOptions): Promise<string> {
  const variants = o.sizes.flatMap((n) => o.profiles.map((p) => `${n}/${p}` as const));
  const samples = await interleaved(variants, o.repeats, (v) => {
    const [n, p] = v.split('/') as [string, BenchProfile];
    return listOnce(p, Number(n));
  });
  const rows = variants.map((v) => {
    const s = samples.get(v) ?? [];
    const [n, p] = v.split('/');
    const bytes = summarize(s.map((x) => x.bytesPerObject));
    return [
      Number(n).toLocaleString('en-US'),
      p,
      fmt(summarize(s.map((x) => x.cpuMs)), 0),
      fmt(summarize(s.map((x) => x.wallMs)), 0),
      hasGc() ? `${Math.round(bytes.median)} (${Math.round(bytes.min)}–${Math.round(bytes.max)})` : 'run with --expose-gc',
    ];
  });
  const jsonBytes = JSON.stringify(benchObject(12345, 123456, 3)).length;
  return [
    `### (b) Initial list to synced — one handler, null sink, ${o.repeats} interleaved runs per cell`,
    '',
    table(['objects', 'profile', 'CPU ms to synced: median (min–max, ±½range)', 'wall ms to synced', 'heap bytes per cached object (median (min–max))'], rows),
    '',
    `Each object is a ConfigMap of ${jsonBytes} bytes as JSON.`,
  ].join('\n');
}
