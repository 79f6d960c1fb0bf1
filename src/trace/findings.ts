/**
 * Findings (diagnoses): rules that read a trace and explain in plain words what went wrong, with
 * the seqs of the events that show it, advice, and an upstream link. docs/findings.md lists them.
 * Rules live in findings/*.ts; each is a pure function of the trace.
 */
import type { RecordedEvent } from '../format/events';
import type { Finding, TraceHeader } from '../format/trace';
import { accessDenied } from './findings/access';
import { slowHandlers, fifoBacklog, tombstonesDelivered } from './findings/handlers';
import { identicalUpdatesAfterRelist } from './findings/identicalUpdates';
import { clientTimeoutRelist, consistentRelist, expiredRelist, internalErrorRelist, refusedWatchRelist } from './findings/relistCauses';
import { relistStorm } from './findings/relistStorm';
import { staleCache, traceIncomplete, watchCache429 } from './findings/cacheHealth';
import { capEvidence, TraceView, type FindingRule, type TypedEvents } from './findings/types';
import { watchListWithoutBookmark } from './findings/watchList';

export const FINDING_RULES: readonly FindingRule[] = [
  accessDenied,
  relistStorm,
  refusedWatchRelist,
  identicalUpdatesAfterRelist,
  internalErrorRelist,
  clientTimeoutRelist,
  expiredRelist,
  consistentRelist,
  tombstonesDelivered,
  watchListWithoutBookmark,
  slowHandlers,
  fifoBacklog,
  staleCache,
  watchCache429,
  traceIncomplete,
];

const SEVERITY_ORDER: Record<Finding['severity'], number> = { error: 0, warning: 1, info: 2 };

/** Every finding of every rule: errors first, then warnings, then info; within each, by first evidence. */
export function computeFindings(header: TraceHeader, events: readonly RecordedEvent[] | TypedEvents): Finding[] {
  const trace = new TraceView(header, events);
  const out = FINDING_RULES.flatMap((rule) => rule(trace)).map(capEvidence);
  const firstSeq = (f: Finding) => f.evidence[0] ?? Number.MAX_SAFE_INTEGER;
  return out.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || firstSeq(a) - firstSeq(b));
}
