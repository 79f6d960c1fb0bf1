/**
 * Proof that a change to the recorder (or to how the engine builds its trace events) leaves the
 * trace as it was: the same runs, recorded with the working tree's code and with a git
 * revision's (src/ unpacked, engine and recorder both), exported to trace files and compared
 * byte for byte. The runs: every conformance scenario replayed in virtual time, and the
 * benchmarks' engine run (bench/traceSource.ts's workload: MODIFIED events with update diffs,
 * 410 Expired, relists, identical updates) under each profile, once with parsed objects and once
 * with lazy objects (each LIST body and watch line decoded as src/kube decodes what it reads from
 * an apiserver, so the update comparison reads their texts). The header's startedAt is the only
 * field set to one value for both (it is the wall clock).
 *
 *   node --import tsx bench/recorderIdentity.ts --baseline REV [--events 60000]
 *
 * Exits 1 and names the first differing line when any trace differs.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListerWatcher, Watcher } from '../src/engine/listWatch';
import type { KubeObject } from '../src/engine/objects';
import type { RecordedEvent } from '../src/format/events';
import type { TraceHeader } from '../src/format/trace';
import { REPO, unpackRevision } from './baseline';
import { benchHeader, BENCH_PROFILES, profile } from './engineRig';
import { benchPod, MemoryListerWatcher } from './memoryListerWatcher';

const STARTED_AT = '2026-01-01T00:00:00.000Z';
const SCENARIOS = join(REPO, 'test', 'conformance', 'scenarios');

interface Recorded {
  header(): TraceHeader;
  events(): readonly RecordedEvent[];
}

/** The modules of one source tree (the working tree's or an unpacked revision's). */
function tree(root: string) {
  const load = (p: string) => require(join(root, 'src', p));
  return {
    exportTrace: load('trace/traceFile.ts').exportTrace as (t: { header: TraceHeader; events: readonly RecordedEvent[] }) => string,
    replay: load('app/sessions.ts').replay as (s: unknown, o: { trace: boolean }) => Promise<{ recorder?: Recorded }>,
    validateScenario: load('scenario/validate.ts').validateScenario as (v: unknown, name: string) => { scenario?: unknown },
    FakeClock: load('engine/clock.ts').FakeClock as new () => import('../src/engine/clock').FakeClock,
    SharedIndexInformer: load('engine/sharedInformer.ts').SharedIndexInformer as typeof import('../src/engine/sharedInformer').SharedIndexInformer,
    TraceRecorder: load('trace/recorder.ts').TraceRecorder as typeof import('../src/trace/recorder').TraceRecorder,
    decodeList: load('kube/listerWatcher.ts').decodeList as typeof import('../src/kube/listerWatcher').decodeList,
    decodeFrame: load('kube/watchStream.ts').decodeFrame as typeof import('../src/kube/watchStream').decodeFrame,
  };
}

/** lw with every object it hands out re-read from its JSON text by the tree's decoders (lazy objects, as from a cluster). */
function decodedLike(t: Tree, lw: ListerWatcher): ListerWatcher {
  return {
    url: lw.url,
    watchListSupported: lw.watchListSupported,
    list: async (o, signal) => t.decodeList(Buffer.from(JSON.stringify(await lw.list(o, signal)))),
    watch: async (o, signal) => {
      const w = await lw.watch(o, signal);
      return {
        next: async () => {
          const e = await w.next();
          return e === null || e.type === 'ERROR' ? e : t.decodeFrame(JSON.stringify(e));
        },
        stop: () => w.stop(),
        get end() {
          return w.end;
        },
      } as Watcher;
    },
  };
}
type Tree = ReturnType<typeof tree>;

function exported(t: Tree, r: Recorded): string {
  return t.exportTrace({ header: { ...r.header(), startedAt: STARTED_AT }, events: r.events() });
}

async function scenarioTrace(t: Tree, file: string): Promise<string> {
  const scenario = t.validateScenario(JSON.parse(readFileSync(join(SCENARIOS, file), 'utf8')), file).scenario;
  if (!scenario) throw new Error(`${file}: not a valid scenario`);
  const run = await t.replay(scenario, { trace: true });
  if (!run.recorder) throw new Error(`${file}: no recorder`);
  return exported(t, run.recorder);
}

