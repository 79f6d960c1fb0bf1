/**
 * The webview app (webview/app.ts) under happy-dom with a fake `vscode` API: the snapshot /
 * delta / resync protocol as the host sees it (what the app posts back) and as the user sees it
 * (the header chips and the lanes' data).
 */
import { strict as assert } from 'node:assert';
import { registerDom, unregisterDom } from './dom';
import {
  ClockNotification,
  DeltaNotification,
  EmptyNotification,
  EventDiffRequest,
  ExportTraceRequest,
  ReadyCommand,
  SnapshotNotification,
  SnapshotSentNotification,
  type SessionInfo,
  type TimelineUiState,
} from '../../../src/protocol/timeline';
import type { IpcMessage } from '../../../src/protocol/ipc';
import type { RecordedEvent as WireEvent } from '../../../src/format/events';
import type { TraceHeader as WireTraceHeader } from '../../../src/format/trace';
import { SummaryModel } from '../../../src/trace/summary';
import { encodeBatch, type ColumnBatch } from '../../../src/protocol/eventColumns';
import { packColumns, type PackedColumns } from '../../../src/protocol/columnPack';
import { tracksOf } from '../../../webview/model/tracks';
import { cycleTrace } from './fixture';

type AppModule = typeof import('../../../webview/app');

class FakeVsCode {
  readonly posted: IpcMessage[] = [];
  state: unknown;
  constructor(state?: unknown) {
    this.state = state;
  }
  postMessage(msg: IpcMessage): void {
    this.posted.push(msg);
  }
  getState(): unknown {
    return this.state;
  }
  setState(s: TimelineUiState): void {
    this.state = JSON.parse(JSON.stringify(s));
  }
  readies(): number {
    return this.posted.filter((m) => ReadyCommand.is(m)).length;
  }
}

const HEADER = { format: 'informer-trace/v1', profile: 'v1.36', resource: { group: '', version: 'v1', resource: 'configmaps' }, startedAt: '2026-01-01T00:00:00Z', source: 'scenario' } as unknown as WireTraceHeader;
const S1: SessionInfo = { id: 's1', title: 'one', live: true, simulated: false };
const S2: SessionInfo = { id: 's2', title: 'two', live: false, simulated: false };

/** A snapshot as the host sends it: the events as columns (objects only with `asObjects`). */
function snapshot(session: SessionInfo, events: WireEvent[], nowT?: number, asObjects = false) {
  // As the host sends them: columns packed (src/vscode/timelineStream.ts).
  const carried = asObjects ? { events } : { events: [], columns: packColumns(encodeBatch(events)) };
  return SnapshotNotification.create({ session, header: HEADER, ...carried, findings: [], sessions: [S1, S2], nowT, summary: SummaryModel.of(events).snapshot() });
}

function chip(root: { querySelector(s: string): { textContent: string | null } | null }, k: string): string {
  return root.querySelector(`[data-k="${k}"] .chip-value`)?.textContent ?? '';
}

