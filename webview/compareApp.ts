/**
 * The compare view: several informers on one aligned time axis in one webview. Each compared
 * session is a labelled group of compact lanes (its own TimelineData and TimelineView); all
 * groups share one time axis (src/protocol/compare.ts lines the sessions up), one window on it
 * (model/sharedWindow.ts: held here once, not copied into each group, so every group draws the
 * same window whenever it draws; moving one group's window moves them all), one brush, one legend
 * and one details pane. The host runs the timeline protocol once per session into this webview:
 * snapshots, deltas and clocks are routed by session id; a delta that does not follow on asks for
 * fresh snapshots.
 * A session that spilled shows its spilled part as the timeline does: the overview zoomed out, and
 * the events themselves read from disk (each group's SpillLoader) when a group's window settles
 * on a spilled range small enough — the same loader, request and host answer as the timeline's.
 */
import { InOrderInbox } from './model/inflate';
import {
  ClockNotification,
  DeltaNotification,
  EventDiffRequest,
  ReadyCommand,
  SnapshotNotification,
  SpillRangeRequest,
  type ClockParams,
  type DeltaParams,
  type SessionInfo,
  type SnapshotParams,
} from '../src/protocol/timeline';
import { alignSessions, CompareListNotification, type Alignment, type CompareListParams } from '../src/protocol/compare';
import type { TraceHeader, TraceSummary } from '../src/format/trace';
import type { FieldChange } from '../src/format/events';
import { relistsText } from '../src/protocol/summary';
import type { VsCodeApi } from './app';
import { diffPending, eventDetails } from './model/details';
import { DiffFetch } from './model/diffFetch';
import { keyOf, objectHistory } from './model/history';
import { TimelineData } from './model/timelineData';
import { SpillLoader } from './spillLoader';
import { renderLegend } from './render/legend';
import { el, renderDetails, renderHistory, sessionLabel } from './render/panels';
import { SharedWindow } from './model/sharedWindow';
import { TimelineView } from './render/timelineView';

/** One compared session: its data, its lanes and its heading. */
export interface CompareGroup {
  readonly sessionId: string;
  session: SessionInfo;
  header: TraceHeader;
  summary: TraceSummary | undefined;
  readonly data: TimelineData;
  readonly view: TimelineView;
  /** Reads the spilled range this group's window settles on (as the timeline does). */
  readonly loader: SpillLoader;
  /** Why the last spilled range could not be shown (one line), if it could not. */
  spillMessage?: string;
  readonly head: HTMLElement;
  /** Its view's shared axis; `offset` is where this session's time 0 lies on it. */
  readonly axis: { offset: number };
}

export class CompareApp {
  readonly groups: CompareGroup[] = [];
  private alignment: Alignment = { offsets: [], mode: 'starts' };
  /** The one window every group shows, and whether it follows live. */
  private readonly shown = new SharedWindow();
  private readonly titleEl: HTMLElement;
  private readonly groupsEl: HTMLElement;
  /** The compared sessions that are gone (after a window reload), one line each. */
  private readonly goneEl: HTMLElement;
  private readonly detailsEl: HTMLElement;
  private readonly followBox: HTMLInputElement;
  private nextRequestId = 1;
  /** The diffs of updates, asked of the host on selection (a snapshot's columns carry none). */
  private readonly diffs: DiffFetch;
  /** The event the details pane shows. */
  private selected: { group: CompareGroup; seq: number } | undefined;

