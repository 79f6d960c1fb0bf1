/**
 * The one summary model: a trace's counts, kept incrementally (one `add` per event, so a live
 * session with 200k events never recounts). The header chips, the status bar, the findings and
 * the CLI `summarize` all read it. Pure: no I/O, no clock.
 *
 * A relist "whose LIST was refused" is a relist whose next list outcome is a list.error (the
 * apiserver or the network refused the LIST) rather than a completed list; every client-go
 * version then backs off and relists again, so an outage makes several relists but few lists.
 */
import type { RelistReason, TraceEvent } from '../format/events';
import type { StaleWindow, TraceSummary } from '../format/trace';

/** Stale-cache windows kept per trace (the first ones: a storm of them says the same thing). */
export const MAX_STALE_WINDOWS = 100;

export type { TraceSummary } from '../format/trace';

type Ev = TraceEvent & { seq?: number };

export class SummaryModel {
  private readonly reasons = new Map<RelistReason, number>();
  private readonly tombstoneIds = new Set<string>();
  /** seqs of the relists whose LIST was refused. */
  private readonly refused: number[] = [];
  /** Per key, when the trace last showed the server had the object. */
  private readonly lastOnServer = new Map<string, number>();
  private readonly stale: StaleWindow[] = [];
  /** Open stale windows by key (revealed by a check, not repaired yet). */
  private readonly openStale = new Map<string, StaleWindow>();
  /** The relist waiting for its list outcome. */
  private openRelist: number | undefined;
  private s: Omit<TraceSummary, 'relistsByReason' | 'identicalShare' | 'tombstones' | 'relistsListRefused' | 'staleWindows'> = SummaryModel.zero();

  private static zero() {
    return {
      relists: 0,
      lists: 0,
      watches: 0,
      updates: 0,
      identicalUpdates: 0,
      currentRv: '',
      fifoKeys: 0,
      fifoDeltas: 0,
      synced: false,
      state: 'idle' as TraceSummary['state'],
      events: 0,
      dropped: 0,
    };
  }

  /** The model of a whole trace. */
  static of(events: Iterable<Ev>): SummaryModel {
    const m = new SummaryModel();
    for (const e of events) m.add(e);
    return m;
  }

  reset(): void {
    this.reasons.clear();
    this.tombstoneIds.clear();
    this.refused.length = 0;
    this.openRelist = undefined;
    this.lastOnServer.clear();
    this.stale.length = 0;
    this.openStale.clear();
    this.s = SummaryModel.zero();
  }

  add(e: Ev): void {
    const s = this.s;
    s.events++;
    switch (e.type) {
      case 'relist':
        s.relists++;
        this.reasons.set(e.reason, (this.reasons.get(e.reason) ?? 0) + 1);
        this.openRelist = e.seq ?? -1;
        break;
      case 'list.done':
        s.lists++;
        this.openRelist = undefined;
        break;
      case 'list.error':
        if (this.openRelist !== undefined) this.refused.push(this.openRelist);
        this.openRelist = undefined;
        break;
      case 'distribute':
        // Syncs count too: after a relist, unchanged objects come back as Replaced deltas whose
        // update notifications are flagged isSync (equal RVs) yet still reach every handler.
        if (e.op === 'update') {
          s.updates++;
          if (e.change === 'identical') s.identicalUpdates++;
        }
        break;
      case 'fifo.enqueue':
        if (e.tombstone) {
          this.tombstoneIds.add(`${e.key}\u0000${e.rv}`);
          this.repaired(e.key, e.t, e.seq, true);
        } else if (e.delta === 'Replaced' || e.delta === 'Added' || e.delta === 'Updated') this.onServer(e.key, e.t);
        else if (e.delta === 'Deleted') this.repaired(e.key, e.t, e.seq, false);
        s.fifoKeys = e.depthKeys;
        s.fifoDeltas = e.depthDeltas;
        break;
      case 'notify':
        // RealFIFO's atomic relist makes its tombstones when it distributes: they reach the
        // handlers without a FIFO entry. One object's tombstone reaches every handler once.
        if (e.op === 'delete' && e.tombstone) {
          this.tombstoneIds.add(`${e.key}\u0000${e.rv}`);
          this.repaired(e.key, e.t, e.seq, true);
        }
        break;
      case 'fifo.pop':
        s.fifoKeys = e.depthKeys;
        s.fifoDeltas = e.depthDeltas;
        break;
      case 'rv':
        s.currentRv = e.rv;
        break;
      case 'synced':
        s.synced = true;
        break;
      case 'reflector.state':
        s.state = e.state;
        break;
      case 'watch.start':
        s.watches++;
        break;
      case 'consistency.check':
        if (Array.isArray(e.extra)) for (const key of e.extra) this.revealedByCheck(String(key), e.seq ?? -1);
        break;
      case 'watch.event':
        if (e.key && e.accepted && (e.eventType === 'ADDED' || e.eventType === 'MODIFIED')) this.onServer(e.key, e.t);
        // A watch-list's initial events end with this bookmark: it stands for the list.
        if (e.initialEventsEnd) {
          s.lists++;
          this.openRelist = undefined;
        }
        break;
      case 'trace.dropped':
        s.dropped += Number.isFinite(e.count) ? e.count : 0;
        break;
      default:
        break;
    }
  }

  /** The server has the object at t; a window a check opened for it ends here (the cache got the server's object again). */
  private onServer(key: string, t: number): void {
    this.lastOnServer.set(key, t);
    const open = this.openStale.get(key);
    if (open) {
      open.toT = t;
      this.openStale.delete(key);
    }
  }

  /** A check found the object in the cache only: a window opens from when the server last had it. */
  private revealedByCheck(key: string, seq: number): void {
    if (this.openStale.has(key)) return;
    const from = this.lastOnServer.get(key);
    if (from === undefined) return;
    const w: StaleWindow = { key, fromT: from, revealedBy: 'check', revealSeq: seq };
    this.openStale.set(key, w);
    this.pushStale(w);
  }

  /**
   * The object left the cache at t. A tombstone (a relist found it gone) closes or makes a window
   * from when the server last had it; a plain delete closes a window a check opened.
   */
  private repaired(key: string, t: number, seq: number | undefined, tombstone: boolean): void {
    const open = this.openStale.get(key);
    if (open) {
      open.toT = t;
      this.openStale.delete(key);
    } else if (tombstone) {
      const from = this.lastOnServer.get(key);
      if (from !== undefined) this.pushStale({ key, fromT: from, toT: t, revealedBy: 'relist', revealSeq: seq ?? -1 });
    }
    this.lastOnServer.delete(key);
  }

  private pushStale(w: StaleWindow): void {
    if (this.stale.length < MAX_STALE_WINDOWS) this.stale.push(w);
  }

  /** seqs of the relists whose LIST was refused, in trace order. */
  refusedRelists(): readonly number[] {
    return this.refused;
  }

  snapshot(): TraceSummary {
    // String(): a foreign trace may carry a reason that is not a string; it must not break the sort.
    const byReason = [...this.reasons.entries()]
      .map(([r, n]): [string, number] => [String(r), n])
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return {
      ...this.s,
      relistsByReason: byReason,
      relistsListRefused: this.refused.length,
      identicalShare: this.s.updates === 0 ? 0 : this.s.identicalUpdates / this.s.updates,
      tombstones: this.tombstoneIds.size,
      staleWindows: this.stale.map((w) => ({ ...w })),
    };
  }
}
