/**
 * *.informer-trace.json files open in the timeline through a custom read-only editor. A file
 * that is not a valid trace shows the importer's one-line reason in the view and as an error
 * message; the extension host never throws on it. A change of the file on disk is reported
 * (watchTraceFile: what it holds now is read by the trace reader's worker) and never replaces
 * what an open editor shows.
 */
import * as vscode from 'vscode';
import { EmptyNotification, ReadyCommand } from '../protocol/timeline';
import { DisposableStore, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { readTrace } from '../app/traces';
import { ColumnarTrace } from '../app/traceColumns';
import { readTraceInWorker } from '../app/traceRead';
import { runJobInWorker } from '../app/traceJobs';
import { TimelineWebviewBinding } from './timelineWebview';
import { importedSession, readTraceText } from './traceCommands';
import { timelineHtml, webviewOptions } from './webviewContent';
import { PartsRelay } from './traceParts';

type Loaded = { ok: true; text: string } | { ok: true; columnar: ColumnarTrace } | { ok: false; message: string };

class TraceDocument implements vscode.CustomDocument {
  /** The trace's columns in blocks while the worker decodes them, for the editors being opened (traceParts.ts). */
  readonly parts = new PartsRelay();
  readonly load: Promise<Loaded>;
  constructor(
    readonly uri: vscode.Uri,
    load: (parts: PartsRelay) => Promise<Loaded>,
  ) {
    this.load = load(this.parts);
    void this.load.finally(() => this.parts.end());
  }
  dispose(): void {}
}

export class TraceEditorProvider implements vscode.CustomReadonlyEditorProvider<TraceDocument> {
  static readonly viewType = 'informerInspector.traceEditor';

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
    /** Where a companion that was not used is noted. */
    private readonly log?: vscode.LogOutputChannel,
    /** Where companions written for opened traces go (the extension's storage); without it, beside the trace. */
    private readonly companionDir?: string,
  ) {}

  openCustomDocument(uri: vscode.Uri): TraceDocument {
    return new TraceDocument(uri, (parts) => this.loadTrace(uri, parts));
  }

  /**
   * A file on disk with a binary companion that belongs to it is read from the companion (no JSON
   * parsed); any other file on disk by the trace reader's worker (src/app/traceRead.ts), which
   * may write its companion; what the worker does not read (another layout, a problem the
   * importer names, another file system) by its text here. What was not used is noted in the log.
   */
  private async loadTrace(uri: vscode.Uri, parts: PartsRelay): Promise<Loaded> {
    if (uri.scheme === 'file') {
      const opened = await ColumnarTrace.open(uri.fsPath, this.companionDir).catch((e: unknown) => ({ reason: e instanceof Error ? e.message : String(e) }));
      if (opened instanceof ColumnarTrace) return { ok: true, columnar: opened };
      if (opened.reason !== undefined) this.log?.info(`${uri.fsPath}: its binary companion is not used (${opened.reason}); reading the JSON`);
      const read = await readTraceInWorker(uri.fsPath, { ...(this.companionDir !== undefined ? { companionDir: this.companionDir } : {}), onBlock: (b) => parts.block(b) });
      if (read instanceof ColumnarTrace) {
        void read.checked.then((c) => {
          if (c.companion) this.log?.info(`${uri.fsPath}: its binary companion was written (${c.companion}); the next open reads it`);
          else if (c.companionReason) this.log?.info(`${uri.fsPath}: no binary companion was written (${c.companionReason})`);
        });
        return { ok: true, columnar: read };
      }
      if (read.reason !== undefined) this.log?.info(`${uri.fsPath}: the trace reader did not read it (${read.reason}); reading the JSON here`);
    }
    try {
      return { ok: true, text: await readTraceText(uri) };
    } catch (e) {
      return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
  }

  /**
   * Sets the page and returns: VS Code builds and shows the webview only once this has
   * resolved, so the trace is read, and its snapshot sent (VS Code holds messages until the page
   * has loaded), while the webview is being built.
   */
  resolveCustomEditor(doc: TraceDocument, panel: vscode.WebviewPanel): void {
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.webview.html = timelineHtml(panel.webview, this.extensionUri, `Trace ${doc.uri.path.split('/').pop() ?? ''}`);
    let closed = false;
    // The columns' blocks go to the page as the worker decodes them (VS Code holds them until the page has loaded).
    const detach = doc.parts.attach(panel, (msg) => void panel.webview.postMessage(msg));
    const closing = panel.onDidDispose(() => (closed = true));
    void this.show(doc, panel, () => closed)
      .catch((e: unknown) => this.log?.error(`${doc.uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        detach();
        closing.dispose();
      });
  }

  /** Shows the trace in the panel once it is read, or why it cannot be read; nothing when the panel was closed meanwhile. */
  private async show(doc: TraceDocument, panel: vscode.WebviewPanel, closed: () => boolean): Promise<void> {
    const loaded = await doc.load;
    let session: InformerSession | undefined;
    let problem = loaded.ok ? undefined : loaded.message;
    if (loaded.ok && !closed()) {
      try {
        session = await importedSession(this.registry, doc.uri, 'columnar' in loaded ? { columnar: loaded.columnar } : { text: loaded.text });
      } catch (e) {
        problem = e instanceof Error ? e.message : String(e);
      }
    }
    if (closed()) {
      if (session) this.registry.remove(session.id);
      return;
    }
    if (!session) {
      const message = `Cannot open ${doc.uri.path.split('/').pop()}: ${problem}`;
      void vscode.window.showErrorMessage(message);
      const store = new DisposableStore();
      const tell = () => void panel.webview.postMessage(EmptyNotification.create({ message }));
      // Now (the page may have asked already) and whenever the page asks.
      tell();
      store.add(
        panel.webview.onDidReceiveMessage((msg: unknown) => {
          if (ReadyCommand.is(msg)) tell();
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
    // The page may still be loading, or may have asked already: the snapshot goes now either way
    // (naming the parts this page got when they are the trace's columns).
    binding.prime('columnar' in loaded ? doc.parts.partsFor(panel, opened.eventCount()) : undefined);
    store.add(panel.onDidChangeViewState((e) => binding.setVisible(e.webviewPanel.visible)));
    store.add(watchTraceFile(doc.uri, opened.eventCount(), () => reopen(panel, doc.uri)));
    store.add(panel.onDidDispose(() => store.dispose()));
  }
}

const REOPEN = 'Reopen';

/**
 * The editor shows the trace as it was read when it opened. When the file changes or goes away
 * on disk, one message per change says so and what the file holds now (the new event count, or
 * why it is no longer a trace); "Reopen" shows the new content. The open editor loses nothing.
 */
function watchTraceFile(uri: vscode.Uri, shownEvents: number, reopenEditor: () => void): vscode.Disposable {
  const name = uri.path.split('/').pop() ?? uri.path;
  const base = vscode.Uri.joinPath(uri, '..');
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, name));
  let pending: ReturnType<typeof setTimeout> | undefined;
  const kept = `this editor keeps showing the trace as it was opened (${shownEvents} events)`;
  const report = async (): Promise<void> => {
    pending = undefined;
    const now = await traceNow(uri);
    if (now.kind === 'counted') {
      const choice = await vscode.window.showInformationMessage(`Informer Inspector: ${name} changed on disk (now ${now.events} events); ${kept}.`, REOPEN);
      if (choice === REOPEN) reopenEditor();
    } else if (now.kind === 'gone') {
      void vscode.window.showWarningMessage(`Informer Inspector: ${name} is gone from disk; ${kept}.`);
    } else {
      void vscode.window.showWarningMessage(`Informer Inspector: ${name} changed on disk and is no longer a trace (${now.message}); ${kept}.`);
    }
  };
  // A save arrives as several events (truncate, write, rename): report once it has settled.
  const changed = () => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(() => void report(), 300);
  };
  const subs = [watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed)];
  return {
    dispose: () => {
      if (pending) clearTimeout(pending);
      for (const d of subs) d.dispose();
      watcher.dispose();
    },
  };
}

/**
 * What the trace file holds now: a file on disk is read by the trace reader's worker, off this
 * thread; a file of another file system here.
 */
async function traceNow(uri: vscode.Uri): Promise<{ kind: 'counted'; events: number } | { kind: 'gone' } | { kind: 'notATrace'; message: string }> {
  if (uri.scheme === 'file') {
    const r = await runJobInWorker({ kind: 'count', path: uri.fsPath });
    // The worker's answer; should it fail (it did not start, the file could not be read), the file is read here.
    if (r.kind === 'counted' || r.kind === 'gone' || r.kind === 'notATrace') return r;
  }
  let text: string;
  try {
    text = await readTraceText(uri);
  } catch {
    return { kind: 'gone' };
  }
  try {
    return { kind: 'counted', events: readTrace(text).events.length };
  } catch (e) {
    return { kind: 'notATrace', message: (e as Error).message };
  }
}

/** Closes the editor and opens the file again, so that it is read afresh. */
function reopen(panel: vscode.WebviewPanel, uri: vscode.Uri): void {
  const column = panel.viewColumn;
  panel.dispose();
  setTimeout(() => void vscode.commands.executeCommand('vscode.openWith', uri, TraceEditorProvider.viewType, column), 100);
}
