/**
 * The timeline in the bottom panel, next to the debug console. It always shows the session
 * started or opened last. When hidden it gets nothing; shown again, a full snapshot.
 */
import * as vscode from 'vscode';
import { Disposable, DisposableStore } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import { newestRunning } from '../app/sessionPick';
import { TimelineWebviewBinding } from './timelineWebview';
import { timelineHtml, webviewOptions } from './webviewContent';

export class TimelineViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'informerInspector.timelineView';
  static readonly containerId = 'informerInspector';
  /** What the view resolved last holds: its binding and its listeners, released together. */
  private current: DisposableStore | undefined;
  private binding: TimelineWebviewBinding | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
  ) {
    super();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = timelineHtml(view.webview, this.extensionUri, 'Informer timeline');
    // VS Code resolves the view again after it was disposed (panel closed and reopened): the
    // previous view's binding and listeners go with it, so nothing accumulates.
    this.current?.dispose();
    const store = new DisposableStore();
    this.current = store;
    const binding = store.add(new TimelineWebviewBinding(view.webview, this.registry, this.registry.active, true));
    this.binding = binding;
    store.add(view.onDidChangeVisibility(() => binding.setVisible(view.visible)));
    store.add(
      view.onDidDispose(() => {
        store.dispose();
        if (this.current === store) {
          this.current = undefined;
          this.binding = undefined;
        }
      }),
    );
  }

  /** Opens the bottom panel on this view. */
  static async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${TimelineViewProvider.viewId}.focus`);
  }

  /**
   * Opens the bottom panel on the newest running informer (when a debug session starts, the
   * informer at work matters, not a trace opened last); the session opened last when none runs.
   */
  async revealRunning(): Promise<void> {
    await TimelineViewProvider.reveal();
    const running = newestRunning(this.registry.all());
    if (running && this.binding && this.binding.sessionId !== running.id) this.binding.show(running);
  }

  protected override onDispose(): void {
    this.current?.dispose();
    this.current = undefined;
  }
}

