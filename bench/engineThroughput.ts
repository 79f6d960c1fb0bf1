/**
 * (a) Engine throughput: watch events per second through Reflector → FIFO → informer → two
 * handlers, per profile, with the null sink and with a TraceRecorder (default cap 200 000, so
 * long runs also pay for its oldest-tenth drops). Only the streaming is timed: the initial list
 * is done and the watch is open before the gate opens.
 */
import { BENCH_PROFILES, EngineRig, type BenchProfile } from './engineRig';
import type { TraceRecorder } from '../src/trace/recorder';
import { fmtRate, interleaved, startTiming, summarize, table, within, type Timing } from './stats';

/** One run streams 10k events in well under a second; anything near this is a stuck engine. */
const RUN_LIMIT_MS = 30_000;

export interface ThroughputOptions {
  events: number;
  objects: number;
  repeats: number;
  /** A baseline revision's TraceRecorder, run as a third sink beside the null sink and today's recorder. */
  baseline?: { revision: string; recorder: typeof TraceRecorder };
}

type Sink = 'null' | 'recorder' | 'baseline';
type Variant = `${BenchProfile}/${Sink}`;

async function streamOnce(profileName: BenchProfile, sink: Sink, o: ThroughputOptions): Promise<Timing> {
  const recorderClass = sink === 'baseline' ? o.baseline?.recorder : undefined;
  const rig = new EngineRig({ profile: profileName, objects: o.objects, handlers: 2, sink: sink === 'null' ? 'null' : 'recorder', recorderClass });
  rig.lw.holdDelivery();
  rig.lw.scheduleWatch({ events: o.events, end: 'hold' });
  rig.start();
  await rig.untilSyncedAndWatching();
  let reached = false;
  const delivered = rig.updatesReached(o.events).then(() => void (reached = true));
  const stop = startTiming();
  rig.lw.release();
  // The clock must run: a woken Pop hops through a zero-delay timer (once per burst, not per event).
  const streamed = rig.clock.runUntilIdle(() => reached, 3_600_000).then(() => delivered);
  await within(streamed, RUN_LIMIT_MS, `streaming ${o.events} events under ${profileName}`);
  const timing = stop();
  await rig.stop();
  return timing;
}

function fifoOf(p: BenchProfile): string {
  if (p === 'v1.36') return 'RealFIFO (atomic)';
  if (p === 'v1.34') return 'RealFIFO';
  return 'DeltaFIFO';
}

export async function engineThroughput(o: ThroughputOptions): Promise<string> {
  const sinks: Sink[] = o.baseline ? ['null', 'baseline', 'recorder'] : ['null', 'recorder'];
  const variants: Variant[] = BENCH_PROFILES.flatMap((p) => sinks.map((s) => `${p}/${s}` as Variant));
  const samples = await interleaved(variants, o.repeats, (v) => {
    const [p, sink] = v.split('/') as [BenchProfile, Sink];
    return streamOnce(p, sink, o);
  });
  const rates = (v: Variant, k: keyof Timing) => (samples.get(v) ?? []).map((t) => (o.events / t[k]) * 1000);
  const baseCpu = summarize(rates('v1.32/null', 'cpuMs')).median;
  // The runs of one repetition ran back to back: ratios are taken per repetition.
  const ratio = (a: number[], b: number[]) => {
    const r = summarize(a.map((x, i) => x / b[i]));
    return `${r.median.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
  };
  const rows = BENCH_PROFILES.map((p) => {
    const cpuNull = rates(`${p}/null`, 'cpuMs');
    const cpuRec = rates(`${p}/recorder`, 'cpuMs');
    const row = [p, fifoOf(p), fmtRate(summarize(cpuNull)), `${(summarize(cpuNull).median / baseCpu).toFixed(2)}×`, fmtRate(summarize(rates(`${p}/null`, 'wallMs')))];
    if (o.baseline) {
      const cpuBase = rates(`${p}/baseline`, 'cpuMs');
      row.push(fmtRate(summarize(cpuBase)), ratio(cpuNull, cpuBase));
    }
    row.push(fmtRate(summarize(cpuRec)), ratio(cpuNull, cpuRec));
    return row;
  });
  const head = ['profile', 'FIFO', 'events/s per CPU-second, null sink', 'vs v1.32', 'events/s wall, null sink'];
  if (o.baseline) head.push(`events/s per CPU-second, TraceRecorder of ${o.baseline.revision}`, `null ÷ recorder of ${o.baseline.revision} (per-run ratio)`);
  head.push('events/s per CPU-second, TraceRecorder', 'null ÷ recorder (per-run ratio)');
  return [
    `### (a) Engine throughput — ${o.events.toLocaleString('en-US')} MODIFIED events over ${o.objects} objects, 2 handlers, ${o.repeats} interleaved runs per cell`,
    '',
    table(head, rows),
  ].join('\n');
}