  constructor(
    private readonly vscode: VsCodeApi,
    root: HTMLElement,
  ) {
    root.classList.add('compare');
    this.diffs = new DiffFetch((m) => this.vscode.postMessage(m), () => this.nextRequestId++);
    this.titleEl = root.appendChild(el('h2', 'compare-title', 'Compare: waiting for the informers…'));
    const toolbar = root.appendChild(el('div', 'toolbar'));
    toolbar.setAttribute('role', 'toolbar');
    const label = toolbar.appendChild(el('label', 'compare-follow'));
    this.followBox = label.appendChild(el('input'));
    this.followBox.type = 'checkbox';
    this.followBox.checked = true;
    label.append(' Follow live');
    this.followBox.addEventListener('change', () => this.setFollow(this.followBox.checked));
    const button = (text: string, title: string, fn: () => void) => {
      const b = toolbar.appendChild(el('button', 'filter-button', text));
      b.type = 'button';
      b.title = title;
      b.setAttribute('aria-label', title);
      b.addEventListener('click', fn);
    };
    button('−', 'Zoom out (all informers)', () => this.groups[0]?.view.zoomBy(0.5));
    button('+', 'Zoom in (all informers)', () => this.groups[0]?.view.zoomBy(2));
    button('Reset', 'Show the whole time axis and follow live', () => this.resetWindow());
    const legendHost = root.appendChild(el('div', 'compare-legend'));
    renderLegend(legendHost).open = false;
    this.groupsEl = root.appendChild(el('div', 'compare-groups'));
    this.goneEl = root.appendChild(el('ul', 'compare-gone'));
    this.goneEl.setAttribute('aria-label', 'Compared informers that are gone');
    this.detailsEl = root.appendChild(el('section', 'details compare-details'));
    this.detailsEl.setAttribute('aria-live', 'polite');
    this.detailsEl.setAttribute('aria-label', 'Event details');
    this.detailsEl.append(el('p', 'hint', 'Select an event in any informer to see its details and its object\'s history.'));
  }

  start(): void {
    this.vscode.postMessage(ReadyCommand.create({}));
  }

  /** One message from the host, taken in the order they came (a snapshot's deflated columns inflated first: model/inflate.ts). */
  handle(msg: unknown): void {
    this.inbox.handle(msg);
  }

  private readonly inbox = new InOrderInbox((msg) => this.take(msg));

  private take(msg: unknown): void {
    if (SnapshotNotification.is(msg)) this.onSnapshot(msg.params);
    else if (DeltaNotification.is(msg)) this.onDelta(msg.params);
    else if (ClockNotification.is(msg)) this.onClock(msg.params);
    else if (EventDiffRequest.completion.is(msg) && msg.id !== undefined) this.onDiff(msg.id, msg.params.diff);
    else if (CompareListNotification.is(msg)) this.onList(msg.params);
    else if (SpillRangeRequest.completion.is(msg) && msg.id !== undefined) {
      const id = msg.id;
      this.groups.some((g) => g.loader.onResult(id, msg.params));
    }
  }

  /**
   * What the view compares: kept with setState (a window reload restores the view from it), and
   * those that are gone said plainly, one line each (their groups of lanes cannot come back).
   */
  private onList(p: CompareListParams): void {
    this.vscode.setState({ compared: p.compared });
    const lines = p.gone.map((i) => {
      const c = p.compared[i];
      const why = c.file !== undefined ? 'its trace file could not be read again' : 'its informer ran in the extension host before the window reloaded; start it again and compare anew';
      const li = el('li', 'compare-gone-item');
      li.dataset.profile = c.profile;
      li.append(el('span', 'compare-name', `${c.profile} · ${c.title}`), el('span', 'chip loud', 'gone'), el('span', 'compare-gone-why', why));
      return li;
    });
    this.goneEl.replaceChildren(...lines);
    if (p.gone.length === p.compared.length) {
      this.titleEl.textContent =
        p.compared.length === 0 ? 'Compare: nothing to restore (this view kept no list of its informers)' : `Compare: none of the ${p.compared.length} compared informers is left`;
    }
  }

  /** The alignment in use ("wall clock" or "starts") and each group's offset, in group order. */
  get aligned(): Alignment {
    return this.alignment;
  }

  /** The shared axis [t0, t1]: every group's first event to its end, in shared time. */
  sharedDomain(): [number, number] {
    const withData = this.groups.filter((g) => g.data.eventCount > 0);
    if (withData.length === 0) return [0, 1000];
    const t0 = Math.min(...withData.map((g) => g.data.firstT + g.axis.offset));
    const t1 = Math.max(t0 + 1000, ...withData.map((g) => g.data.endT + g.axis.offset));
    const live = withData.some((g) => g.data.live);
    return [t0, t1 + (live ? 0 : (t1 - t0) * 0.02)];
  }

