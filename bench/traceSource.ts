/**
 * Realistic large traces for the trace-layer and webview benchmarks, recorded from the real
 * engine: profile v1.15 over 2 000 objects, watches of 3 000 MODIFIED events 4 ms apart (250
 * updates/s, a busy namespace) that each end in 410 Expired after 12 s, so the trace has the full mix (relists at RV "0", Replace/Sync deltas, identical
 * updates after every relist, backoff, logs) and the findings rules have real work to do.
 */
import { EngineRig } from './engineRig';
import type { RecordedEvent } from '../src/format/events';
import type { TraceHeader } from '../src/format/trace';

const OBJECTS = 2000;
const EVENTS_PER_WATCH = 3000;
const EVENT_INTERVAL_MS = 4;

export interface GeneratedTrace {
  header: TraceHeader;
  events: RecordedEvent[];
}

/** Exactly `count` events, seq 0..count-1, none dropped. */
export async function recordEngineTrace(count: number): Promise<GeneratedTrace> {
  const rig = new EngineRig({ profile: 'v1.15', objects: OBJECTS, handlers: 2, sink: 'recorder', recorderCap: count + 50_000 });
  const recorder = rig.recorder;
  if (!recorder) throw new Error('no recorder');
  const watchesNeeded = Math.ceil(count / EVENTS_PER_WATCH) + 1;
  for (let i = 0; i < watchesNeeded; i++) rig.lw.scheduleWatch({ events: EVENTS_PER_WATCH, end: 'expire', intervalMs: EVENT_INTERVAL_MS });
  rig.start();
  const r = await rig.clock.runUntilIdle(() => recorder.held >= count, 365 * 24 * 3600_000);
  await rig.stop();
  if (r !== 'done' || recorder.dropped > 0) throw new Error(`could not record ${count} events (${r}, ${recorder.held} recorded)`);
  return { header: recorder.header(), events: recorder.events().slice(0, count) };
}

/** How many events of each type, most frequent first, for the report. */
export function typeMix(events: readonly RecordedEvent[], top = 6): string {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([type, n]) => `${type} ${((n / events.length) * 100).toFixed(0)}%`)
    .join(', ');
}
