/**
 * Feeds one webview (panel or view) from one session, following the timeline protocol: a full
 * snapshot (its events as columns) when the webview says `ready`, when it is shown again or when it switches session;
 * otherwise delta batches, at most one per `intervalMs` (~30/s), each naming the seq it follows.
 * While the webview is hidden nothing is sent (it gets a snapshot when shown). Free of 'vscode'.
 *
 * A live session's timeline ends at now: snapshots and deltas carry the session's engine time
 * (`nowT`), and while the view is ready, visible and its session live, a heartbeat sends a
 * `clock` notification every `heartbeatMs` (one pending timer at most; none once the session
 * ends, the view is hidden or the stream is disposed).
 */
import type { IpcMessage } from '../protocol/ipc';
import { ClockNotification, DeltaNotification, EmptyNotification, SessionsNotification, SnapshotNotification, SnapshotSentNotification, type SessionInfo, type SnapshotParts, type StorageInfo } from '../protocol/timeline';
import type { Finding, FindingsState } from '../format/trace';
import { encodeBatch } from '../protocol/eventColumns';
import { columnsOut } from './columnsOut';
import type { InformerSession } from '../app/session';

/** The session's storage as the webview header shows it (undefined for an imported trace). */
export function storageInfo(s: InformerSession): StorageInfo | undefined {
  const st = s.storage();
  if (!st) return undefined;
  const d = st.spill;
  return {
    memoryEvents: st.memoryEvents,
    dropped: st.dropped,
    ...(d ? { disk: { events: d.events, bytes: d.bytes, maxBytes: d.maxBytes, ...(d.error !== undefined ? { error: d.error } : {}) } } : {}),
  };
}

export interface StreamTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): () => void;
}

export const nodeTimers: StreamTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    return () => clearTimeout(h);
  },
};

export const DEFAULT_BATCH_INTERVAL_MS = 33;
/** How often a visible live view hears the session's engine time when nothing else is sent. */
export const DEFAULT_HEARTBEAT_MS = 1000;

export class TimelineStream {
  private session: InformerSession | undefined;
  private unsubscribe: (() => void) | undefined;
  private unsubscribeEnd: (() => void) | undefined;
  private ready = false;
  /** Snapshots sent so far: each carries its number (`snapshotId`). */
  private snapshots = 0;
  /** The number of the snapshot sent before the webview's first `ready` (prime), until that ready. */
  private primedId: number | undefined;
  private visible = true;
  private lastSentSeq = -1;
  private lastFindings: Finding[] | undefined;
  private lastFindingsState: FindingsState['state'] | undefined;
  private lastLive = false;
  private cancelFlush: (() => void) | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private cancelHeartbeat: (() => void) | undefined;
  private disposed = false;

  constructor(
    private readonly post: (msg: IpcMessage) => void,
    private readonly allSessions: () => SessionInfo[],
    private readonly emptyMessage: string,
    private readonly timers: StreamTimers = nodeTimers,
    private readonly intervalMs = DEFAULT_BATCH_INTERVAL_MS,
    private readonly heartbeatMs = DEFAULT_HEARTBEAT_MS,
  ) {}

  get sessionId(): string | undefined {
    return this.session?.id;
  }

  /** Shows another session (or none); the webview gets a snapshot if it can take one now. */
  show(session: InformerSession | undefined): void {
    if (session === this.session) return;
    this.detach();
    this.session = session;
    if (session) {
      this.unsubscribe = session.subscribe(() => this.scheduleFlush());
      this.unsubscribeEnd = session.onEnded(() => {
        this.syncHeartbeat();
        this.scheduleFlush();
      });
    }
    this.sendSnapshot();
    this.syncHeartbeat();
  }

  /**
   * Sends the snapshot now, before the webview says `ready`: for a webview whose page was just
   * set, so that the snapshot travels while VS Code is still creating it (VS Code holds messages
   * for a page until it has loaded, and the page's script listens before its load ends). The
   * first `ready` after this is answered with `snapshotSent`, naming that snapshot: the page that
   * got it keeps it; a page that did not (the webview was rebuilt meanwhile) asks again and gets
   * a snapshot as always. `parts`: the page was sent the session's events already, as these parts
   * (traceParts.ts): this snapshot names them instead of carrying the columns.
   */
  prime(parts?: SnapshotParts): void {
    if (!this.visible || this.disposed) return;
    this.ready = true;
    this.sendSnapshot(parts);
    this.primedId = this.session ? this.snapshots : undefined;
    this.syncHeartbeat();
  }

  /** The webview's script loaded (or lost track) and wants everything. */
  onReady(): void {
    this.ready = true;
    const primed = this.primedId;
    this.primedId = undefined;
    if (primed !== undefined) this.post(SnapshotSentNotification.create({ snapshotId: primed }));
    else this.sendSnapshot();
    this.syncHeartbeat();
  }

