/**
 * Every session the front-end knows (each with a title no other session has), the one most
 * recently started or opened (what the bottom view shows), the one a visible timeline shows (what
 * commands offer first), and a change event for views and status.
 *
 * Bounded: at most `limit` sessions are kept. Adding one more forgets the oldest ended session,
 * or, when all are running, stops and forgets the oldest. An imported trace is forgotten when
 * its editor closes (remove()). A forgotten session is closed (InformerSession.close(): stopped,
 * its spill segment deleted).
 */
import type { SessionInfo } from '../protocol/timeline';
import { Disposable, Emitter } from './disposable';
import type { InformerSession } from './session';
import { uniqueTitle } from './sessionPick';

export const DEFAULT_SESSION_LIMIT = 20;

export class SessionRegistry extends Disposable {
  /** In the order added. */
  private readonly sessions = new Map<string, InformerSession>();
  private readonly endSubscriptions = new Map<string, () => void>();
  private counter = 0;
  private shownId: string | undefined;
  private readonly changed = this.track(new Emitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(readonly limit = DEFAULT_SESSION_LIMIT) {
    super();
    if (!(limit >= 1)) throw new RangeError(`session limit must be at least 1, got ${limit}`);
  }

  newId(): string {
    return `s${++this.counter}-${Date.now().toString(36)}`;
  }

  add(s: InformerSession): void {
    s.title = uniqueTitle(s.title, this.all().map((o) => o.title));
    this.sessions.set(s.id, s);
    this.endSubscriptions.set(s.id, s.onEnded(() => this.changed.fire()));
    while (this.sessions.size > this.limit) {
      const oldest = [...this.sessions.values()].find((x) => !x.live && x !== s) ?? this.sessions.values().next().value!;
      this.forget(oldest);
    }
    this.changed.fire();
  }

  /** Stops the session if it runs and forgets it. */
  remove(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.forget(s);
    this.changed.fire();
  }

  get(id: string): InformerSession | undefined {
    return this.sessions.get(id);
  }

  /** The session added last that is still known. */
  get active(): InformerSession | undefined {
    let last: InformerSession | undefined;
    for (const s of this.sessions.values()) last = s;
    return last;
  }

  /** The session a timeline on screen shows (the one most recently shown in a visible view), if it is still known. */
  get shown(): InformerSession | undefined {
    return this.shownId === undefined ? undefined : this.sessions.get(this.shownId);
  }

  setShown(id: string | undefined): void {
    if (id !== undefined) this.shownId = id;
  }

  /** No single session is on screen (a compare view of several is): commands then ask, the status bar sums. */
  clearShown(): void {
    this.shownId = undefined;
  }

  get size(): number {
    return this.sessions.size;
  }

  all(): InformerSession[] {
    return [...this.sessions.values()];
  }

  running(): InformerSession[] {
    return this.all().filter((s) => s.live);
  }

  infos(): SessionInfo[] {
    return this.all().map((s) => s.info());
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled(this.running().map((s) => s.stop()));
  }

  /** Stops every session and releases what each kept (spill segments). */
  async closeAll(): Promise<void> {
    await Promise.allSettled(this.all().map((s) => s.close()));
  }

  protected override onDispose(): void {
    void this.closeAll();
  }

  private forget(s: InformerSession): void {
    this.sessions.delete(s.id);
    this.endSubscriptions.get(s.id)?.();
    this.endSubscriptions.delete(s.id);
    // Stops it if it runs and deletes its spill segment: a forgotten session cannot be exported.
    void s.close();
  }
}
