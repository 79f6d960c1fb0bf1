/**
 * `informer-inspector summarize TRACE.json [--perfetto OUT.json]`: the trace header, the counts
 * (the summary model the extension's header chips and status bar read), the findings
 * (src/trace/findings.ts, most severe first, each with its evidence seqs and advice), then how
 * many events of each type the trace holds. `--perfetto` also writes the trace as Chrome
 * trace-event JSON for ui.perfetto.dev.
 */
import { BadInputError } from '../app/errors';
import { computeFindings, readTrace, SummaryModel, toPerfetto } from '../app/traces';
import type { TraceSummary } from '../format/trace';
import { relistsText } from '../protocol/summary';
import { jsonOutput, jsonText, parseCommandArgs, stringOption } from './args';
import { formatFindings } from './findingsText';
import { EXIT_OK, fileLabel, readInput, UsageError, type CliIo } from './io';

export function summarizeCommand(args: string[], io: CliIo): number {
  const parsed = parseCommandArgs('summarize', args, { perfetto: { type: 'string' } }, 1);
  const path = parsed.positionals[0];
  if (!path) throw new UsageError('summarize: missing TRACE.json');
  const perfetto = stringOption(parsed, 'perfetto');
  if (perfetto === '') throw new UsageError('summarize: --perfetto needs a file name (OUT.json)');
  const text = readInput(io, path, 'trace');
  let trace: ReturnType<typeof readTrace>;
  try {
    trace = readTrace(text);
  } catch (e) {
    if (e instanceof BadInputError) throw new UsageError(`trace ${fileLabel(path)}: ${e.message}`);
    throw e;
  }
  const h = trace.header;
  const summary = SummaryModel.of(trace.events).snapshot();
  if (perfetto !== undefined) io.writeFile(perfetto, JSON.stringify(toPerfetto(h, trace.events)));
  const counts = new Map<string, number>();
  for (const e of trace.events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  const sortedCounts = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (jsonOutput(parsed)) {
    io.stdout(
      jsonText({
        header: h,
        events: trace.events.length,
        spanMs: spanMs(trace.events),
        summary,
        findings: computeFindings(h, trace.events),
        eventsByType: Object.fromEntries(sortedCounts),
        ...(perfetto !== undefined ? { perfetto } : {}),
      }),
    );
    return EXIT_OK;
  }
  const res = [h.resource.group, h.resource.version, h.resource.resource].filter(Boolean).join('/');
  const out = [
    `trace ${fileLabel(path)}: ${h.source}, profile ${h.profile}, resource ${res}${h.namespace ? ` in ${h.namespace}` : ''}${h.context ? `, context ${h.context}` : ''}`,
    `started ${h.startedAt}; ${trace.events.length} events${h.dropped ? ` (${h.dropped} dropped, cap ${h.cap})` : ''}; span ${spanMs(trace.events)} ms`,
  ];
  out.push(...summaryLines(summary));
  out.push(...formatFindings(computeFindings(h, trace.events)));
  out.push('events by type:');
  for (const [type, n] of sortedCounts) out.push(`  ${String(n).padStart(7)}  ${type}`);
  if (perfetto !== undefined) out.push(`Perfetto trace written to ${fileLabel(perfetto)} (open it in https://ui.perfetto.dev)`);
  io.stdout(out.join('\n') + '\n');
  return EXIT_OK;
}

function spanMs(events: readonly { t: number }[]): number {
  return events.length ? Math.round(events[events.length - 1].t - events[0].t) : 0;
}

/** The counts, with the same names and texts as the timeline's header chips. */
export function summaryLines(s: TraceSummary): string[] {
  const share = s.updates === 0 ? '' : ` (${Math.round(s.identicalShare * 100)}% of updates)`;
  return [
    'summary:',
    `  relists: ${relistsText(s)}`,
    `  lists: ${s.lists}; watches: ${s.watches}`,
    `  identical updates: ${s.identicalUpdates}${share}`,
    `  tombstones: ${s.tombstones}`,
    `  synced: ${s.synced ? 'yes' : 'no'}; last RV: ${s.currentRv || '—'}`,
  ];
}
