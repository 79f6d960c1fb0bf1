/**
 * *.informer-trace.json files open in the timeline through a custom read-only editor. A file
 * that is not a valid trace shows the importer's one-line reason in the view and as an error
 * message; the extension host never throws on it.
 */
import * as vscode from 'vscode';
import { EmptyNotification, ReadyCommand } from '../protocol/timeline';
import type { SessionRegistry } from './sessions';
import { TimelineWebviewBinding } from './timelineWebview';
import { importedSession, readTraceFile } from './traceCommands';
import { timelineHtml, webviewOptions } from './webviewContent';

class TraceDocument implements vscode.CustomDocument {
  constructor(
    readonly uri: vscode.Uri,
    readonly load: Promise<{ ok: true; data: Awaited<ReturnType<typeof readTraceFile>> } | { ok: false; message: string }>,
  ) {}
  dispose(): void {}
}

export class TraceEditorProvider implements vscode.CustomReadonlyEditorProvider<TraceDocument> {
  static readonly viewType = 'informerInspector.traceEditor';

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
  ) {}

  openCustomDocument(uri: vscode.Uri): TraceDocument {
    const load = readTraceFile(uri).then(
      (data) => ({ ok: true as const, data }),
      (e: unknown) => ({ ok: false as const, message: e instanceof Error ? e.message : String(e) }),
    );
    return new TraceDocument(uri, load);
  }

  async resolveCustomEditor(doc: TraceDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.webview.html = timelineHtml(panel.webview, this.extensionUri, `Trace ${doc.uri.path.split('/').pop() ?? ''}`);
    const loaded = await doc.load;
    if (!loaded.ok) {
      const message = `Cannot open ${doc.uri.path.split('/').pop()}: ${loaded.message}`;
      void vscode.window.showErrorMessage(message);
      const sub = panel.webview.onDidReceiveMessage((msg: unknown) => {
        if (ReadyCommand.is(msg)) void panel.webview.postMessage(EmptyNotification.create({ message }));
      });
      panel.onDidDispose(() => sub.dispose());
      return;
    }
    const session = importedSession(this.registry, doc.uri, loaded.data);
    const binding = new TimelineWebviewBinding(panel.webview, this.registry, session, false);
    const visibility = panel.onDidChangeViewState((e) => binding.setVisible(e.webviewPanel.visible));
    panel.onDidDispose(() => {
      visibility.dispose();
      binding.dispose();
    });
  }
}
