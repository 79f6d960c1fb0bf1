/**
 * The TraceRecorder's own cost, apart from the engine: CPU per recorded event and the heap that
 * 200 000 recorded events hold. The input is a real engine trace (bench/traceSource.ts: notify,
 * fifo.enqueue/pop, distribute with update diffs, watch.event, rv, logs) with the seqs taken off;
 * every emit gets a fresh copy of its event (a fresh diff too), as the engine builds a new object
 * per event, and hands it over as the engine does (handOver: adopt when the recorder has it). The "copy only" variant does that copying into the null sink, so the recorder's own
 * share is the difference.
 *
 *   node --expose-gc --import tsx bench/recorderCost.ts [--events 250000] [--rounds 5] [--baseline REV]
 *
 * Heap: heap used after a full GC with the recorder holding its window (cap 200 000, so past it
 * the eviction runs too), minus heap used before it was built; the input trace is alive in both.
 *
 * Then the same in the engine (bench/engineRig.ts, profile v1.15, 2 000 ConfigMaps, watches of 3 000
 * MODIFIED events that end in 410 Expired): CPU and retained heap of an informer that handled
 * 40 000 updates (about 260 000 trace events: the recorder's window is full), with the null sink,
 * the working tree's recorder and the baseline's.
 */
import type { FieldChange, TraceEvent } from '../src/format/events';
import { handOver, nullSink } from '../src/engine/sink';
import { TraceRecorder } from '../src/trace/recorder';
import { computeFindings } from '../src/trace/findings';
import { baselineRecorder } from './baseline';
import { EngineRig, benchHeader } from './engineRig';
import { collectGarbage, interleaved, startTiming, summarize } from './stats';
import { recordEngineTrace, typeMix } from './traceSource';

interface Args {
  events: number;
  rounds: number;
  baseline?: string;
}

function parseArgs(argv: readonly string[]): Args {
  const o: Args = { events: 250_000, rounds: 5 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--events') o.events = Number(v);
    else if (argv[i] === '--rounds') o.rounds = Number(v);
    else if (argv[i] === '--baseline') o.baseline = v;
    else throw new Error(`unknown argument ${argv[i]} (use --events N, --rounds N, --baseline REV)`);
    i++;
  }
  if (!Number.isInteger(o.events) || o.events < 1 || !Number.isInteger(o.rounds) || o.rounds < 1) throw new Error('--events and --rounds take positive integers');
  return o;
}

/** A new object per event (and per diff entry), as the engine emits. */
function fresh(e: TraceEvent): TraceEvent {
  if (e.type === 'distribute' && e.diff) return { ...e, diff: e.diff.map((c: FieldChange) => ({ ...c })) };
  return { ...e };
}

type Variant = 'copy only' | 'recorder' | 'baseline recorder';

interface Sample {
  cpuMs: number;
  heapBytes: number;
}

