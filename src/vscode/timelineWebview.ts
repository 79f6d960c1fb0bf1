/**
 * Binds one vscode.Webview (panel, bottom view or trace editor) to a TimelineStream: validates
 * every incoming message with the protocol guards (anything else is ignored), answers the
 * export and event-diff requests, and follows the registry when `followActive` (the bottom view shows whatever
 * was started last; a panel or editor stays on its own session).
 */
import * as vscode from 'vscode';
import { EventDiffRequest, ExportTraceRequest, OpenLinkCommand, ReadyCommand, SelectSessionCommand, SpillRangeRequest, type EventRef, type SpillRangeParams, type SpillRangeResult, type SnapshotParts } from '../protocol/timeline';
import type { IpcMessage } from '../protocol/ipc';
import { Disposable, toDisposable } from '../app/disposable';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { TimelineStream } from './timelineStream';
import { exportSessionTrace } from './traceCommands';

export const NO_SESSION_MESSAGE = 'No informer yet. Run "Informer Inspector: Inspect informer", "Replay scenario" or "Open trace".';

/** The answer to an event-diff request (a timeline or the compare view): the diff of that session's event, or none. */
export async function eventDiffAnswer(registry: SessionRegistry, ref: EventRef, id: number): Promise<IpcMessage> {
  const s = registry.get(ref.sessionId);
  const diff = s ? await s.diffFor(ref.seq).catch(() => undefined) : undefined;
  return EventDiffRequest.completion.create(diff ? { diff } : {}, id);
}

/**
 * The answer to a spill-range request (a timeline or the compare view): the spilled events of
 * [t0, t1] as columns, read and encoded off this thread (session.spilledColumns), or one line
 * saying why there are none.
 */
export async function spillRangeAnswer(registry: SessionRegistry, p: SpillRangeParams, id: number): Promise<IpcMessage> {
  const s = registry.get(p.sessionId);
  let r: SpillRangeResult;
  if (!s) r = { t0: p.t0, t1: p.t1, complete: false, message: 'That session is gone.' };
  else {
    try {
      r = await s.spilledColumns(p.t0, p.t1);
    } catch (e) {
      r = { t0: p.t0, t1: p.t1, complete: false, message: `Could not read the spilled events: ${String((e as Error)?.message ?? e).split('\n')[0]}` };
    }
  }
  return SpillRangeRequest.completion.create(r, id);
}

export class TimelineWebviewBinding extends Disposable {
  private readonly stream: TimelineStream;
  private visible = true;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly registry: SessionRegistry,
    initial: InformerSession | undefined,
    private readonly followActive: boolean,
    emptyMessage = NO_SESSION_MESSAGE,
    /** Called with each session the view switches to (a panel names it in its title). */
    private readonly onShown?: (s: InformerSession) => void,
  ) {
    super();
    this.stream = new TimelineStream(
      (msg) => void this.webview.postMessage(msg),
      () => registry.infos(),
      emptyMessage,
    );
    this.track(toDisposable(() => this.stream.dispose()));
    this.stream.show(initial);
    this.markShown();
    this.track(webview.onDidReceiveMessage((msg: unknown) => this.onMessage(msg)));
    this.track(
      registry.onDidChange(() => {
        if (this.followActive && registry.active && registry.active.id !== this.stream.sessionId) this.show(registry.active);
        this.stream.sessionsChanged();
      }),
    );
  }

  get sessionId(): string | undefined {
    return this.stream.sessionId;
  }

  /** Sends the snapshot before the webview asks for it (TimelineStream.prime): call it right after its page was set. */
  prime(parts?: SnapshotParts): void {
    this.stream.prime(parts);
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.stream.setVisible(visible);
    this.markShown();
  }

  show(session: InformerSession | undefined): void {
    this.stream.show(session);
    this.markShown();
    if (session) this.onShown?.(session);
  }

  /** A visible view tells the registry which session is on screen (commands offer it first). */
  private markShown(): void {
    if (this.visible) this.registry.setShown(this.stream.sessionId);
  }

  private onMessage(msg: unknown): void {
    if (ReadyCommand.is(msg)) {
      this.stream.onReady();
    } else if (SelectSessionCommand.is(msg)) {
      const s = this.registry.get(msg.params.sessionId);
      if (s) this.show(s);
    } else if (OpenLinkCommand.is(msg)) {
      const uri = vscode.Uri.parse(msg.params.url, true);
      if (uri.scheme === 'https') void vscode.env.openExternal(uri);
    } else if (EventDiffRequest.is(msg) && msg.id !== undefined) {
      void eventDiffAnswer(this.registry, msg.params, msg.id).then((answer) => this.webview.postMessage(answer));
    } else if (SpillRangeRequest.is(msg) && msg.id !== undefined) {
      void spillRangeAnswer(this.registry, msg.params, msg.id).then((answer) => this.webview.postMessage(answer));
    } else if (ExportTraceRequest.is(msg) && msg.id !== undefined) {
      const id = msg.id;
      const s = this.registry.get(msg.params.sessionId);
      void (s ? exportSessionTrace(s) : Promise.resolve({ ok: false, message: 'That session is gone.' })).then((r) =>
        this.webview.postMessage(ExportTraceRequest.completion.create(r, id)),
      );
    }
  }
}
