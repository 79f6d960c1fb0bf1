/**
 * (c) The trace layer on a 200k-event trace recorded from the engine: computeFindings (every
 * rule), exportTrace (canonical JSON text) and importTrace (JSON.parse + JSON Schema validation).
 */
import { computeFindings } from '../src/trace/findings';
import { exportTrace, importTrace } from '../src/trace/traceFile';
import { fmt, interleaved, summarize, table, timeSync, type Timing } from './stats';
import { typeMix, type GeneratedTrace } from './traceSource';

type Step = 'computeFindings' | 'exportTrace' | 'importTrace';

export async function traceLayer(trace: GeneratedTrace, repeats: number): Promise<string> {
  const text = exportTrace(trace);
  const imported = importTrace(text);
  if (imported.events.length !== trace.events.length) throw new Error('import lost events');
  const findings = computeFindings(trace.header, trace.events).map((f) => f.id);
  const steps: Step[] = ['computeFindings', 'exportTrace', 'importTrace'];
  const samples = await interleaved(steps, repeats, async (step): Promise<Timing> => {
    if (step === 'computeFindings') return timeSync(() => void computeFindings(trace.header, trace.events));
    if (step === 'exportTrace') return timeSync(() => void exportTrace(trace));
    return timeSync(() => void importTrace(text));
  });
  const rows = steps.map((s) => {
    const v = samples.get(s) ?? [];
    return [s, fmt(summarize(v.map((x) => x.cpuMs)), 0), fmt(summarize(v.map((x) => x.wallMs)), 0)];
  });
  return [
    `### (c) Trace layer — ${trace.events.length.toLocaleString('en-US')} events (${(text.length / 1e6).toFixed(1)} MB as a trace file), ${repeats} interleaved runs per step`,
    '',
    table(['step', 'CPU ms: median (min–max, ±½range)', 'wall ms'], rows),
    '',
    `Event mix: ${typeMix(trace.events)}. Findings on this trace: ${findings.join(', ') || 'none'}.`,
  ].join('\n');
}
