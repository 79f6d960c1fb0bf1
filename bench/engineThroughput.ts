/**
 * (a) Engine throughput: watch events per second through Reflector → FIFO → informer → two
 * handlers, per profile, with the null sink and with a TraceRecorder (default cap 200 000, so
 * long runs also pay for its oldest-tenth drops). Only the streaming is timed: the initial list
 * is done and the watch is open before the gate opens.
 */
import { BENCH_PROFILES, EngineRig, type BenchProfile } from './engineRig';
import { fmtRate, interleaved, startTiming, summarize, table, within, type Timing } from './stats';

/** One run streams 10k events in well under a second; anything near this is a stuck engine. */
const RUN_LIMIT_MS = 30_000;

export interface ThroughputOptions {
  events: number;
  objects: number;
  repeats: number;
}

type Sink = 'null' | 'recorder';
type Variant = `${BenchProfile}/${Sink}`;

async function streamOnce(profileName: BenchProfile, sink: Sink, o: ThroughputOptions): Promise<Timing> {
  const rig = new EngineRig({ profile: profileName, objects: o.objects, handlers: 2, sink });
  rig.lw.holdDelivery();
  rig.lw.scheduleWatch({ events: o.events, end: 'hold' });
  rig.start();
  await rig.untilSyncedAndWatching();
  const delivered = rig.updatesReached(o.events);
  const stop = startTiming();
  rig.lw.release();
  await within(delivered, RUN_LIMIT_MS, `streaming ${o.events} events under ${profileName}`);
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
  const variants: Variant[] = BENCH_PROFILES.flatMap((p) => [`${p}/null`, `${p}/recorder`] as Variant[]);
  const samples = await interleaved(variants, o.repeats, (v) => {
    const [p, sink] = v.split('/') as [BenchProfile, Sink];
    return streamOnce(p, sink, o);
  });
  const rates = (v: Variant, k: keyof Timing) => (samples.get(v) ?? []).map((t) => (o.events / t[k]) * 1000);
  const baseCpu = summarize(rates('v1.32/null', 'cpuMs')).median;
  const rows = BENCH_PROFILES.map((p) => {
    const cpuNull = rates(`${p}/null`, 'cpuMs');
    const cpuRec = rates(`${p}/recorder`, 'cpuMs');
    // The null and recorder runs of one repetition ran back to back: ratio per repetition.
    const ratio = summarize(cpuNull.map((x, i) => x / cpuRec[i]));
    return [
      p,
      fifoOf(p),
      fmtRate(summarize(cpuNull)),
      `${(summarize(cpuNull).median / baseCpu).toFixed(2)}×`,
      fmtRate(summarize(rates(`${p}/null`, 'wallMs'))),
      fmtRate(summarize(cpuRec)),
      `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`,
    ];
  });
  return [
    `### (a) Engine throughput — ${o.events.toLocaleString('en-US')} MODIFIED events over ${o.objects} objects, 2 handlers, ${o.repeats} interleaved runs per cell`,
    '',
    table(
      [
        'profile',
        'FIFO',
        'events/s per CPU-second, null sink',
        'vs v1.32',
        'events/s wall, null sink',
        'events/s per CPU-second, TraceRecorder',
        'null ÷ recorder (per-run ratio)',
      ],
      rows,
    ),
  ].join('\n');
}
