/**
 * The webview's actions layer: the only code that talks to the host, through the `vscode` API it
 * is given (acquireVsCodeApi() in main.ts, a fake in tests). It applies snapshots and deltas to
 * the model, asks for a fresh snapshot when a delta does not follow on (afterSeq mismatch) or
 * reports dropped events, and persists only UI state (window, follow, selection) with setState.
 * A live session's timeline ends at the host's engine time (`nowT` on snapshots and deltas, and
 * the ~1/s `clock` heartbeat), an ended or imported one at its last event. A snapshot's events
 * come as columns without diffs; the details of an update ask the host for its diff.
 */
import {
  ClockNotification,
  DeltaNotification,
  EmptyNotification,
  EventDiffRequest,
  ExportTraceRequest,
  OpenLinkCommand,
  ReadyCommand,
  SelectSessionCommand,
  SessionsNotification,
  SnapshotNotification,
  SnapshotPartNotification,
  SnapshotSentNotification,
  SpillRangeRequest,
  isTimelineUiState,
  type ClockParams,
  type DeltaParams,
  type EmptyState,
  type ExportResult,
  type SessionInfo,
  type SessionsParams,
  type SnapshotParams,
  type SnapshotPartParams,
  type StorageInfo,
  type TimelineUiState,
} from '../src/protocol/timeline';
import type { IpcMessage } from '../src/protocol/ipc';
import type { CompareViewState } from '../src/protocol/compare';
import type { Finding, FindingsState, TraceSummary } from '../src/format/trace';
import type { FieldChange } from '../src/format/events';
import { diffPending, eventDetails } from './model/details';
import { TimelineData } from './model/timelineData';
import { renderLegend } from './render/legend';
import { el, LowerTabs, renderDetails, renderFindings, renderHistory, renderSummary, Toolbar } from './render/panels';
import { keyOf, objectHistory } from './model/history';
import { storageHelp, storageValue } from './model/storage';
import { SpillLoader } from './spillLoader';
import { SnapshotPartsIn } from './snapshotParts';
import { InOrderInbox } from './model/inflate';
import { MarkKind } from './model/codes';
import { countMarks, markDrawn, stampOnce } from './pageMarks';
import { FilterBar } from './render/filterBar';
import { TimelineView } from './render/timelineView';

/** The part of the webview API the app uses. */
export interface VsCodeApi {
  postMessage(msg: IpcMessage): void;
  getState(): unknown;
  setState(state: TimelineUiState | CompareViewState): void;
}

/** Views shorter than this (the bottom panel at its default height) use the compact layout. */
export const COMPACT_HEIGHT = 520;

export class TimelineApp {
  readonly data = new TimelineData();
  private readonly ui: TimelineUiState;
  private findings: Finding[] = [];
  /** Present while the session's findings are not known (a trace opened from its JSON shows its timeline first). */
  private findingsState: FindingsState | undefined;
  /** The host's counts of the whole trace (undefined until a snapshot brought them). */
  private summary: TraceSummary | undefined;
  private session: SessionInfo | undefined;
  private sessions: SessionInfo[] = [];
  private nextRequestId = 1;
  /** The host's number of the snapshot shown (SnapshotParams.snapshotId). */
  private snapshotId: number | undefined;
  private readonly pending = new Map<number, (result: ExportResult) => void>();
  /** Diff requests in flight: request id → the seq asked about. */
  private readonly diffRequests = new Map<number, number>();
  /** Diffs the host sent for events of the shown snapshot, by seq. */
  private readonly fetchedDiffs = new Map<number, FieldChange[] | undefined>();

  private readonly headerEl: HTMLElement;
  private readonly toolbarEl: HTMLElement;
  private readonly emptyEl: HTMLElement;
  private readonly chartEl: HTMLElement;
  private readonly lower: HTMLElement;
  private readonly detailsEl: HTMLElement;
  private readonly findingsEl: HTMLElement;
  private readonly statusEl: HTMLElement;
  private readonly view: TimelineView;
  private readonly toolbar: Toolbar;
  private readonly filterBar: FilterBar;
  /** The object keys of the trace, computed when the search box asks and the events changed since. */
  private keysCache: { count: number; lastSeq: number; keys: string[] } | undefined;
  private readonly tabs: LowerTabs;
  private readonly legend: HTMLDetailsElement;
  private readonly root: HTMLElement;
  /** Where the session keeps its events (memory, disk, dropped); undefined for an imported trace. */
  private storage: StorageInfo | undefined;
  private readonly spillLoader: SpillLoader;
  /** The next snapshot's events, sent ahead of it in parts (a trace read from its JSON). */
  private readonly parts = new SnapshotPartsIn(this.data);
  /** Takes the host's messages in order, each deflated one once it is inflated. */
  private readonly inbox = new InOrderInbox((msg) => this.take(msg));

