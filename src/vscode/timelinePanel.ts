/**
 * The timeline as an editor-area panel (webview-sample pattern): one panel per session, a
 * static viewType, createOrShow/revive, and a serializer that restores a panel after a reload.
 * A reload restarts the extension host, so the panel's informer is gone: a restored panel shows
 * the most recent session if one exists already, otherwise says why it is empty; the next session
 * shown (Inspect, Replay, autostart) takes over such an empty restored panel instead of opening a
 * second one.
 */
import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { TimelineWebviewBinding } from './timelineWebview';
import { timelineHtml, webviewOptions } from './webviewContent';

const RESTORED_EMPTY_MESSAGE =
  'The informer this panel showed stopped when the window reloaded (informers run in the extension host). ' +
  'Run "Informer Inspector: Inspect informer" to start one again — it will show here — or "Open trace" for an exported trace.';

const STOPPED_SUFFIX = ' (stopped by reload)';

export class TimelinePanel extends Disposable {
  static readonly viewType = 'informerInspector.timeline';
  private static readonly panels = new Map<string, TimelinePanel>();

  static createOrShow(extensionUri: vscode.Uri, registry: SessionRegistry, session: InformerSession): TimelinePanel {
    const existing = TimelinePanel.panels.get(session.id);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const vacant = [...TimelinePanel.panels.values()].find((p) => p.binding.sessionId === undefined);
    if (vacant) {
      vacant.adopt(session);
      vacant.panel.reveal();
      return vacant;
    }
    const panel = vscode.window.createWebviewPanel(TimelinePanel.viewType, panelTitle(session), vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new TimelinePanel(panel, extensionUri, registry, session);
  }

  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, registry: SessionRegistry): TimelinePanel {
    panel.webview.options = webviewOptions(extensionUri);
    const active = registry.active;
    // The most recent session already has its own panel: this restored one stays empty.
    const session = active && !TimelinePanel.panels.has(active.id) ? active : undefined;
    if (session) panel.title = panelTitle(session);
    // The old title names an informer that no longer runs.
    else if (!panel.title.endsWith(STOPPED_SUFFIX)) panel.title = `${panel.title}${STOPPED_SUFFIX}`;
    return new TimelinePanel(panel, extensionUri, registry, session);
  }

  private readonly binding: TimelineWebviewBinding;
  private key: string;

  /** Every open panel, for the extension's subscriptions: disposed on deactivate. */
  static disposeAll(): void {
    for (const p of [...TimelinePanel.panels.values()]) p.dispose();
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    registry: SessionRegistry,
    session: InformerSession | undefined,
  ) {
    super();
    this.key = session?.id ?? `restored-${Date.now()}`;
    TimelinePanel.panels.set(this.key, this);
    panel.iconPath = { light: vscode.Uri.joinPath(extensionUri, 'media', 'timeline-light.svg'), dark: vscode.Uri.joinPath(extensionUri, 'media', 'timeline-dark.svg') };
    panel.webview.html = timelineHtml(panel.webview, extensionUri, panel.title);
    this.track(toDisposable(() => TimelinePanel.panels.delete(this.key)));
    this.track(panel);
    // The tab names the session the panel shows, also after the session picker switched it.
    this.binding = this.track(new TimelineWebviewBinding(panel.webview, registry, session, false, RESTORED_EMPTY_MESSAGE, (s) => (panel.title = panelTitle(s))));
    this.track(panel.onDidDispose(() => this.dispose()));
    this.track(panel.onDidChangeViewState((e) => this.binding.setVisible(e.webviewPanel.visible)));
  }

  /** An empty restored panel takes on a session. */
  private adopt(session: InformerSession): void {
    TimelinePanel.panels.delete(this.key);
    this.key = session.id;
    TimelinePanel.panels.set(this.key, this);
    this.panel.title = panelTitle(session);
    this.binding.show(session);
  }
}

function panelTitle(session: InformerSession): string {
  return `Timeline: ${session.title}`;
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