  setVisible(visible: boolean): void {
    if (visible === this.visible) return;
    this.visible = visible;
    // A hidden webview may be rebuilt: its next `ready` may come from a page that never got the primed snapshot.
    this.primedId = undefined;
    if (visible) this.sendSnapshot();
    else this.cancelPending();
    this.syncHeartbeat();
  }

  /** A heartbeat timer is pending (for tests and diagnostics). */
  get heartbeatActive(): boolean {
    return this.cancelHeartbeat !== undefined;
  }

  sessionsChanged(): void {
    if (this.ready && this.visible) this.post(SessionsNotification.create({ sessions: this.allSessions(), activeId: this.session?.id }));
  }

  dispose(): void {
    this.disposed = true;
    this.detach();
  }

  private detach(): void {
    this.cancelPending();
    this.stopHeartbeat();
    this.unsubscribe?.();
    this.unsubscribeEnd?.();
    this.unsubscribe = this.unsubscribeEnd = undefined;
  }

  private cancelPending(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
  }

  /** The heartbeat runs exactly while the view is ready and visible and its session live (with a clock). */
  private heartbeatWanted(): boolean {
    return !this.disposed && this.ready && this.visible && this.session?.engineNow() !== undefined;
  }

  private syncHeartbeat(): void {
    if (!this.heartbeatWanted()) this.stopHeartbeat();
    else if (!this.cancelHeartbeat) this.armHeartbeat();
  }

  private armHeartbeat(): void {
    this.cancelHeartbeat = this.timers.setTimeout(() => {
      this.cancelHeartbeat = undefined;
      this.beat();
    }, this.heartbeatMs);
  }

  private stopHeartbeat(): void {
    this.cancelHeartbeat?.();
    this.cancelHeartbeat = undefined;
  }

  private beat(): void {
    const s = this.session;
    const nowT = s?.engineNow();
    if (!s || nowT === undefined || !this.heartbeatWanted()) return;
    this.post(ClockNotification.create({ sessionId: s.id, nowT }));
    this.armHeartbeat();
  }

  private sendSnapshot(parts?: SnapshotParts): void {
    if (!this.ready || !this.visible) return;
    this.cancelPending();
    const s = this.session;
    if (!s) {
      this.lastSentSeq = -1;
      this.post(EmptyNotification.create({ message: this.emptyMessage }));
      return;
    }
    const findings = s.findings(true);
    const findingsState = s.findingsState();
    const columns = parts && parts.count === s.eventCount() ? undefined : columnsOut(s.columns() ?? encodeBatch(s.events()));
    this.lastSentSeq = s.lastSeq();
    this.lastFindings = findings;
    this.lastFindingsState = findingsState.state;
    this.lastLive = s.live;
    this.lastFlushAt = this.timers.now();
    const nowT = s.engineNow();
    const spill = s.spillOverview();
    const storage = storageInfo(s);
    this.post(
      SnapshotNotification.create({
        session: s.info(),
        snapshotId: ++this.snapshots,
        header: s.header(),
        events: [],
        ...(columns ? { columns } : { parts }),
        findings,
        ...(findingsState.state !== 'ready' ? { findingsState } : {}),
        sessions: this.allSessions(),
        summary: s.summary(),
        ...(nowT !== undefined ? { nowT } : {}),
        ...(spill ? { spill } : {}),
        ...(storage ? { storage } : {}),
      }),
    );
  }

  private scheduleFlush(): void {
    if (!this.ready || !this.visible || this.cancelFlush) return;
    const wait = Math.max(0, this.lastFlushAt + this.intervalMs - this.timers.now());
    this.cancelFlush = this.timers.setTimeout(() => {
      this.cancelFlush = undefined;
      this.flush();
    }, wait);
  }

  private flush(): void {
    const s = this.session;
    if (!s || !this.ready || !this.visible) return;
    const events = s.since(this.lastSentSeq);
    const findings = s.findings(!s.live);
    const findingsState = s.findingsState();
    // Findings that arrived late (or failed) change the state even when the list stays empty.
    const findingsChanged = findings !== this.lastFindings || findingsState.state !== this.lastFindingsState;
    if (events.length === 0 && !findingsChanged && s.live === this.lastLive) return;
    const afterSeq = this.lastSentSeq;
    if (events.length > 0) this.lastSentSeq = events[events.length - 1].seq;
    this.lastFindings = findings;
    this.lastFindingsState = findingsState.state;
    this.lastLive = s.live;
    this.lastFlushAt = this.timers.now();
    const nowT = s.engineNow();
    const storage = storageInfo(s);
    this.post(
      DeltaNotification.create({
        sessionId: s.id,
        afterSeq,
        events,
        live: s.live,
        summary: s.summary(),
        ...(findingsChanged ? { findings, ...(findingsState.state !== 'ready' ? { findingsState } : {}) } : {}),
        ...(nowT !== undefined ? { nowT } : {}),
        ...(storage ? { storage } : {}),
      }),
    );
  }
}
