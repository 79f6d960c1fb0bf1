/**
 * What the header chips mean. The counts themselves come from the host (src/trace/summary.ts,
 * the one summary model the status bar, the findings and the CLI also read) with every snapshot
 * and delta.
 */
import type { TraceSummary } from '../../src/format/trace';

export type SummarySnapshot = TraceSummary;

/** What each header chip counts, one sentence each: the chip's tooltip (keys are the chips' data-k). */
export const SUMMARY_CHIP_HELP = {
  state: 'The reflector state now: listing, watch-listing, watching, backoff or stopped.',
  relists: 'How many times the reflector threw its watch away and listed everything again, by reason; "with the LIST refused" counts relists whose LIST the apiserver or the network refused (they list again after a backoff).',
  identical: 'Updates handed to handlers whose old and new objects are identical, and their share of all update notifications.',
  tombstones: 'Objects deleted as tombstones (DeletedFinalStateUnknown) because the informer missed their final state: queued in the FIFO, or made when an atomic relist is distributed (RealFIFO).',
  rv: 'The last resourceVersion the reflector has seen, from a list, a watch event or a bookmark.',
  fifo: 'Keys and deltas waiting in the DeltaFIFO right now, not yet handed to the handlers.',
  synced: 'Whether the initial list has been fully delivered (HasSynced), so the cache can be trusted.',
  lists: 'Completed LISTs, initial and relists, plus completed watch-list initial syncs.',
  watches: 'Watches the reflector opened.',
  findings: 'Problems the analysers recognised in this trace; they are explained below the timeline.',
  dropped: 'Oldest events the recorder dropped because the trace reached its size cap.',
  stale: 'Objects the cache kept after the server dropped them: from the last time the trace shows the server had the object to its repair (a relist tombstone or a delete). Each has its own row on the timeline.',
} as const;

export type SummaryChipKey = keyof typeof SUMMARY_CHIP_HELP;
