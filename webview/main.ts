/**
 * The webview's entry and its actions layer: the only code that talks to the host. It applies
 * snapshots and deltas to the model, asks for a fresh snapshot when a delta does not follow on
 * (afterSeq mismatch), and persists only UI state (window, follow, selection) with setState.
 * A live session's timeline ends at the host's engine time (`nowT` on snapshots and deltas, and
 * the ~1/s `clock` heartbeat), an ended or imported one at its last event.
 */
import {
  ClockNotification,
  DeltaNotification,
  EmptyNotification,
  ExportTraceRequest,
  OpenLinkCommand,
  ReadyCommand,
  SelectSessionCommand,
  SessionsNotification,
  SnapshotNotification,
  isTimelineUiState,
  type SessionInfo,
  type TimelineUiState,
} from '../src/protocol/timeline';
import type { IpcMessage } from '../src/protocol/ipc';
import type { Finding } from '../src/format/trace';
import { eventDetails } from './model/details';
import { TimelineSummary } from './model/summary';
import { TimelineData } from './model/timelineData';
import { renderLegend } from './render/legend';
import { el, renderDetails, renderFindings, renderSummary, Toolbar } from './render/panels';
import { TimelineView } from './render/timelineView';

interface VsCodeApi {
  postMessage(msg: IpcMessage): void;
  getState(): unknown;
  setState(state: TimelineUiState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const saved = vscode.getState();
const ui: TimelineUiState = isTimelineUiState(saved) ? saved : { follow: true };

const data = new TimelineData();
const summary = new TimelineSummary();
let findings: Finding[] = [];
let session: SessionInfo | undefined;
let sessions: SessionInfo[] = [];
let nextRequestId = 1;
const pending = new Map<number, (ok: boolean, message: string) => void>();

const app = document.getElementById('app') ?? document.body;
const headerEl = app.appendChild(el('header', 'summary'));
headerEl.setAttribute('aria-label', 'Summary');
const toolbarEl = app.appendChild(el('div', 'toolbar'));
toolbarEl.setAttribute('role', 'toolbar');
const emptyEl = app.appendChild(el('p', 'empty'));
const chartEl = app.appendChild(el('section', 'chart'));
const lower = app.appendChild(el('div', 'lower'));
const detailsEl = lower.appendChild(el('section', 'details'));
detailsEl.setAttribute('aria-live', 'polite');
detailsEl.setAttribute('aria-label', 'Event details');
const findingsEl = lower.appendChild(el('section', 'findings-pane'));
findingsEl.setAttribute('aria-label', 'Findings');
const statusEl = app.appendChild(el('p', 'status'));
statusEl.setAttribute('role', 'status');

renderLegend(chartEl);
const view = new TimelineView(chartEl, data, {
  onSelect: (seq) => {
    ui.selectedSeq = seq;
    saveUi();
    showDetails(seq);
  },
  onFollowChange: (follow) => {
    ui.follow = follow;
    toolbar.setFollow(follow);
    saveUi();
  },
});

const toolbar = new Toolbar(toolbarEl, {
  onSession: (id) => {
    if (id && id !== session?.id) vscode.postMessage(SelectSessionCommand.create({ sessionId: id }));
  },
  onFollow: (follow) => view.setFollow(follow),
  onZoom: (factor) => view.zoomBy(factor),
  onReset: () => view.resetZoom(),
  onExport: () => {
    if (!session) return;
    const id = nextRequestId++;
    pending.set(id, (_ok, message) => (statusEl.textContent = message));
    vscode.postMessage(ExportTraceRequest.create({ sessionId: session.id }, id));
  },
});
toolbar.setFollow(ui.follow);

function saveUi(): void {
  if (!ui.follow) ui.window = view.window();
  else delete ui.window;
  vscode.setState(ui);
}

function showDetails(seq: number | undefined): void {
  const e = seq === undefined ? undefined : data.bySeq(seq);
  renderDetails(detailsEl, e ? eventDetails(data, e) : undefined);
}

function refreshPanels(): void {
  // Without a session the chips would show zeros and "idle (ended)" for nothing: hide them.
  headerEl.style.display = toolbarEl.style.display = session ? '' : 'none';
  renderSummary(headerEl, summary.snapshot(), findings.length, session);
}

function setEmpty(message: string | undefined): void {
  emptyEl.textContent = message ?? '';
  emptyEl.hidden = message === undefined;
  chartEl.hidden = lower.hidden = message !== undefined;
}

function showFindings(): void {
  renderFindings(
    findingsEl,
    findings,
    (seq) => {
      view.selectSeq(seq);
      ui.selectedSeq = seq;
      showDetails(seq);
    },
    (url) => vscode.postMessage(OpenLinkCommand.create({ url })),
  );
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const msg = ev.data;
  if (SnapshotNotification.is(msg)) {
    const p = msg.params;
    const sameSession = session?.id === p.session.id;
    session = p.session;
    sessions = p.sessions;
    data.reset();
    summary.reset();
    data.append(p.events);
    data.setLive(p.session.live);
    if (p.nowT !== undefined) data.advanceNow(p.nowT);
    for (const e of p.events) summary.add(e);
    findings = p.findings;
    setEmpty(p.events.length === 0 ? 'Waiting for the first events…' : undefined);
    toolbar.setSessions(sessions, session.id);
    toolbar.setLive(session.live);
    view.dataChanged();
    // Restore the UI state that belongs to this session (a restored panel, a re-shown view).
    const restore = sameSession || ui.sessionId === p.session.id;
    ui.sessionId = p.session.id;
    if (restore && ui.selectedSeq !== undefined) view.selectSeq(ui.selectedSeq);
    if (restore && !ui.follow && ui.window) view.showWindow(ui.window[0], ui.window[1]);
    view.setFollow(restore ? ui.follow : true);
    showDetails(restore ? ui.selectedSeq : undefined);
    showFindings();
    refreshPanels();
    saveUi();
  } else if (DeltaNotification.is(msg)) {
    const p = msg.params;
    if (p.sessionId !== session?.id) return;
    if (p.afterSeq !== data.lastSeq) {
      // Missed a batch (or the host restarted its stream): ask for a full snapshot.
      vscode.postMessage(ReadyCommand.create({}));
      return;
    }
    if (p.events.some((e) => e.type === 'trace.dropped')) {
      // The recorder dropped its oldest events: re-sync so this view holds no more than the recorder's cap.
      vscode.postMessage(ReadyCommand.create({}));
      return;
    }
    data.append(p.events);
    data.setLive(p.live);
    if (p.nowT !== undefined) data.advanceNow(p.nowT);
    for (const e of p.events) summary.add(e);
    if (p.findings) {
      findings = p.findings;
      showFindings();
    }
    if (session.live !== p.live) {
      session = { ...session, live: p.live };
      toolbar.setLive(p.live);
    }
    if (data.eventCount > 0) setEmpty(undefined);
    view.dataChanged();
    refreshPanels();
  } else if (ClockNotification.is(msg)) {
    // A live session's heartbeat: the timeline (current state, open watch, follow-live) reaches now.
    if (msg.params.sessionId !== session?.id || !session.live) return;
    data.advanceNow(msg.params.nowT);
    view.requestRender();
  } else if (SessionsNotification.is(msg)) {
    sessions = msg.params.sessions;
    toolbar.setSessions(sessions, session?.id);
  } else if (EmptyNotification.is(msg)) {
    session = undefined;
    data.reset();
    summary.reset();
    setEmpty(msg.params.message);
    refreshPanels();
  } else if (ExportTraceRequest.completion.is(msg) && msg.id !== undefined) {
    pending.get(msg.id)?.(msg.params.ok, msg.params.message);
    pending.delete(msg.id);
  }
});

setEmpty('Loading…');
refreshPanels();
vscode.postMessage(ReadyCommand.create({}));