  constructor(
    private readonly vscode: VsCodeApi,
    root: HTMLElement,
  ) {
    const saved = vscode.getState();
    this.ui = isTimelineUiState(saved) ? saved : { follow: true };
    stampOnce(root, 'tScript');

    this.headerEl = root.appendChild(el('header', 'summary'));
    this.headerEl.setAttribute('aria-label', 'Summary');
    this.toolbarEl = root.appendChild(el('div', 'toolbar'));
    this.toolbarEl.setAttribute('role', 'toolbar');
    this.emptyEl = root.appendChild(el('p', 'empty'));
    this.chartEl = root.appendChild(el('section', 'chart'));
    this.lower = root.appendChild(el('div', 'lower'));
    this.findingsEl = this.lower.appendChild(el('section', 'findings-pane'));
    this.findingsEl.setAttribute('aria-label', 'Findings');
    this.detailsEl = this.lower.appendChild(el('section', 'details'));
    this.detailsEl.setAttribute('aria-live', 'polite');
    this.detailsEl.setAttribute('aria-label', 'Event details');
    this.tabs = new LowerTabs(this.lower, this.findingsEl, this.detailsEl);
    this.statusEl = root.appendChild(el('p', 'status'));
    this.statusEl.setAttribute('role', 'status');

    this.legend = renderLegend(this.chartEl);
    this.view = new TimelineView(this.chartEl, this.data, {
      onSelect: (seq) => {
        this.ui.selectedSeq = seq;
        this.saveUi();
        this.showDetails(seq);
        if (seq !== undefined) this.tabs.show('details');
      },
      onFollowChange: (follow) => {
        this.ui.follow = follow;
        this.toolbar.setFollow(follow);
        this.saveUi();
      },
      onWindow: (t0, t1) => this.spillLoader.windowChanged(t0, t1),
    });
    this.spillLoader = new SpillLoader(
      (msg) => this.vscode.postMessage(msg),
      this.data,
      () => this.session?.id,
      (message) => this.onSpillLoaded(message),
    );
    this.toolbar = new Toolbar(this.toolbarEl, {
      onSession: (id) => {
        if (id && id !== this.session?.id) this.vscode.postMessage(SelectSessionCommand.create({ sessionId: id }));
      },
      onFollow: (follow) => this.view.setFollow(follow),
      onZoom: (factor) => this.view.zoomBy(factor),
      onReset: () => this.view.resetZoom(),
      onExport: () => this.exportTrace(),
    });
    this.toolbar.setFollow(this.ui.follow);
    this.filterBar = new FilterBar(this.toolbarEl.appendChild(el('div', 'filterbar')), {
      onFilter: (f) => {
        this.data.setFilter(f);
        this.view.dataChanged();
      },
      onFindKey: (key) => this.findKey(key),
      keys: () => this.objectKeys(),
    });
    this.root = root;
    this.layout();
    window.addEventListener('resize', () => this.layout());
  }

  /** Compact below COMPACT_HEIGHT px: lanes shrink, the panel moves beside the chart, the legend starts closed. */
  private layout(): void {
    const compact = window.innerHeight > 0 && window.innerHeight < COMPACT_HEIGHT;
    if (compact === this.root.classList.contains('compact')) return;
    this.root.classList.toggle('compact', compact);
    this.view.setCompact(compact);
    this.legend.open = !compact;
  }

  /** Shows "Loading…" and asks the host for the first snapshot. */
  start(): void {
    this.setEmpty('Loading…');
    this.refreshPanels();
    this.vscode.postMessage(ReadyCommand.create({}));
  }

  /**
   * One message from the host; anything that is not a known, well-formed message is ignored. A
   * snapshot or part whose columns came deflated is taken once they are inflated (model/inflate.ts),
   * and every message after it waits its turn, so that messages are taken in the order they came.
   */
  handle(msg: unknown): void {
    this.inbox.handle(msg);
  }