/** traceSource.ts's workload (watches of 3 000 MODIFIED events 4 ms apart, each ending in 410 Expired) until `events` are recorded. */
async function engineTrace(t: Tree, profileName: (typeof BENCH_PROFILES)[number], events: number, lazy: boolean, pods = false): Promise<string> {
  const clock = new t.FakeClock();
  const lw = new MemoryListerWatcher(2000, clock, pods ? benchPod : undefined);
  const recorder = new t.TraceRecorder(benchHeader(profileName, events + 50_000), events + 50_000);
  const informer = new t.SharedIndexInformer({ listerWatcher: lazy ? decodedLike(t, lw) : lw, profile: profile(profileName), clock, sink: recorder, rand: () => 0.5, name: 'bench' });
  for (let h = 0; h < 2; h++) informer.addEventHandler(`handler-${h}`, { onUpdate: (_o: KubeObject, _n: KubeObject) => undefined });
  for (let i = 0; i < Math.ceil(events / 3000) + 1; i++) lw.scheduleWatch({ events: 3000, end: 'expire', intervalMs: 4 });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  const r = await clock.runUntilIdle(() => heldBy(recorder) >= events, 365 * 24 * 3600_000);
  if (r !== 'done') throw new Error(`${profileName}: could not record ${events} events (${r})`);
  abort.abort();
  let finished = false;
  const done = running.then(() => void (finished = true));
  await clock.runUntilIdle(() => finished, 3_600_000);
  await done;
  return exported(t, { header: () => recorder.header(), events: () => recorder.events().slice(0, events) });
}

/** How many events a recorder holds: without making them when it can say (a baseline's recorder may not). */
function heldBy(r: { events(): readonly unknown[]; held?: number }): number {
  return typeof r.held === 'number' ? r.held : r.events().length;
}

function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) if (la[i] !== lb[i]) return `line ${i + 1}:\n  baseline: ${la[i]}\n  now:      ${lb[i]}`;
  return 'no line differs';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const revision = at('--baseline');
  const events = Number(at('--events') ?? 60_000);
  if (!revision || !Number.isInteger(events) || events < 1) throw new Error('usage: recorderIdentity.ts --baseline REV [--events N]');
  const unpacked = unpackRevision(revision);
  // src/format/tool.ts reads the version from ../../package.json.
  writeFileSync(join(unpacked.root, 'package.json'), execFileSync('git', ['-C', REPO, 'show', `${revision}:package.json`]));
  let differ = 0;
  let bytes = 0;
  let runs = 0;
  try {
    const before = tree(unpacked.root);
    const now = tree(REPO);
    const compare = (name: string, a: string, b: string) => {
      runs++;
      bytes += b.length;
      if (a === b) return;
      differ++;
      if (differ <= 3) console.log(`DIFFERS ${name}: ${firstDifference(a, b)}`);
    };
    const files = readdirSync(SCENARIOS).filter((f) => f.endsWith('.json')).sort();
    for (const f of files) compare(f, await scenarioTrace(before, f), await scenarioTrace(now, f));
    for (const p of BENCH_PROFILES) {
      for (const lazy of [false, true]) compare(`engine run ${p}${lazy ? ', lazy objects' : ''}`, await engineTrace(before, p, events, lazy), await engineTrace(now, p, events, lazy));
    }
    // Pods whose updates change a condition's timestamps, the RV, a container's status, a label (benchPod).
    const podProfile = BENCH_PROFILES[BENCH_PROFILES.length - 1];
    for (const lazy of [false, true]) compare(`engine run ${podProfile}, Pods${lazy ? ', lazy objects' : ''}`, await engineTrace(before, podProfile, events, lazy, true), await engineTrace(now, podProfile, events, lazy, true));
    console.log(`${runs} traces (${files.length} scenarios, ${2 * BENCH_PROFILES.length + 2} engine runs of ${events} events, half with lazy objects, two of Pods), ${(bytes / 2 ** 20).toFixed(1)} MiB of trace text: ${differ === 0 ? 'all byte-identical' : `${differ} differ`} to ${revision}`);
  } finally {
    unpacked.remove();
  }
  if (differ > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