  private group(session: SessionInfo, header: TraceHeader): CompareGroup {
    const found = this.groups.find((g) => g.sessionId === session.id);
    if (found) return found;
    const section = this.groupsEl.appendChild(el('section', 'compare-group'));
    const head = section.appendChild(el('div', 'compare-head'));
    const data = new TimelineData();
    const loader = new SpillLoader(
      (m) => this.vscode.postMessage(m),
      data,
      () => session.id,
      (message) => this.onSpillLoaded(g, message),
    );
    // The shared axis reads this group's offset, which realign() sets on the axis object.
    const axis = {
      offset: 0,
      domain: () => this.sharedDomain(),
      window: () => this.shown.window(this.sharedDomain()),
      following: () => this.shown.follow,
      moveTo: (t0: number, t1: number, drawn: [number, number]) => {
        this.shown.moveTo(t0, t1, drawn);
        this.redrawAll();
      },
      setFollow: (follow: boolean) => this.setFollow(follow),
      reset: () => this.resetWindow(),
    };
    const view: TimelineView = new TimelineView(
      section,
      data,
      {
        onSelect: (seq) => this.showDetails(g, seq),
        // On the shared axis the view asks the axis (above), which says follow changes here.
        onFollowChange: () => undefined,
        onWindow: (t0, t1) => loader.windowChanged(t0, t1),
      },
      axis,
    );
    const g: CompareGroup = { sessionId: session.id, session, header, summary: undefined, data, view, loader, head, axis };
    view.setCompact(true);
    this.groups.push(g);
    return g;
  }

  private onSnapshot(p: SnapshotParams): void {
    const g = this.group(p.session, p.header);
    g.session = p.session;
    g.header = p.header;
    g.summary = p.summary;
    const loaded = g.data.loadedRange;
    g.data.reset();
    g.loader.reset();
    // The spilled part first (its seqs precede the snapshot's), keeping a range already loaded.
    g.data.setSpill(p.spill, loaded ? { ...loaded } : undefined);
    this.diffs.forget(p.session.id);
    // A snapshot's events come as columns (src/protocol/eventColumns.ts); a malformed batch leaves the group empty.
    if (p.columns !== undefined && !g.data.appendColumns(p.columns)) g.data.reset();
    g.data.append(p.events);
    g.data.staleWindows = p.summary?.staleWindows ?? [];
    g.data.setLive(p.session.live);
    if (p.nowT !== undefined) g.data.advanceNow(p.nowT);
    this.realign();
    this.renderHead(g);
    this.showFollow();
    this.renderAll();
  }

  private onDelta(p: DeltaParams): void {
    const g = this.groups.find((x) => x.sessionId === p.sessionId);
    if (!g) return;
    if (!g.data.applyDelta(p)) {
      this.vscode.postMessage(ReadyCommand.create({}));
      return;
    }
    if (p.summary) g.summary = p.summary;
    g.session = { ...g.session, live: p.live };
    this.renderHead(g);
    this.showFollow();
    // Only this group's lanes changed; the others redraw for the shared domain, which may have grown.
    g.view.dataChanged();
    for (const other of this.groups) if (other !== g) other.view.requestRender();
  }

  /** A group's spilled range arrived (or could not be read): it redraws, the others keep the shared axis. */
  private onSpillLoaded(g: CompareGroup, message: string | undefined): void {
    g.spillMessage = message;
    this.renderHead(g);
    g.view.dataChanged();
    for (const other of this.groups) if (other !== g) other.view.requestRender();
  }

  private onClock(p: ClockParams): void {
    const g = this.groups.find((x) => x.sessionId === p.sessionId);
    if (!g || !g.session.live) return;
    g.data.advanceNow(p.nowT);
    for (const x of this.groups) x.view.requestRender();
  }

  private realign(): void {
    this.alignment = alignSessions(this.groups.map((g) => g.header));
    this.groups.forEach((g, i) => (g.axis.offset = this.alignment.offsets[i] ?? 0));
    const n = this.groups.length;
    const how = this.alignment.mode === 'wall clock' ? 'aligned on wall-clock time' : 'starts aligned (virtual time, or recorded far apart)';
    this.titleEl.textContent = `Compare: ${n} informer${n === 1 ? '' : 's'} on one time axis · ${how}`;
  }

