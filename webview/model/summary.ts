/**
 * The header's running totals. Kept incrementally (one `add` per event) so a live session with
 * 200k events never recounts from the start.
 */
import type { ReflectorState, RelistReason, RecordedEvent } from '../../src/format/events';

export interface SummarySnapshot {
  relists: number;
  relistsByReason: [RelistReason, number][];
  /** Updates handed to handlers (distribute op=update, syncs included). */
  updates: number;
  identicalUpdates: number;
  /** identicalUpdates / updates, 0 when there were none. */
  identicalShare: number;
  tombstones: number;
  currentRv: string;
  fifoKeys: number;
  fifoDeltas: number;
  synced: boolean;
  state: ReflectorState | 'idle';
  /** Completed LISTs plus completed watch-list initial syncs. */
  lists: number;
  watches: number;
  events: number;
  dropped: number;
}

export class TimelineSummary {
  private readonly reasons = new Map<RelistReason, number>();
  private relists = 0;
  private updates = 0;
  private identical = 0;
  private tombstones = 0;
  private rv = '';
  private fifoKeys = 0;
  private fifoDeltas = 0;
  private synced = false;
  private state: ReflectorState | 'idle' = 'idle';
  private lists = 0;
  private watches = 0;
  private events = 0;
  private dropped = 0;

  reset(): void {
    this.reasons.clear();
    this.relists = this.updates = this.identical = this.tombstones = 0;
    this.fifoKeys = this.fifoDeltas = this.lists = this.watches = this.events = this.dropped = 0;
    this.rv = '';
    this.synced = false;
    this.state = 'idle';
  }

  add(e: RecordedEvent): void {
    this.events++;
    switch (e.type) {
      case 'relist':
        this.relists++;
        this.reasons.set(e.reason, (this.reasons.get(e.reason) ?? 0) + 1);
        break;
      case 'distribute':
        // Syncs count too: after a relist, unchanged objects come back as Replaced deltas whose
        // update notifications are flagged isSync (equal RVs) yet still reach every handler.
        if (e.op === 'update') {
          this.updates++;
          if (e.change === 'identical') this.identical++;
        }
        break;
      case 'fifo.enqueue':
        if (e.tombstone) this.tombstones++;
        this.fifoKeys = e.depthKeys;
        this.fifoDeltas = e.depthDeltas;
        break;
      case 'fifo.pop':
        this.fifoKeys = e.depthKeys;
        this.fifoDeltas = e.depthDeltas;
        break;
      case 'rv':
        this.rv = e.rv;
        break;
      case 'synced':
        this.synced = true;
        break;
      case 'reflector.state':
        this.state = e.state;
        break;
      case 'list.done':
        this.lists++;
        break;
      case 'watch.start':
        this.watches++;
        break;
      case 'watch.event':
        // A watch-list's initial events end with this bookmark: it stands for the list.
        if (e.initialEventsEnd) this.lists++;
        break;
      case 'trace.dropped':
        this.dropped += e.count;
        break;
      default:
        break;
    }
  }

  snapshot(): SummarySnapshot {
    // String(): a foreign trace may carry a reason that is not a string; it must not break the sort.
    const byReason = [...this.reasons.entries()].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
    return {
      relists: this.relists,
      relistsByReason: byReason,
      updates: this.updates,
      identicalUpdates: this.identical,
      identicalShare: this.updates === 0 ? 0 : this.identical / this.updates,
      tombstones: this.tombstones,
      currentRv: this.rv,
      fifoKeys: this.fifoKeys,
      fifoDeltas: this.fifoDeltas,
      synced: this.synced,
      state: this.state,
      lists: this.lists,
      watches: this.watches,
      events: this.events,
      dropped: this.dropped,
    };
  }
}

/** What each header chip counts, one sentence each: the chip's tooltip (keys are the chips' data-k). */
export const SUMMARY_CHIP_HELP = {
  state: 'The reflector state now: listing, watch-listing, watching, backoff or stopped.',
  relists: 'How many times the reflector threw its watch away and listed everything again, by reason.',
  identical: 'Updates handed to handlers whose old and new objects are identical, and their share of all update notifications.',
  tombstones: 'Deletes queued as tombstones (DeletedFinalStateUnknown) because the informer missed the final state of the object.',
  rv: 'The last resourceVersion the reflector has seen, from a list, a watch event or a bookmark.',
  fifo: 'Keys and deltas waiting in the DeltaFIFO right now, not yet handed to the handlers.',
  synced: 'Whether the initial list has been fully delivered (HasSynced), so the cache can be trusted.',
  lists: 'Completed LISTs, initial and relists, plus completed watch-list initial syncs.',
  watches: 'Watches the reflector opened.',
  findings: 'Problems the analysers recognised in this trace; they are explained below the timeline.',
  dropped: 'Oldest events the recorder dropped because the trace reached its size cap.',
} as const;

export type SummaryChipKey = keyof typeof SUMMARY_CHIP_HELP;
