/**
 * The compare view as an editor-area panel: several sessions on one aligned time axis in one
 * webview (webview/compareApp.ts). The host runs one TimelineStream per compared session into the
 * webview; `ready` (the page loaded, or it lost track of a session) gets the list of what is
 * compared and every stream's snapshot.
 *
 * After a window reload the serializer revives the panel from the view's state (the compared
 * sessions by trace identity, src/protocol/compare.ts). Informers ran in the old extension host,
 * so a live, sandbox, replayed or observed session is back only if a session with the same trace
 * exists; an imported trace is read again from its file. The rest are listed as gone, and one
 * that shows up later (its trace editor restored, say) joins the view.
 */
import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { CompareListNotification, comparedSession, isCompareViewState, isSameSession, type ComparedSession } from '../protocol/compare';
import { EventDiffRequest, ReadyCommand, SpillRangeRequest } from '../protocol/timeline';
import { importedSession, readTraceText, traceFileOf } from './traceCommands';
import { TimelineStream } from './timelineStream';
import { eventDiffAnswer, spillRangeAnswer } from './timelineWebview';
import { timelineHtml, webviewOptions } from './webviewContent';

const STOPPED_SUFFIX = ' (stopped by reload)';

export class ComparePanel extends Disposable {
  static readonly viewType = 'informerInspector.compare';

  static open(extensionUri: vscode.Uri, registry: SessionRegistry, sessions: readonly InformerSession[]): ComparePanel {
    const compared = sessions.map((s) => comparedSession(s.header(), s.title, traceFileOf(s)?.toString()));
    const title = compareTitle(compared);
    const panel = vscode.window.createWebviewPanel(ComparePanel.viewType, title, vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new ComparePanel(panel, extensionUri, registry, compared, sessions);
  }

  /** A panel VS Code restored after a reload, with the state its view kept (anything else restores nothing). */
  static async revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, registry: SessionRegistry, state: unknown): Promise<ComparePanel> {
    panel.webview.options = webviewOptions(extensionUri);
    const compared = isCompareViewState(state) ? state.compared : [];
    const sessions: (InformerSession | undefined)[] = [];
    for (const c of compared) sessions.push(await findOrReopen(registry, c));
    // Without a list (a state that is not the view's) the tab keeps the title VS Code restored.
    const title = compared.length > 0 ? compareTitle(compared) : panel.title.replace(STOPPED_SUFFIX, '');
    panel.title = sessions.some((s) => s !== undefined) ? title : `${title}${STOPPED_SUFFIX}`;
    return new ComparePanel(panel, extensionUri, registry, compared, sessions);
  }

  /** One stream per compared session; undefined while that session is gone. */
  private readonly streams: (TimelineStream | undefined)[];
  private ready = false;
  private visible = true;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
    private readonly compared: readonly ComparedSession[],
    sessions: readonly (InformerSession | undefined)[],
  ) {
    super();
    panel.iconPath = { light: vscode.Uri.joinPath(extensionUri, 'media', 'timeline-light.svg'), dark: vscode.Uri.joinPath(extensionUri, 'media', 'timeline-dark.svg') };
    panel.webview.html = timelineHtml(panel.webview, extensionUri, panel.title, 'compare');
    this.track(panel);
    this.streams = compared.map(() => undefined);
    sessions.forEach((s, i) => s && this.attach(i, s));
    this.track(toDisposable(() => this.streams.forEach((s) => s?.dispose())));
    this.track(
      panel.webview.onDidReceiveMessage((msg: unknown) => {
        if (ReadyCommand.is(msg)) this.onReady();
        else if (EventDiffRequest.is(msg) && msg.id !== undefined) void eventDiffAnswer(registry, msg.params, msg.id).then((answer) => panel.webview.postMessage(answer));
        else if (SpillRangeRequest.is(msg) && msg.id !== undefined) void spillRangeAnswer(registry, msg.params, msg.id).then((answer) => panel.webview.postMessage(answer));
      }),
    );
    // A gone session that shows up again (a restored trace editor read its file) joins the view.
    this.track(registry.onDidChange(() => this.adoptReturned()));
    // Several sessions are on screen, none of them "the" one: commands ask, the status bar sums.
    registry.clearShown();
    this.track(
      panel.onDidChangeViewState((e) => {
        this.visible = e.webviewPanel.visible;
        this.streams.forEach((s) => s?.setVisible(this.visible));
        if (this.visible) registry.clearShown();
      }),
    );
    this.track(panel.onDidDispose(() => this.dispose()));
  }

  private attach(i: number, session: InformerSession): void {
    const stream = new TimelineStream((msg) => void this.panel.webview.postMessage(msg), () => this.registry.infos(), 'That session is gone.');
    stream.setVisible(this.visible);
    stream.show(session);
    if (this.ready) stream.onReady();
    this.streams[i] = stream;
  }

  private onReady(): void {
    this.ready = true;
    this.postList();
    for (const s of this.streams) s?.onReady();
  }

  private postList(): void {
    if (!this.ready) return;
    const gone = this.streams.flatMap((s, i) => (s ? [] : [i]));
    void this.panel.webview.postMessage(CompareListNotification.create({ compared: [...this.compared], gone }));
  }

  private adoptReturned(): void {
    let adopted = false;
    this.compared.forEach((c, i) => {
      if (this.streams[i]) return;
      const s = this.registry.all().find((x) => isSameSession(c, x.header()) && !this.shows(x));
      if (!s) return;
      this.attach(i, s);
      adopted = true;
    });
    if (!adopted) return;
    if (this.panel.title.endsWith(STOPPED_SUFFIX)) this.panel.title = this.panel.title.slice(0, -STOPPED_SUFFIX.length);
    this.postList();
  }

  private shows(s: InformerSession): boolean {
    return this.streams.some((x) => x?.sessionId === s.id);
  }
}

function compareTitle(compared: readonly ComparedSession[]): string {
  return `Compare: ${compared.map((c) => c.profile).join(' vs ')}`;
}

/** The session of this trace if one is open; else, for an imported trace, its file read again (undefined when it cannot be). */
async function findOrReopen(registry: SessionRegistry, c: ComparedSession): Promise<InformerSession | undefined> {
  const open = registry.all().find((s) => isSameSession(c, s.header()));
  if (open || c.file === undefined) return open;
  try {
    const uri = vscode.Uri.parse(c.file, true);
    const session = await importedSession(registry, uri, { text: await readTraceText(uri) });
    if (isSameSession(c, session.header())) return session;
    // The file now holds another trace: that is not what was compared.
    registry.remove(session.id);
    return undefined;
  } catch {
    return undefined;
  }
}

export class ComparePanelSerializer implements vscode.WebviewPanelSerializer {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: SessionRegistry,
  ) {}

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    await ComparePanel.revive(panel, this.extensionUri, this.registry, state);
  }
}