describe('webview app: snapshot / delta / resync protocol (happy-dom)', () => {
  let mod: AppModule;
  const events = cycleTrace();
  const cut = 20;

  before(function () {
    this.timeout(20_000);
    registerDom();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require('../../../webview/app') as AppModule;
  });
  after(async () => {
    await unregisterDom();
  });

  function fresh(state?: unknown) {
    const doc = (globalThis as unknown as { document: { createElement(t: string): HTMLLike; body: { append(e: HTMLLike): void } } }).document;
    const root = doc.createElement('div');
    doc.body.append(root);
    const vscode = new FakeVsCode(state);
    const app = new mod.TimelineApp(vscode, root as never);
    return { app, vscode, root };
  }
  type HTMLLike = { querySelector(s: string): { textContent: string | null } | null };

  it('start asks for a snapshot; a snapshot fills the model and the header', () => {
    const { app, vscode, root } = fresh();
    app.start();
    assert.equal(vscode.readies(), 1);
    app.handle(snapshot(S1, events));
    assert.equal(app.data.eventCount, events.length);
    assert.equal(app.data.lastSeq, events[events.length - 1].seq);
    assert.equal(chip(root, 'relists'), '1 (Expired 1)');
    assert.equal(chip(root, 'lists'), '2');
    assert.equal(app.currentSession?.id, 's1');
  });

  it('snapshotSent: the page that holds that snapshot keeps it; a page that does not asks again', () => {
    const { app, vscode } = fresh();
    app.start();
    const msg = snapshot(S1, events);
    msg.params.snapshotId = 4;
    app.handle(msg);
    app.handle(SnapshotSentNotification.create({ snapshotId: 4 }));
    assert.equal(vscode.readies(), 1, 'it holds snapshot 4: nothing to ask');
    app.handle(SnapshotSentNotification.create({ snapshotId: 5 }));
    assert.equal(vscode.readies(), 2, 'snapshot 5 never arrived here: ready again');
    const other = fresh();
    other.app.start();
    other.app.handle(SnapshotSentNotification.create({ snapshotId: 1 }));
    assert.equal(other.vscode.readies(), 2, 'a page with no snapshot at all asks again');
    assert.equal(app.data.eventCount, events.length);
  });

    it('a delta that follows on is appended; one that does not asks for a resync and changes nothing', () => {
    const { app, vscode } = fresh();
    app.handle(snapshot(S1, events.slice(0, cut)));
    app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: events[cut - 1].seq, events: events.slice(cut, cut + 3), live: true }));
    assert.equal(app.data.eventCount, cut + 3);
    assert.equal(vscode.readies(), 0);
    // A gap: the batch after seq cut+5 arrives while the view has cut+2.
    app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: events[cut + 5].seq, events: events.slice(cut + 6), live: true }));
    assert.equal(app.data.eventCount, cut + 3, 'a batch that does not follow on is not applied');
    assert.equal(vscode.readies(), 1, 'and a fresh snapshot is asked for');
    // The snapshot that answers replaces everything.
    app.handle(snapshot(S1, events));
    assert.equal(app.data.eventCount, events.length);
  });

  it('a delta carrying trace.dropped asks for a resync; deltas for another session are ignored', () => {
    const { app, vscode } = fresh();
    app.handle(snapshot(S1, events.slice(0, cut)));
    const dropped = { seq: events[cut - 1].seq + 1, t: 5000, type: 'trace.dropped', count: 3 } as unknown as WireEvent;
    app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: events[cut - 1].seq, events: [dropped], live: true }));
    assert.equal(vscode.readies(), 1);
    assert.equal(app.data.eventCount, cut);
    app.handle(DeltaNotification.create({ sessionId: 's2', afterSeq: events[cut - 1].seq, events: events.slice(cut), live: false }));
    assert.equal(app.data.eventCount, cut);
    assert.equal(vscode.readies(), 1);
  });

  it('a delta that ends the session makes the header say ended; clock ticks only move a live session', () => {
    const { app, root } = fresh();
    app.handle(snapshot(S1, events.slice(0, cut), 100));
    assert.equal(chip(root, 'relists'), '0');
    assert.equal(app.data.endT, Math.max(100, events[cut - 1].t));
    app.handle(ClockNotification.create({ sessionId: 's1', nowT: 9000 }));
    assert.equal(app.data.endT, 9000);
    app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: events[cut - 1].seq, events: events.slice(cut), live: false, summary: SummaryModel.of(events).snapshot() }));
    assert.equal(chip(root, 'relists'), '1 (Expired 1)', 'the chips show the summary the delta brought');
    assert.match(chip(root, 'state'), /\(ended\)$/);
    const follow = (root as unknown as { querySelector(s: string): { checked: boolean; hasAttribute(a: string): boolean } }).querySelector('vscode-checkbox');
    assert.equal(follow.checked, false, '"Follow live" is unchecked on an ended trace');
    assert.ok(follow.hasAttribute('disabled'), 'and disabled');
    assert.equal(app.data.endT, events[events.length - 1].t, 'an ended session ends at its last event');
    app.handle(ClockNotification.create({ sessionId: 's1', nowT: 20000 }));
    assert.equal(app.data.endT, events[events.length - 1].t);
  });

  it('UI state: selection survives a snapshot of the same session and is dropped for another', () => {
    const sel = events[5].seq;
    const { app, vscode } = fresh({ follow: true, sessionId: 's1', selectedSeq: sel });
    app.handle(snapshot(S1, events));
    assert.equal((vscode.state as TimelineUiState).selectedSeq, sel);
    app.handle(snapshot(S2, events));
    const st = vscode.state as TimelineUiState;
    assert.equal(st.sessionId, 's2');
    assert.equal(st.follow, true);
  });

  it('empty clears the session; export posts a request for the shown session and shows the answer', () => {
    const { app, vscode, root } = fresh();
    app.handle(snapshot(S2, events));
    app.exportTrace();
    const req = vscode.posted.find((m) => ExportTraceRequest.is(m));
    assert.ok(req && ExportTraceRequest.is(req));
    assert.equal(req.params.sessionId, 's2');
    app.handle(ExportTraceRequest.completion.create({ ok: true, message: 'Saved to x.json' }, req.id));
    assert.equal(root.querySelector('.status')?.textContent, 'Saved to x.json');
    app.handle(EmptyNotification.create({ message: 'No session' }));
    assert.equal(app.currentSession, undefined);
    assert.equal(app.data.eventCount, 0);
    assert.equal(root.querySelector('.empty')?.textContent, 'No session');
  });

  it('a finding shows its real evidence count, not the 50 seqs it carries', () => {
    const { app, root } = fresh();
    const evidence = Array.from({ length: 50 }, (_, i) => i);
    const msg = snapshot(S1, events);
    msg.params.findings = [{ id: 'x', severity: 'warning', title: 't', detail: 'd', advice: 'a', evidence, evidenceCount: 145 }];
    app.handle(msg);
    const button = [...(root as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> }).querySelectorAll('.findings .link-button')][0];
    assert.equal(button?.textContent, 'Show evidence (145)');
  });

  it('findings are one-line headlines in their own tab; evidence opens the Details tab; the chart stays', () => {
    const { app, root } = fresh();
    const msg = snapshot(S1, events);
    msg.params.findings = [{ id: 'x', severity: 'error', title: 'Relist storm: 12 relists in 9s', detail: 'A long paragraph.', advice: 'Do this.', evidence: [3] }];
    app.handle(msg);
    type El = { textContent: string | null; hidden: boolean; open?: boolean; click(): void; getAttribute(a: string): string | null };
    const q = (sel: string) => (root as unknown as { querySelector(s: string): El | null }).querySelector(sel);
    assert.equal(q('#tab-findings')?.textContent, 'Findings (1)');
    assert.equal(q('.finding-head')?.textContent, 'ERRORRelist storm: 12 relists in 9s', 'the headline is severity and title only');
    assert.equal(q('.finding-item')?.open, false, 'the detail opens on demand');
    assert.equal(q('.findings-pane')?.hidden, false);
    assert.equal(q('.details')?.hidden, true);
    q('.finding-body .link-button')?.click();
    assert.equal(q('#tab-details')?.getAttribute('aria-selected'), 'true');
    assert.equal(q('.details')?.hidden, false);
    assert.equal(q('.findings-pane')?.hidden, true);
    assert.ok(q('.chart .timeline'), 'the chart is still there');
  });

  it('a trace drawn before its findings: tab, chip and panel say "computing…" until a delta brings them, or say why they failed', () => {
    type El = { textContent: string | null };
    const f = { id: 'x', severity: 'warning' as const, title: 'Relist after 410 Expired', detail: 'd', advice: 'a', evidence: [3] };
    for (const outcome of ['ready', 'failed'] as const) {
      const { app, root } = fresh();
      const q = (sel: string) => (root as unknown as { querySelector(s: string): El | null }).querySelector(sel);
      const msg = snapshot({ ...S2, id: 's1' }, events);
      msg.params.findingsState = { state: 'computing' };
      app.handle(msg);
      assert.equal(q('#tab-findings')?.textContent, 'Findings (computing…)');
      assert.equal(chip(root as never, 'findings'), 'computing…');
      assert.ok(q('.findings-pane')?.textContent?.includes('Findings: computing…'), `panel: "${q('.findings-pane')?.textContent}"`);
      const last = events[events.length - 1].seq;
      if (outcome === 'ready') {
        app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: last, events: [], live: false, findings: [f] }));
        assert.equal(q('#tab-findings')?.textContent, 'Findings (1)');
        assert.equal(chip(root as never, 'findings'), '1');
        assert.ok(!q('.findings-pane')?.textContent?.includes('computing'), 'the panel still says computing');
        assert.ok(q('.findings-pane')?.textContent?.includes('Relist after 410 Expired'));
      } else {
        app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: last, events: [], live: false, findings: [], findingsState: { state: 'failed', reason: 'the trace reader ended' } }));
        assert.equal(chip(root as never, 'findings'), 'failed');
        assert.ok(q('.findings-pane')?.textContent?.includes('The findings could not be computed: the trace reader ended'), `panel: "${q('.findings-pane')?.textContent}"`);
      }
    }
  });

  it('a finding the user opened stays open when the findings are re-rendered', () => {
    const { app, root } = fresh();
    const f = { id: 'x', severity: 'warning' as const, title: 't', detail: 'd', advice: 'a', evidence: [3] };
    const msg = snapshot(S1, events.slice(0, cut));
    msg.params.findings = [f];
    app.handle(msg);
    const item = () => (root as unknown as { querySelector(s: string): { open: boolean } }).querySelector('.finding-item');
    item().open = true;
    app.handle(DeltaNotification.create({ sessionId: 's1', afterSeq: events[cut - 1].seq, events: events.slice(cut, cut + 1), live: true, findings: [f, { ...f, id: 'y' }] }));
    assert.equal(item().open, true);
  });

  it('a short view (the bottom panel) switches to the compact layout', () => {
    const w = globalThis as unknown as { innerHeight: number; dispatchEvent(e: unknown): void; Event: new (t: string) => unknown };
    const saved = w.innerHeight;
    try {
      const { root } = fresh();
      const cls = () => (root as unknown as { classList: { contains(c: string): boolean } }).classList.contains('compact');
      assert.equal(cls(), saved < 520);
      w.innerHeight = 300;
      w.dispatchEvent(new w.Event('resize'));
      assert.equal(cls(), true);
      const legend = (root as unknown as { querySelector(s: string): { open: boolean } }).querySelector('details.legend');
      assert.equal(legend.open, false, 'the legend starts closed in compact mode');
      w.innerHeight = 900;
      w.dispatchEvent(new w.Event('resize'));
      assert.equal(cls(), false);
    } finally {
      w.innerHeight = saved;
    }
  });

  it('a stale-cache window gets the object\'s own row and a header chip', () => {
    const { app, root } = fresh();
    const msg = snapshot(S1, events);
    msg.params.summary = { ...msg.params.summary!, staleWindows: [{ key: 'team-a/doomed', fromT: 6000, toT: 18000, revealedBy: 'relist', revealSeq: 30 }] };
    app.handle(msg);
    assert.equal(chip(root, 'stale'), '1 object, up to 12.0 s');
    const stale = tracksOf(app.data).filter((t) => t.draw === 'stale');
    assert.deepEqual(stale.map((t) => t.label), ['Stale team-a/doomed']);
    app.handle(snapshot(S1, events.slice(0, cut)));
    assert.equal(chip(root, 'stale'), '', 'no chip without a window');
    assert.equal(tracksOf(app.data).filter((t) => t.draw === 'stale').length, 0);
  });

  it('session names: live state first, SIMULATED once', () => {
    const { sessionLabel } = require('../../../webview/render/panels') as typeof import('../../../webview/render/panels');
    assert.equal(sessionLabel({ id: 'a', title: 'configmaps (all namespaces, v1.36) SIMULATED', live: true, simulated: true }), '● configmaps (all namespaces, v1.36) SIMULATED');
    assert.equal(sessionLabel({ id: 'b', title: 'trace.json', live: false, simulated: true }), 'trace.json SIMULATED');
  });

  it('selecting an event that names an object shows that object\'s history; a history row selects its event', () => {
    const { app, root } = fresh();
    app.handle(snapshot(S1, events));
    const q = (sel: string) => (root as unknown as { querySelector(s: string): { textContent: string | null; click(): void } | null }).querySelector(sel);
    const qa = (sel: string) => [...(root as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null; click(): void }> }).querySelectorAll(sel)];
    const b = events.filter((e) => 'key' in e && e.key === 'default/b');
    // The first Show evidence-like path: select via a finding's evidence button.
    const msg = snapshot(S1, events);
    msg.params.findings = [{ id: 'x', severity: 'info', title: 't', detail: 'd', advice: 'a', evidence: [b[0].seq] }];
    app.handle(msg);
    q('.finding-body .link-button')?.click();
    assert.match(q('.history h4')?.textContent ?? '', new RegExp(`^History of default/b \\(${b.length} events\\)$`));
    const rows = qa('.history-row');
    assert.equal(rows.length, b.length);
    rows[rows.length - 1].click();
    assert.equal(q('.details-title')?.textContent?.includes('default/b'), true, q('.details-title')?.textContent ?? '');
  });

  it('a snapshot\'s columns carry no diffs: selecting an update asks the host for its diff and shows the answer', () => {
    const { app, vscode, root } = fresh();
    app.handle(snapshot(S1, events));
    const q = (sel: string) => (root as unknown as { querySelector(s: string): { textContent: string | null } | null }).querySelector(sel);
    const changed = events.find((e) => e.type === 'distribute' && (e.diff?.length ?? 0) > 0)!;
    const notify = events.find((e) => e.type === 'notify' && e.seq > changed.seq)!;
    const msg = snapshot(S1, events);
    msg.params.findings = [{ id: 'x', severity: 'info', title: 't', detail: 'd', advice: 'a', evidence: [notify.seq] }];
    app.handle(msg);
    (root as unknown as { querySelector(s: string): { click(): void } | null }).querySelector('.finding-body .link-button')?.click();
    const asked = vscode.posted.filter((m) => EventDiffRequest.is(m));
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].params, { sessionId: 's1', seq: notify.seq });
    assert.equal(q('table.diff'), null, 'no diff before the host answers');
    app.handle(EventDiffRequest.completion.create({ diff: [{ path: 'data.x', old: '1', new: '2' }] }, asked[0].id));
    assert.match(q('table.diff')?.textContent ?? '', /data\.x/);
  });

  it('a snapshot whose columns are malformed (plain or packed) shows one message and keeps no events', () => {
    const breakers: ((m: ReturnType<typeof snapshot>) => void)[] = [
      (m) => (m.params.columns = { ...encodeBatch(events), columns: { ...encodeBatch(events).columns, seq: new ArrayBuffer(8) } } as ColumnBatch),
      (m) => {
        const p = m.params.columns as PackedColumns;
        m.params.columns = { ...p, packed: p.packed.slice(0, p.packed.byteLength - 1) };
      },
    ];
    for (const breakIt of breakers) {
      const { app, root } = fresh();
      const msg = snapshot(S1, events);
      breakIt(msg);
      app.handle(msg);
      assert.equal(app.data.eventCount, 0);
      assert.match((root as unknown as { querySelector(s: string): { textContent: string | null } | null }).querySelector('.empty')?.textContent ?? '', /could not read/);
    }
  });

  it('find and filter: a typed key opens its history; a filter shows a chip that clears it; a new session starts unfiltered', () => {
    const { app, root } = fresh();
    app.handle(snapshot(S1, events));
    type Node = { textContent: string | null; hidden: boolean; value: string; click(): void; dispatchEvent(e: unknown): boolean };
    const q = (sel: string) => (root as unknown as { querySelector(s: string): Node | null }).querySelector(sel);
    const win = globalThis as unknown as { KeyboardEvent: new (t: string, o: object) => unknown; Event: new (t: string) => unknown };
    const search = q('input.key-search')!;
    search.value = 'default/b';
    search.dispatchEvent(new win.KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    assert.match(q('.history h4')?.textContent ?? '', /^History of default\/b/);
    assert.equal(q('.filter-chip')?.hidden, true, 'no filter yet');
    search.value = 'nothing-like-it';
    search.dispatchEvent(new win.KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    assert.match(q('.filter-message')?.textContent ?? '', /No object "nothing-like-it"/);
    const op = q('select[aria-label="Operation"]')!;
    op.value = 'delete';
    op.dispatchEvent(new win.Event('change'));
    assert.equal(q('.filter-chip')?.hidden, false);
    assert.equal(q('.filter-chip-text')?.textContent, 'Filtered: op delete');
    assert.deepEqual(app.data.filter, { op: 'delete' });
    assert.equal(app.data.handlers.get('main')?.length, 1, 'only the delete notification is drawn');
    q('.filter-chip button')!.click();
    assert.equal(q('.filter-chip')?.hidden, true);
    assert.equal(app.data.handlers.get('main')?.length, events.filter((e) => e.type === 'notify').length);
    op.value = 'add';
    op.dispatchEvent(new win.Event('change'));
    app.handle(snapshot(S2, events));
    assert.deepEqual(app.data.filter, {}, 'another session starts unfiltered');
    assert.equal(q('.filter-chip')?.hidden, true);
  });

  it('malformed messages are ignored', () => {
    const { app, vscode } = fresh();
    app.handle(snapshot(S1, events));
    for (const m of [null, 42, { method: 'timeline/delta' }, { type: 'notification', method: 'timeline/snapshot', params: { events: 'x' } }]) app.handle(m);
    assert.equal(app.data.eventCount, events.length);
    assert.equal(vscode.readies(), 0);
  });
});
