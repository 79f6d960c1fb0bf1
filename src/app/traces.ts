/**
 * Trace files and findings for the front-ends: export, import (a file from elsewhere fails with
 * one BadInputError line, never another exception) and the findings of a trace.
 */
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { importTrace, TraceFileError } from '../trace/traceFile';
import { BadInputError } from './errors';

export { exportTrace, exportTraceChunks } from '../trace/traceFile';
export { computeFindings } from '../trace/findings';
export { ACCESS_FINDING_IDS } from '../trace/findings/access';
export { SummaryModel } from '../trace/summary';
export { toPerfetto } from '../trace/perfetto';
export { DEFAULT_SPILL_LIMIT_BYTES } from '../trace/segments';

/** Every event of an async source (a spilling recorder's allEvents()), in order, as one array. */
export async function collectEvents(source: AsyncIterable<RecordedEvent>): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of source) out.push(e);
  return out;
}

export function readTrace(text: string): { header: TraceHeader; events: RecordedEvent[] } {
  try {
    return importTrace(text);
  } catch (e) {
    if (e instanceof TraceFileError) throw new BadInputError(e.message);
    throw e;
  }
}
