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

export function readTrace(text: string): { header: TraceHeader; events: RecordedEvent[] } {
  try {
    return importTrace(text);
  } catch (e) {
    if (e instanceof TraceFileError) throw new BadInputError(e.message);
    throw e;
  }
}
