/**
 * Every session the extension knows, the one most recently started or opened (what the bottom
 * view shows and what commands act on by default), and a change event for views and the status bar.
 */
import * as vscode from 'vscode';
import type { SessionInfo } from '../protocol/timeline';
import type { InformerSession } from './session';

export class SessionRegistry implements vscode.Disposable {
  private readonly sessions = new Map<string, InformerSession>();
  private latest: InformerSession | undefined;
  private counter = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  newId(): string {
    return `s${++this.counter}-${Date.now().toString(36)}`;
  }

  add(s: InformerSession): void {
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