  private take(msg: unknown): void {
    if (SnapshotNotification.is(msg)) this.onSnapshot(msg.params);
    else if (SnapshotPartNotification.is(msg)) this.onPart(msg.params);
    else if (SnapshotSentNotification.is(msg)) this.onSnapshotSent(msg.params.snapshotId);
    else if (DeltaNotification.is(msg)) this.onDelta(msg.params);
    else if (ClockNotification.is(msg)) this.onClock(msg.params);
    else if (SessionsNotification.is(msg)) this.onSessions(msg.params);
    else if (EmptyNotification.is(msg)) this.onEmpty(msg.params);
    else if (ExportTraceRequest.completion.is(msg) && msg.id !== undefined) this.onExportDone(msg.id, msg.params);
    else if (EventDiffRequest.completion.is(msg) && msg.id !== undefined) this.onDiff(msg.id, msg.params.diff);
    else if (SpillRangeRequest.completion.is(msg) && msg.id !== undefined) this.spillLoader.onResult(msg.id, msg.params);
  }

  /** A spilled range arrived (or could not be read): redraw, and show the selection if it was waiting for it. */
  private onSpillLoaded(message: string | undefined): void {
    if (message) this.statusEl.textContent = message;
    this.view.dataChanged();
    if (this.ui.selectedSeq !== undefined && this.data.indexOfSeq(this.ui.selectedSeq) >= 0) this.view.selectSeq(this.ui.selectedSeq);
    this.refreshPanels();
    markDrawn(this.root, this.data.eventCount);
  }

  /** The counts the header shows. */
  get shownSummary(): TraceSummary | undefined {
    return this.summary;
  }

  /** The session shown, if any. */
  get currentSession(): SessionInfo | undefined {
    return this.session;
  }

  exportTrace(): void {
    if (!this.session) return;
    const id = this.nextRequestId++;
    this.pending.set(id, (r) => (this.statusEl.textContent = r.message));
    this.vscode.postMessage(ExportTraceRequest.create({ sessionId: this.session.id }, id));
  }

  /** The host answered `ready` with a snapshot it had sent before: asks again unless it is the one shown. */
  private onSnapshotSent(id: number): void {
    if (id !== this.snapshotId) this.vscode.postMessage(ReadyCommand.create({}));
  }

  /** A part of the next snapshot's events (only while no session is shown: a trace editor's first snapshot). */
  private onPart(p: SnapshotPartParams): void {
    if (this.session) return;
    stampOnce(this.root, 'tFirstPart');
    // The trace starts unfiltered (its lanes are built as the parts come).
    if (p.index === 0) this.filterBar.set({});
    const share = this.parts.add(p);
    if (share !== undefined) this.setEmpty(`Loading… ${Math.floor(share * 100)} %`);
  }

  private onSnapshot(p: SnapshotParams): void {
    stampOnce(this.root, 'tSnapshot');
    // Events sent ahead in parts are this snapshot's only when this page holds every one; else it asks again.
    const fromParts = p.parts !== undefined && this.parts.holds(p.parts);
    this.parts.reset();
    if (p.parts && !fromParts) {
      this.data.reset();
      this.vscode.postMessage(ReadyCommand.create({}));
      return;
    }
    this.snapshotId = p.snapshotId;
    const sameSession = this.session?.id === p.session.id;
    const loaded = sameSession ? this.data.loadedRange : undefined;
    this.session = p.session;
    this.sessions = p.sessions;
    this.spillLoader.reset();
    if (!fromParts) {
      this.data.reset();
      // The spilled part first (its seqs precede the snapshot's), keeping a range this session had loaded.
      this.data.setSpill(p.spill, loaded ? { ...loaded } : undefined);
    }
    this.storage = p.storage;
    this.fetchedDiffs.clear();
    this.diffRequests.clear();
    // Another session starts unfiltered (parts were taken in unfiltered); the same one (a fresh snapshot) keeps its filter.
    if (!sameSession && !fromParts) this.filterBar.set({});
    this.summary = p.summary;
    const readable = fromParts || p.columns === undefined || this.data.appendColumns(p.columns);
    this.data.append(p.events);
    this.data.staleWindows = p.summary?.staleWindows ?? [];
    this.data.setLive(p.session.live);
    if (p.nowT !== undefined) this.data.advanceNow(p.nowT);
    this.findings = p.findings;
    this.findingsState = p.findingsState?.state === 'ready' ? undefined : p.findingsState;
    if (!readable) this.data.reset();
    this.setEmpty(!readable ? 'This view could not read the events the extension sent (malformed columns).' : this.data.eventCount === 0 ? 'Waiting for the first events…' : undefined);
    this.toolbar.setSessions(this.sessions, p.session.id);
    this.toolbar.setLive(p.session.live);
    this.view.dataChanged();
    // Restore the UI state that belongs to this session (a restored panel, a re-shown view).
    const restore = sameSession || this.ui.sessionId === p.session.id;
    this.ui.sessionId = p.session.id;
    if (restore && this.ui.selectedSeq !== undefined) this.view.selectSeq(this.ui.selectedSeq);
    if (restore && !this.ui.follow && this.ui.window) this.view.showWindow(this.ui.window[0], this.ui.window[1]);
    this.view.setFollow(restore ? this.ui.follow : true);
    this.showDetails(restore ? this.ui.selectedSeq : undefined);
    this.showFindings();
    this.refreshPanels();
    this.saveUi();
    stampOnce(this.root, 'tApplied');
    markDrawn(this.root, this.data.eventCount);
  }

