/**
 * Feeds one webview (panel or view) from one session, following the timeline protocol: a full
 * snapshot when the webview says `ready`, when it is shown again or when it switches session;
 * otherwise delta batches, at most one per `intervalMs` (~30/s), each naming the seq it follows.
 * While the webview is hidden nothing is sent (it gets a snapshot when shown). Free of 'vscode'.
 */
import type { IpcMessage } from '../protocol/ipc';
import { DeltaNotification, EmptyNotification, SessionsNotification, SnapshotNotification, type SessionInfo } from '../protocol/timeline';
import type { WireFinding } from '../protocol/trace';
import type { InformerSession } from './session';

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

export class TimelineStream {
  private session: InformerSession | undefined;
  private unsubscribe: (() => void) | undefined;
  private unsubscribeEnd: (() => void) | undefined;
  private ready = false;
  private visible = true;
  private lastSentSeq = -1;
  private lastFindings: WireFinding[] | undefined;
  private lastLive = false;
  private cancelFlush: (() => void) | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly post: (msg: IpcMessage) => void,
    private readonly allSessions: () => SessionInfo[],
    private readonly emptyMessage: string,
    private readonly timers: StreamTimers = nodeTimers,
    private readonly intervalMs = DEFAULT_BATCH_INTERVAL_MS,
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
      this.unsubscribeEnd = session.onEnded(() => this.scheduleFlush());
    }
    this.sendSnapshot();
  }

  /** The webview's script loaded (or lost track) and wants everything. */
  onReady(): void {
    this.ready = true;
    this.sendSnapshot();
  }

  setVisible(visible: boolean): void {
    if (visible === this.visible) return;
    this.visible = visible;
    if (visible) this.sendSnapshot();
    else this.cancelPending();
  }

  sessionsChanged(): void {
    if (this.ready && this.visible) this.post(SessionsNotification.create({ sessions: this.allSessions(), activeId: this.session?.id }));
  }

  dispose(): void {
    this.detach();
  }

  private detach(): void {
    this.cancelPending();
    this.unsubscribe?.();
    this.unsubscribeEnd?.();
    this.unsubscribe = this.unsubscribeEnd = undefined;
  }

  private cancelPending(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
  }

  private sendSnapshot(): void {
    if (!this.ready || !this.visible) return;
    this.cancelPending();
    const s = this.session;
    if (!s) {
      this.lastSentSeq = -1;
      this.post(EmptyNotification.create({ message: this.emptyMessage }));
      return;
    }
    const events = [...s.events()];
    const findings = s.findings(true);
    this.lastSentSeq = events.length > 0 ? events[events.length - 1].seq : -1;
    this.lastFindings = findings;
    this.lastLive = s.live;
    this.lastFlushAt = this.timers.now();
    this.post(SnapshotNotification.create({ session: s.info(), header: s.header(), events, findings, sessions: this.allSessions() }));
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
    const findingsChanged = findings !== this.lastFindings;
    if (events.length === 0 && !findingsChanged && s.live === this.lastLive) return;
    const afterSeq = this.lastSentSeq;
    if (events.length > 0) this.lastSentSeq = events[events.length - 1].seq;
    this.lastFindings = findings;
    this.lastLive = s.live;
    this.lastFlushAt = this.timers.now();
    this.post(
      DeltaNotification.create({ sessionId: s.id, afterSeq, events, live: s.live, ...(findingsChanged ? { findings } : {}) }),
    );
  }
}