interface WindowSample extends Sample {
  /** ArrayBuffer bytes held (typed arrays live outside the JS heap). */
  bufferBytes: number;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const trace = await recordEngineTrace(args.events);
  const input: TraceEvent[] = trace.events.map(({ seq: _seq, ...e }) => e as TraceEvent);
  trace.events.length = 0;
  const Baseline = args.baseline ? baselineRecorder(args.baseline) : undefined;
  const variants: Variant[] = ['copy only', 'recorder', ...(Baseline ? (['baseline recorder'] as const) : [])];
  const header = benchHeader('v1.15', 200_000);
  const samples = await interleaved(variants, args.rounds, async (v): Promise<WindowSample> => {
    collectGarbage();
    const { heapUsed: heap0, arrayBuffers: buffers0 } = process.memoryUsage();
    const Ctor = v === 'baseline recorder' ? Baseline! : TraceRecorder;
    const sink = v === 'copy only' ? nullSink : new Ctor(header, 200_000);
    const stop = startTiming();
    for (let i = 0; i < input.length; i++) handOver(sink, fresh(input[i]));
    const { cpuMs } = stop();
    collectGarbage();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    const heapBytes = heapUsed - heap0;
    const bufferBytes = arrayBuffers - buffers0;
    if (sink !== nullSink && (sink as TraceRecorder).events().length === 0) throw new Error('nothing recorded');
    return { cpuMs, heapBytes, bufferBytes };
  });
  const findings = await findingsCost(input, header, Baseline, args.rounds);
  const engine = await interleaved(variants, args.rounds, (v) => engineRun(v === 'baseline recorder' ? Baseline : v === 'recorder' ? TraceRecorder : undefined));
  const n = input.length;
  console.log(`Node ${process.version}, load average ${process_load()}; ${n} events (${typeMix(input as never)}), cap 200 000, ${args.rounds} interleaved rounds, median (min–max)\n`);
  console.log('| variant | CPU ns per event | heap MiB held | heap bytes per held event | typed-array MiB held | typed-array bytes per held event |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const v of variants) {
    const s = samples.get(v)!;
    const cpu = summarize(s.map((x) => (x.cpuMs * 1e6) / n));
    const heap = summarize(s.map((x) => x.heapBytes / 2 ** 20));
    const buffers = summarize(s.map((x) => x.bufferBytes / 2 ** 20));
    const held = Math.min(n, 200_000);
    const perEvent = (mib: number): string => (v === 'copy only' ? '–' : ((mib * 2 ** 20) / held).toFixed(0));
    console.log(
      `| ${v} | ${cpu.median.toFixed(0)} (${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)}) | ${heap.median.toFixed(1)} (${heap.min.toFixed(1)}–${heap.max.toFixed(1)}) | ${perEvent(heap.median)} | ${buffers.median.toFixed(1)} | ${perEvent(buffers.median)} |`,
    );
  }
  console.log('\nFindings over the full window (computeFindings, as the engine worker runs it each second while events come):\n');
  console.log('| recorder | CPU ms per computation |');
  console.log('| --- | --- |');
  for (const [name, ms] of findings) console.log(`| ${name} | ${summarize(ms).median.toFixed(1)} (${summarize(ms).min.toFixed(1)}–${summarize(ms).max.toFixed(1)}) |`);
  console.log(`\nThe engine handling ${ENGINE_UPDATES.toLocaleString('en-US')} updates (v1.15, 2 000 ConfigMaps, ~6.5 trace events each; window of 200 000):\n`);
  console.log('| sink | CPU ms | heap MiB held after GC (informer and cache included) | heap MiB above the null sink |');
  console.log('| --- | --- | --- | --- |');
  const nullHeap = summarize(engine.get('copy only')!.map((x) => x.heapBytes / 2 ** 20)).median;
  for (const v of variants) {
    const s = engine.get(v)!;
    const cpu = summarize(s.map((x) => x.cpuMs));
    const heap = summarize(s.map((x) => x.heapBytes / 2 ** 20));
    const name = v === 'copy only' ? 'null sink' : v;
    console.log(`| ${name} | ${cpu.median.toFixed(0)} (${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)}) | ${heap.median.toFixed(1)} (${heap.min.toFixed(1)}–${heap.max.toFixed(1)}) | ${v === 'copy only' ? '–' : (heap.median - nullHeap).toFixed(1)} |`);
  }
}

/**
 * CPU of one computeFindings over a full window: the working tree's recorder (by type, objects
 * made for the types the rules read) and the baseline's (its array of objects). The findings
 * must be the same.
 */
async function findingsCost(input: TraceEvent[], header: ReturnType<typeof benchHeader>, Baseline: typeof TraceRecorder | undefined, rounds: number): Promise<Map<string, number[]>> {
  const fill = (r: TraceRecorder) => {
    for (let i = 0; i < input.length; i++) handOver(r, fresh(input[i]));
    return r;
  };
  const own = fill(new TraceRecorder(header, 200_000));
  const base = Baseline ? fill(new Baseline(header, 200_000)) : undefined;
  const expected = JSON.stringify(computeFindings(own.header(), own.events()));
  const variants = ['recorder', ...(base ? ['baseline recorder'] : [])];
  const out = await interleaved(variants, rounds, async (v) => {
    collectGarbage();
    const stop = startTiming();
    const f = v === 'recorder' ? computeFindings(own.header(), own.eventsByType()) : computeFindings(base!.header(), base!.events());
    const { cpuMs } = stop();
    if (JSON.stringify(f) !== expected) throw new Error(`${v}: the findings differ`);
    return cpuMs;
  });
  return out;
}

const ENGINE_UPDATES = 40_000;

/** One informer over the traceSource workload until both handlers have seen ENGINE_UPDATES updates. */
async function engineRun(Recorder: typeof TraceRecorder | undefined): Promise<Sample> {
  collectGarbage();
  const heap0 = process.memoryUsage().heapUsed;
  const rig = new EngineRig({ profile: 'v1.15', objects: 2000, handlers: 2, sink: Recorder ? 'recorder' : 'null', recorderClass: Recorder, recorderCap: 200_000 });
  for (let i = 0; i < Math.ceil(ENGINE_UPDATES / 3000) + 1; i++) rig.lw.scheduleWatch({ events: 3000, end: 'expire', intervalMs: 4 });
  let reached = false;
  const updated = rig.updatesReached(ENGINE_UPDATES).then(() => void (reached = true));
  const stop = startTiming();
  rig.start();
  await rig.clock.runUntilIdle(() => reached, 365 * 24 * 3600_000);
  await updated;
  const { cpuMs } = stop();
  collectGarbage();
  const heapBytes = process.memoryUsage().heapUsed - heap0;
  if (Recorder && rig.recorder!.events().length < 180_000) throw new Error("the window did not fill");
  await rig.stop();
  return { cpuMs, heapBytes };
}

function process_load(): string {
  return require('node:os')
    .loadavg()
    .map((x: number) => x.toFixed(1))
    .join(' / ');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
