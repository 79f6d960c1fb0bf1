/**
 * Every session the extension knows (each with a title no other session has), the one most
 * recently started or opened (what the bottom view shows), the one a visible timeline shows (what
 * commands offer first), and a change event for views and the status bar.
 */
import * as vscode from 'vscode';
import type { SessionInfo } from '../protocol/timeline';
import type { InformerSession } from './session';
import { uniqueTitle } from './sessionPick';

export class SessionRegistry implements vscode.Disposable {
  private readonly sessions = new Map<string, InformerSession>();
  private latest: InformerSession | undefined;
  private counter = 0;
  private shownId: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  newId(): string {
    return `s${++this.counter}-${Date.now().toString(36)}`;
  }

  add(s: InformerSession): void {
    s.title = uniqueTitle(s.title, this.all().map((o) => o.title));
    this.sessions.set(s.id, s);
    this.latest = s;
    s.onEnded(() => this.changed.fire());
    this.changed.fire();
  }

  get(id: string): InformerSession | undefined {
    return this.sessions.get(id);
  }

  get active(): InformerSession | undefined {
    return this.latest;
  }

  /** The session a timeline on screen shows (the one most recently shown in a visible view), if it still exists. */
  get shown(): InformerSession | undefined {
    return this.shownId === undefined ? undefined : this.sessions.get(this.shownId);
  }

  setShown(id: string | undefined): void {
    if (id !== undefined) this.shownId = id;
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

  dispose(): void {
    void this.stopAll();
    this.changed.dispose();
  }
}
