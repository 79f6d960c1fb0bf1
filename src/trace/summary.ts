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

  /** Counts e; seq: its seq (e.seq unless given: a recorder counts an event before it carries one). */
  add(e: Ev, seq: number | undefined = e.seq): void {
    const s = this.s;
    switch (e.type) {
      case 'relist':
        s.events++;
        s.relists++;
        this.reasons.set(e.reason, (this.reasons.get(e.reason) ?? 0) + 1);
        this.openRelist = seq ?? -1;
        break;
      case 'list.done':
        s.events++;
        s.lists++;
        this.openRelist = undefined;
        break;
      case 'list.error':
        s.events++;
        if (this.openRelist !== undefined) this.refused.push(this.openRelist);
        this.openRelist = undefined;
        break;
      case 'distribute':
        this.distribute(e.op, e.change);
        break;
      case 'fifo.enqueue':
        this.enqueue(e.t, seq, e.key, e.delta, e.tombstone, e.rv, e.depthKeys, e.depthDeltas);
        break;
      case 'notify':
        this.notify(e.t, seq, e.key, e.rv, e.op, e.tombstone);
        break;
      case 'fifo.pop':
        this.pop(e.depthKeys, e.depthDeltas);
        break;
      case 'rv':
        this.rv(e.rv);
        break;
      case 'synced':
        s.events++;
        s.synced = true;
        break;
      case 'reflector.state':
        s.events++;
        s.state = e.state;
        break;
      case 'watch.start':
        s.events++;
        s.watches++;
        break;
      case 'consistency.check':
        s.events++;
        if (Array.isArray(e.extra)) for (const key of e.extra) this.revealedByCheck(String(key), seq ?? -1);
        break;
      case 'watch.event':
        this.watchEvent(e.t, e.key, e.eventType, e.accepted, e.initialEventsEnd);
        break;
      case 'trace.dropped':
        s.events++;
        s.dropped += Number.isFinite(e.count) ? e.count : 0;
        break;
      default:
        s.events++;
        break;
    }
  }

  // One method per type a recorder packs (recorder.ts counts those events from their fields,
  // without an object); add() counts the same types through them.

  /** A watch.event. */
  watchEvent(t: number, key: string | undefined, eventType: string, accepted: boolean, initialEventsEnd: boolean | undefined): void {
    const s = this.s;
    s.events++;
    if (key && accepted && (eventType === 'ADDED' || eventType === 'MODIFIED')) this.onServer(key, t);
    // A watch-list's initial events end with this bookmark: it stands for the list.
    if (initialEventsEnd) {
      s.lists++;
      this.openRelist = undefined;
    }
  }

  /** An rv event. */
  rv(rv: string): void {
    this.s.events++;
    this.s.currentRv = rv;
  }

  /** A fifo.enqueue. */
  enqueue(t: number, seq: number | undefined, key: string, delta: string, tombstone: string | undefined, rv: string, depthKeys: number, depthDeltas: number): void {
    const s = this.s;
    s.events++;
    if (tombstone) {
      this.tombstoneIds.add(`${key}\u0000${rv}`);
      this.repaired(key, t, seq, true);
    } else if (delta === 'Replaced' || delta === 'Added' || delta === 'Updated') this.onServer(key, t);
    else if (delta === 'Deleted') this.repaired(key, t, seq, false);
    s.fifoKeys = depthKeys;
    s.fifoDeltas = depthDeltas;
  }

  /** A fifo.pop. */
  pop(depthKeys: number, depthDeltas: number): void {
    const s = this.s;
    s.events++;
    s.fifoKeys = depthKeys;
    s.fifoDeltas = depthDeltas;
  }

  /** A distribute. */
  distribute(op: string, change: string | undefined): void {
    const s = this.s;
    s.events++;
    // Syncs count too: after a relist, unchanged objects come back as Replaced deltas whose
    // update notifications are flagged isSync (equal RVs) yet still reach every handler.
    if (op === 'update') {
      s.updates++;
      if (change === 'identical') s.identicalUpdates++;
    }
  }

  /** A notify. */
  notify(t: number, seq: number | undefined, key: string, rv: string, op: string, tombstone: boolean | undefined): void {
    this.s.events++;
    // RealFIFO's atomic relist makes its tombstones when it distributes: they reach the
    // handlers without a FIFO entry. One object's tombstone reaches every handler once.
    if (op === 'delete' && tombstone) {
      this.tombstoneIds.add(`${key}\u0000${rv}`);
      this.repaired(key, t, seq, true);
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
