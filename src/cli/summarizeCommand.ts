/**
 * `informer-inspector summarize TRACE.json`: the trace header, the findings (src/trace/findings.ts,
 * most severe first, each with its evidence seqs and advice), then how many events of each type
 * the trace holds.
 */
import { BadInputError } from '../app/errors';
import { computeFindings, readTrace } from '../app/traces';
import { jsonOutput, jsonText, parseCommandArgs } from './args';
import { formatFindings } from './findingsText';
import { EXIT_OK, fileLabel, readInput, UsageError, type CliIo } from './io';

export function summarizeCommand(args: string[], io: CliIo): number {
  const parsed = parseCommandArgs('summarize', args, {}, 1);
  const path = parsed.positionals[0];
  if (!path) throw new UsageError('summarize: missing TRACE.json');
  const text = readInput(io, path, 'trace');
  let trace: ReturnType<typeof readTrace>;
  try {
    trace = readTrace(text);
  } catch (e) {
    if (e instanceof BadInputError) throw new UsageError(`trace ${fileLabel(path)}: ${e.message}`);
    throw e;
  }
  const h = trace.header;
  const counts = new Map<string, number>();
  for (const e of trace.events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  const sortedCounts = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (jsonOutput(parsed)) {
    io.stdout(jsonText({ header: h, events: trace.events.length, spanMs: spanMs(trace.events), findings: computeFindings(h, trace.events), eventsByType: Object.fromEntries(sortedCounts) }));
    return EXIT_OK;
  }
  const res = [h.resource.group, h.resource.version, h.resource.resource].filter(Boolean).join('/');
  const out = [
    `trace ${fileLabel(path)}: ${h.source}, profile ${h.profile}, resource ${res}${h.namespace ? ` in ${h.namespace}` : ''}${h.context ? `, context ${h.context}` : ''}`,
    `started ${h.startedAt}; ${trace.events.length} events${h.dropped ? ` (${h.dropped} dropped, cap ${h.cap})` : ''}; span ${spanMs(trace.events)} ms`,
  ];
  out.push(...formatFindings(computeFindings(h, trace.events)));
  out.push('events by type:');
  for (const [type, n] of sortedCounts) out.push(`  ${String(n).padStart(7)}  ${type}`);
  io.stdout(out.join('\n') + '\n');
  return EXIT_OK;
}

function spanMs(events: readonly { t: number }[]): number {
  return events.length ? Math.round(events[events.length - 1].t - events[0].t) : 0;
}
