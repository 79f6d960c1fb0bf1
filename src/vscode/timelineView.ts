/**
 * The timeline in the bottom panel, next to the debug console. It always shows the session
 * started or opened last. When hidden it gets nothing; shown again, a full snapshot.
 */
import * as vscode from 'vscode';
import type { SessionRegistry } from '../app/registry';
import { TimelineWebviewBinding } from './timelineWebview';
import { timelineHtml, webviewOptions } from './webviewContent';

export class TimelineViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'informerInspector.timelineView';
  static readonly containerId = 'informerInspector';
  private binding: TimelineWebviewBinding | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = timelineHtml(view.webview, this.extensionUri, 'Informer timeline');
    this.binding?.dispose();
    const binding = new TimelineWebviewBinding(view.webview, this.registry, this.registry.active, true);
    this.binding = binding;
    this.disposables.push(
      view.onDidChangeVisibility(() => binding.setVisible(view.visible)),
      view.onDidDispose(() => {
        binding.dispose();
        if (this.binding === binding) this.binding = undefined;
      }),
    );
  }

  /** Opens the bottom panel on this view. */
  static async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${TimelineViewProvider.viewId}.focus`);
  }

  dispose(): void {
    this.binding?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
