/**
 * (c) The trace layer on a 200k-event trace recorded from the engine: computeFindings (every
 * rule), exportTrace (canonical JSON text, its chunks joined), importTrace (JSON.parse + schema
 * checks) and encodeBatch (a snapshot's columns for the webview); with a baseline revision, its
 * exportTrace and importTrace interleaved with today's (the bytes must be the same).
 */
import { computeFindings } from '../src/trace/findings';
import { exportTrace, importTrace } from '../src/trace/traceFile';
import { encodeBatch } from '../src/protocol/eventColumns';
import type { baselineTraceFile } from './baseline';
import { fmt, interleaved, summarize, table, timeSync, type Timing } from './stats';
import { typeMix, type GeneratedTrace } from './traceSource';

export interface TraceLayerBaseline {
  revision: string;
  traceFile: ReturnType<typeof baselineTraceFile>;
}

export async function traceLayer(trace: GeneratedTrace, repeats: number, baseline?: TraceLayerBaseline): Promise<string> {
  const text = exportTrace(trace);
  const imported = importTrace(text);
  if (imported.events.length !== trace.events.length) throw new Error('import lost events');
  if (baseline && baseline.traceFile.exportTrace(trace) !== text) throw new Error(`the export differs from ${baseline.revision}'s`);
  const findings = computeFindings(trace.header, trace.events).map((f) => f.id);
  const steps = ['computeFindings', 'exportTrace', 'importTrace', 'encodeBatch (snapshot columns)'];
  if (baseline) steps.push(`exportTrace of ${baseline.revision}`, `importTrace of ${baseline.revision}`);
  const samples = await interleaved(steps, repeats, async (step): Promise<Timing> => {
    if (step === 'computeFindings') return timeSync(() => void computeFindings(trace.header, trace.events));
    if (step === 'exportTrace') return timeSync(() => void exportTrace(trace));
    if (step === 'importTrace') return timeSync(() => void importTrace(text));
    if (step.startsWith('encodeBatch')) return timeSync(() => void encodeBatch(trace.events));
    if (step.startsWith('exportTrace of')) return timeSync(() => void baseline!.traceFile.exportTrace(trace));
    return timeSync(() => void baseline!.traceFile.importTrace(text));
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
