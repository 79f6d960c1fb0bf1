/**
 * *.informer-trace.json files open in the timeline through a custom read-only editor. A file
 * that is not a valid trace shows the importer's one-line reason in the view and as an error
 * message; the extension host never throws on it.
 */
import * as vscode from 'vscode';
import { EmptyNotification, ReadyCommand } from '../protocol/timeline';
import { DisposableStore, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { TimelineWebviewBinding } from './timelineWebview';
import { importedSession, readTraceText } from './traceCommands';
import { timelineHtml, webviewOptions } from './webviewContent';

class TraceDocument implements vscode.CustomDocument {
  constructor(
    readonly uri: vscode.Uri,
    readonly load: Promise<{ ok: true; text: string } | { ok: false; message: string }>,
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
    const load = readTraceText(uri).then(
      (text) => ({ ok: true as const, text }),
      (e: unknown) => ({ ok: false as const, message: e instanceof Error ? e.message : String(e) }),
    );
    return new TraceDocument(uri, load);
  }

  async resolveCustomEditor(doc: TraceDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.webview.html = timelineHtml(panel.webview, this.extensionUri, `Trace ${doc.uri.path.split('/').pop() ?? ''}`);
    const loaded = await doc.load;
    let session: InformerSession | undefined;
    let problem = loaded.ok ? undefined : loaded.message;
    if (loaded.ok) {
      try {
        session = await importedSession(this.registry, doc.uri, loaded.text);
      } catch (e) {
        problem = e instanceof Error ? e.message : String(e);
      }
    }
    if (!session) {
      const message = `Cannot open ${doc.uri.path.split('/').pop()}: ${problem}`;
      void vscode.window.showErrorMessage(message);
      const store = new DisposableStore();
      store.add(
        panel.webview.onDidReceiveMessage((msg: unknown) => {
          if (ReadyCommand.is(msg)) void panel.webview.postMessage(EmptyNotification.create({ message }));
        }),
      );
      store.add(panel.onDidDispose(() => store.dispose()));
      return;
    }
    const opened = session;
    const store = new DisposableStore();
    // A closed trace editor's session is forgotten: nothing else shows an imported trace.
    store.add(toDisposable(() => this.registry.remove(opened.id)));
    const binding = store.add(new TimelineWebviewBinding(panel.webview, this.registry, opened, false));
    store.add(panel.onDidChangeViewState((e) => binding.setVisible(e.webviewPanel.visible)));
    store.add(panel.onDidDispose(() => store.dispose()));
  }
}