  private onDelta(p: DeltaParams): void {
    const session = this.session;
    if (!session || p.sessionId !== session.id) return;
    if (!this.data.applyDelta(p)) {
      this.vscode.postMessage(ReadyCommand.create({}));
      return;
    }
    if (p.summary) this.summary = p.summary;
    if (p.storage) this.storage = p.storage;
    if (p.findings) {
      this.findings = p.findings;
      this.findingsState = p.findingsState?.state === 'ready' ? undefined : p.findingsState;
      this.showFindings();
    }
    if (session.live !== p.live) {
      this.session = { ...session, live: p.live };
      this.toolbar.setLive(p.live);
    }
    if (this.data.eventCount > 0) this.setEmpty(undefined);
    this.view.dataChanged();
    this.refreshPanels();
  }

  /** A live session's heartbeat: the timeline (current state, open watch, follow-live) reaches now. */
  private onClock(p: ClockParams): void {
    if (p.sessionId !== this.session?.id || !this.session.live) return;
    this.data.advanceNow(p.nowT);
    this.view.requestRender();
  }

  private onSessions(p: SessionsParams): void {
    this.sessions = p.sessions;
    this.toolbar.setSessions(this.sessions, this.session?.id);
  }

  private onEmpty(p: EmptyState): void {
    this.session = undefined;
    this.snapshotId = undefined;
    this.parts.reset();
    this.data.reset();
    this.spillLoader.reset();
    this.summary = undefined;
    this.storage = undefined;
    this.setEmpty(p.message);
    this.refreshPanels();
  }

  /** A diff from the host: shown if its event is still the selected one. */
  private onDiff(id: number, diff: FieldChange[] | undefined): void {
    const seq = this.diffRequests.get(id);
    if (seq === undefined) return;
    this.diffRequests.delete(id);
    this.fetchedDiffs.set(seq, diff);
    if (this.ui.selectedSeq === seq) this.showDetails(seq);
  }

  private onExportDone(id: number, result: ExportResult): void {
    this.pending.get(id)?.(result);
    this.pending.delete(id);
  }

  private saveUi(): void {
    if (!this.ui.follow) this.ui.window = this.view.window();
    else delete this.ui.window;
    this.vscode.setState(this.ui);
  }

  /** The selected event's details and, when it names an object, that object's whole history. */
  private showDetails(seq: number | undefined): void {
    const e = seq === undefined ? undefined : this.data.bySeq(seq);
    const details = e ? eventDetails(this.data, e) : undefined;
    if (e && details && diffPending(this.data, e)) {
      if (this.fetchedDiffs.has(e.seq)) details.diff = this.fetchedDiffs.get(e.seq);
      else this.requestDiff(e.seq);
    }
    renderDetails(this.detailsEl, details);
    const key = e ? keyOf(e) : undefined;
    if (key === undefined) return;
    const { rows, total } = objectHistory(this.data, key);
    renderHistory(this.detailsEl, key, rows, total, (s) => {
      this.view.selectSeq(s);
      this.ui.selectedSeq = s;
      this.saveUi();
      this.showDetails(s);
    });
  }

  /** Asks the host for an event's diff (a snapshot's columns do not carry diffs). */
  private requestDiff(seq: number): void {
    if (!this.session || [...this.diffRequests.values()].includes(seq)) return;
    const id = this.nextRequestId++;
    this.diffRequests.set(id, seq);
    this.vscode.postMessage(EventDiffRequest.create({ sessionId: this.session.id, seq }, id));
  }

