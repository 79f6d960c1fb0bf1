/** A status bar item: how many informers run and how many relists they have had (the sessions' summaries). */
import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import { statusText } from './statusText';

export class InformerStatusBar extends Disposable {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly item = this.track(vscode.window.createStatusBarItem('informerInspector.status', vscode.StatusBarAlignment.Left, 50));

  constructor(private readonly registry: SessionRegistry) {
    super();
    this.item.name = 'Informer Inspector';
    this.item.command = 'informerInspector.showTimeline';
    this.track(registry.onDidChange(() => this.update()));
    this.track(toDisposable(() => this.timer && clearInterval(this.timer)));
    this.update();
  }

  update(): void {
    const running = this.registry.running();
    // Relist counts change with events; a slow poll is cheaper than a listener per emit, and it
    // runs only while an informer does.
    if (running.length > 0 && !this.timer) this.timer = setInterval(() => this.update(), 1000);
    if (running.length === 0) {
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      this.item.hide();
      return;
    }
    const { text, tooltip, relists } = statusText(running, this.registry.shown?.id);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = relists > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}
