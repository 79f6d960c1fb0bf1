/**
 * The timeline as an editor-area panel (webview-sample pattern): one panel per session, a
 * static viewType, createOrShow/revive, and a serializer that restores a panel after a reload
 * (its session is gone then, so it shows the most recent one or the empty state).
 */
import * as vscode from 'vscode';
import type { InformerSession } from './session';
import type { SessionRegistry } from './sessions';
import { TimelineWebviewBinding } from './timelineWebview';
import { timelineHtml, webviewOptions } from './webviewContent';

export class TimelinePanel implements vscode.Disposable {
  static readonly viewType = 'informerInspector.timeline';
  private static readonly panels = new Map<string, TimelinePanel>();

  static createOrShow(extensionUri: vscode.Uri, registry: SessionRegistry, session: InformerSession): TimelinePanel {
    const existing = TimelinePanel.panels.get(session.id);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(TimelinePanel.viewType, `Timeline: ${session.title}`, vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new TimelinePanel(panel, extensionUri, registry, session);
  }

  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, registry: SessionRegistry): TimelinePanel {
    panel.webview.options = webviewOptions(extensionUri);
    return new TimelinePanel(panel, extensionUri, registry, registry.active);
  }

  private readonly binding: TimelineWebviewBinding;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly key: string;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    registry: SessionRegistry,
    session: InformerSession | undefined,
  ) {
    this.key = session?.id ?? `restored-${Date.now()}`;
    TimelinePanel.panels.set(this.key, this);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'timeline.svg');
    panel.webview.html = timelineHtml(panel.webview, extensionUri, panel.title);
    this.binding = new TimelineWebviewBinding(panel.webview, registry, session, false);
    this.disposables.push(
      this.binding,
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState((e) => this.binding.setVisible(e.webviewPanel.visible)),
    );
  }

  dispose(): void {
    TimelinePanel.panels.delete(this.key);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

export class TimelinePanelSerializer implements vscode.WebviewPanelSerializer {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
  ) {}

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    TimelinePanel.revive(panel, this.extensionUri, this.registry);
  }
}
