/** A status bar item: how many informers run and how many relists they have had (the sessions' summaries). */
import * as vscode from 'vscode';
import type { SessionRegistry } from './sessions';
import { statusText } from './statusText';

export class InformerStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('informerInspector.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly registry: SessionRegistry) {
    this.item.name = 'Informer Inspector';
    this.item.command = 'informerInspector.showTimeline';
    this.disposables.push(registry.onDidChange(() => this.update()));
    // Relist counts change with events; a slow poll is cheaper than a listener per emit.
    this.timer = setInterval(() => this.update(), 1000);
    this.update();
  }

  update(): void {
    const running = this.registry.running();
    if (running.length === 0) {
      this.item.hide();
      return;
    }
    const { text, tooltip, relists } = statusText(running);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = relists > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.item.dispose();
  }
}