  /** The search box found a key: select its latest event (in view) and show its history. */
  findKey(key: string): void {
    const seq = this.data.jumpTarget(key);
    const e = seq === undefined ? undefined : this.data.bySeq(seq);
    if (seq === undefined || !e) return;
    const [a, b] = this.view.window();
    if (e.t < a || e.t > b) {
      this.view.setFollow(false);
      this.view.showWindow(e.t - (b - a) / 2, e.t + (b - a) / 2);
    }
    this.view.selectSeq(seq);
    this.ui.selectedSeq = seq;
    this.saveUi();
    this.showDetails(seq);
    this.tabs.show('details');
  }

  /** The filter bar (for tests and the compare view). */
  get filters(): FilterBar {
    return this.filterBar;
  }

  private objectKeys(): readonly string[] {
    const c = this.keysCache;
    if (c && c.count === this.data.eventCount && c.lastSeq === this.data.lastSeq) return c.keys;
    const keys = this.data.objectKeys();
    this.keysCache = { count: this.data.eventCount, lastSeq: this.data.lastSeq, keys };
    return keys;
  }

  private refreshPanels(): void {
    // Without a session the chips would show zeros and "idle (ended)" for nothing: hide them.
    this.headerEl.style.display = this.toolbarEl.style.display = this.session ? '' : 'none';
    this.filterBar.setHandlers(this.data.handlerNames);
    if (this.session && this.summary) renderSummary(this.headerEl, this.summary, this.findingsCount(), this.session);
    else this.headerEl.replaceChildren();
    if (this.session && this.storage) this.headerEl.append(this.storageChip(this.storage));
    // What this view holds, for the end-to-end checks that compare it with the host's trace.
    this.headerEl.dataset.events = String(this.data.eventCount);
    this.headerEl.dataset.lastSeq = String(this.data.lastSeq);
    this.headerEl.dataset.firstSeq = String(this.data.eventCount > 0 ? this.data.events.seqAt(0) : -1);
    this.headerEl.dataset.relistMarks = String(countMarks(this.data, MarkKind.Relist));
    this.headerEl.dataset.listMarks = String(countMarks(this.data, MarkKind.List));
    this.headerEl.dataset.spilledEvents = String(this.data.spilledEvents);
    this.headerEl.dataset.loadedEvents = String(this.data.loadedRange?.batch.count ?? 0);
  }

  /** "Events: 2,000 in memory · 18,000 on disk (3.1 MB of 1 GB)"; its tooltip says what search and filters cover. */
  private storageChip(st: StorageInfo): HTMLElement {
    const c = el('span', st.dropped > 0 || st.disk?.error ? 'chip loud' : 'chip');
    c.dataset.k = 'storage';
    const loaded = this.data.loadedRange;
    const spilled = this.data.spilledEvents;
    const scope = spilled === 0 ? '' : loaded ? ' · search: memory + loaded range' : ' · search: memory only';
    c.append(el('span', 'chip-label', 'Events'), el('span', 'chip-value', storageValue(st) + scope));
    c.title = storageHelp(st, loaded ? { events: loaded.batch.count, complete: loaded.complete } : undefined, spilled);
    return c;
  }

  private setEmpty(message: string | undefined): void {
    this.emptyEl.textContent = message ?? '';
    this.emptyEl.hidden = message === undefined;
    this.chartEl.hidden = this.lower.hidden = message !== undefined;
  }

  /** The findings' number, or while they are not known what stands in for it. */
  private findingsCount(): number | string {
    const st = this.findingsState;
    return st === undefined || st.state === 'ready' ? this.findings.length : st.state === 'computing' ? 'computing…' : 'failed';
  }

  /** The line the findings panel shows instead of the findings while they are not known. */
  private findingsNote(): string | undefined {
    const st = this.findingsState;
    if (st === undefined || st.state === 'ready') return undefined;
    return st.state === 'computing' ? 'Findings: computing…' : `The findings could not be computed: ${st.reason}`;
  }

  private showFindings(): void {
    this.tabs.setFindingsCount(this.findingsCount());
    renderFindings(
      this.findingsEl,
      this.findings,
      (seq) => {
        this.view.selectSeq(seq);
        this.ui.selectedSeq = seq;
        this.showDetails(seq);
        this.tabs.show('details');
      },
      (url) => this.vscode.postMessage(OpenLinkCommand.create({ url })),
      this.findingsNote(),
    );
  }
}
