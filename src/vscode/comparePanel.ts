/**
 * The compare view as an editor-area panel: several sessions on one aligned time axis in one
 * webview (webview/compareApp.ts). The host runs one TimelineStream per compared session into the
 * webview; `ready` (the page loaded, or it lost track of a session) gets every stream's snapshot.
 * A compare panel is not restored after a reload: its informers ran in the old extension host.
 */
import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { EventDiffRequest, ReadyCommand } from '../protocol/timeline';
import { eventDiffAnswer } from './timelineWebview';
import { TimelineStream } from './timelineStream';
import { timelineHtml, webviewOptions } from './webviewContent';

export class ComparePanel extends Disposable {
  static readonly viewType = 'informerInspector.compare';

  static open(extensionUri: vscode.Uri, registry: SessionRegistry, sessions: readonly InformerSession[]): ComparePanel {
    const title = `Compare: ${sessions.map((s) => s.header().profile).join(' vs ')}`;
    const panel = vscode.window.createWebviewPanel(ComparePanel.viewType, title, vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new ComparePanel(panel, extensionUri, registry, sessions, title);
  }

  private readonly streams: TimelineStream[];

  private constructor(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, registry: SessionRegistry, sessions: readonly InformerSession[], title: string) {
    super();
    panel.iconPath = { light: vscode.Uri.joinPath(extensionUri, 'media', 'timeline-light.svg'), dark: vscode.Uri.joinPath(extensionUri, 'media', 'timeline-dark.svg') };
    panel.webview.html = timelineHtml(panel.webview, extensionUri, title, 'compare');
    this.track(panel);
    this.streams = sessions.map((s) => {
      const stream = new TimelineStream((msg) => void panel.webview.postMessage(msg), () => registry.infos(), 'That session is gone.');
      stream.show(s);
      this.track(toDisposable(() => stream.dispose()));
      return stream;
    });
    this.track(
      panel.webview.onDidReceiveMessage((msg: unknown) => {
        if (ReadyCommand.is(msg)) for (const s of this.streams) s.onReady();
        else if (EventDiffRequest.is(msg) && msg.id !== undefined) void panel.webview.postMessage(eventDiffAnswer(registry, msg.params, msg.id));
      }),
    );
    // Several sessions are on screen, none of them "the" one: commands ask, the status bar sums.
    registry.clearShown();
    this.track(
      panel.onDidChangeViewState((e) => {
        this.streams.forEach((s) => s.setVisible(e.webviewPanel.visible));
        if (e.webviewPanel.visible) registry.clearShown();
      }),
    );
    this.track(panel.onDidDispose(() => this.dispose()));
  }
}