  private renderAll(): void {
    // The shared domain may have grown with any group: every view redraws.
    for (const g of this.groups) g.view.dataChanged();
  }

  private redrawAll(): void {
    for (const g of this.groups) g.view.requestRender();
  }

  /** Follow live on or off for every group, keeping the window shown on the axis as it is now. */
  private setFollow(follow: boolean): void {
    if (this.shown.setFollow(follow, this.sharedDomain())) this.redrawAll();
    this.showFollow();
  }

  /** The Follow live box: checked while following, and only while some compared session is live (ended ones have nothing new to follow). */
  private showFollow(): void {
    const live = this.groups.some((g) => g.session.live);
    this.followBox.disabled = !live;
    this.followBox.checked = live && this.shown.follow;
    this.followBox.title = live ? 'Keep the newest events in view' : 'Every compared session has ended: there is nothing new to follow';
  }

  private resetWindow(): void {
    this.shown.reset();
    this.showFollow();
    this.redrawAll();
  }

  /** The group's heading: which informer (profile first: that is what differs) and its main counts. */
  private renderHead(g: CompareGroup): void {
    const s = g.summary;
    const title = el('span', 'compare-name', `${g.header.profile} · ${sessionLabel(g.session)}`);
    const chips: HTMLElement[] = [title];
    if (s) {
      const chip = (k: string, label: string, value: string, loud = false) => {
        const c = el('span', loud ? 'chip loud' : 'chip');
        c.dataset.k = k;
        c.append(el('span', 'chip-label', label), el('span', 'chip-value', value));
        return c;
      };
      chips.push(
        chip('relists', 'Relists', relistsText(s), s.relists > 0),
        chip('lists', 'Lists', String(s.lists)),
        chip('watches', 'Watches', String(s.watches)),
        chip('identical', 'Identical updates', String(s.identicalUpdates), s.identicalUpdates > 0),
        chip('tombstones', 'Tombstones', String(s.tombstones), s.tombstones > 0),
        chip('state', 'Reflector', s.state + (g.session.live ? '' : ' (ended)')),
      );
    }
    if (g.data.spilledEvents > 0) {
      const loaded = g.data.loadedRange;
      const c = el('span', g.spillMessage ? 'chip loud' : 'chip');
      c.dataset.k = 'spilled';
      c.title = g.spillMessage ?? 'Events that left memory for the spill segment: zoom into them to read them from disk.';
      c.append(el('span', 'chip-label', 'On disk'), el('span', 'chip-value', loaded ? `${g.data.spilledEvents} (${loaded.batch.count} loaded)` : String(g.data.spilledEvents)));
      chips.push(c);
    }
    g.head.replaceChildren(...chips);
    g.head.dataset.profile = g.header.profile;
  }

  /** Selects a session's event, as a click on its mark does. */
  select(sessionId: string, seq: number): void {
    const g = this.groups.find((x) => x.sessionId === sessionId);
    if (!g) return;
    g.view.selectSeq(seq);
    this.showDetails(g, seq);
  }

  /** A diff from the host: shown if its event is still the selected one. */
  private onDiff(id: number, diff: FieldChange[] | undefined): void {
    const ref = this.diffs.answered(id, diff);
    const sel = this.selected;
    if (ref && sel && sel.group.sessionId === ref.sessionId && sel.seq === ref.seq) this.showDetails(sel.group, sel.seq);
  }

  private showDetails(g: CompareGroup, seq: number | undefined): void {
    const e = seq === undefined ? undefined : g.data.bySeq(seq);
    this.selected = e ? { group: g, seq: e.seq } : undefined;
    const details = e ? eventDetails(g.data, e) : undefined;
    if (e && details && diffPending(g.data, e)) details.diff = this.diffs.get(g.sessionId, e.seq)?.diff;
    renderDetails(this.detailsEl, details);
    if (e) this.detailsEl.prepend(el('p', 'compare-from', `${g.header.profile} · ${g.session.title}`));
    const key = e ? keyOf(e) : undefined;
    if (key === undefined) return;
    const { rows, total } = objectHistory(g.data, key);
    renderHistory(this.detailsEl, key, rows, total, (s) => {
      g.view.selectSeq(s);
      this.showDetails(g, s);
    });
  }
}
