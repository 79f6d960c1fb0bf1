/**
 * The compare view (webview/compareApp.ts) under happy-dom: one group of lanes per session, the
 * sessions lined up on one axis, messages routed by session id, and one window for all groups.
 */
import { strict as assert } from 'node:assert';
import { registerDom, unregisterDom } from './dom';
import { encodeBatch } from '../../../src/protocol/eventColumns';
import { CompareListNotification, comparedSession } from '../../../src/protocol/compare';
import { DeltaNotification, EventDiffRequest, ReadyCommand, SnapshotNotification, type SessionInfo } from '../../../src/protocol/timeline';
import type { IpcMessage } from '../../../src/protocol/ipc';
import type { RecordedEvent } from '../../../src/format/events';
import type { TraceHeader } from '../../../src/format/trace';
import { SummaryModel } from '../../../src/trace/summary';
import { packColumns } from '../../../src/protocol/columnPack';
import { deflateColumns } from '../../../src/vscode/columnsOut';
import { cycleTrace } from './fixture';

type CompareModule = typeof import('../../../webview/compareApp');

const header = (profile: string, startedAt: string): TraceHeader =>
  ({ format: 'informer-trace/v1', profile, resource: { group: '', version: 'v1', resource: 'configmaps' }, startedAt, source: 'sandbox' }) as unknown as TraceHeader;
const OLD: SessionInfo = { id: 'old', title: 'configmaps (all namespaces, v1.15) SIMULATED', live: false, simulated: true };
const NEW: SessionInfo = { id: 'new', title: 'configmaps (all namespaces, v1.36) SIMULATED', live: false, simulated: true };

function snap(s: SessionInfo, h: TraceHeader, events: RecordedEvent[]) {
  return SnapshotNotification.create({ session: s, header: h, events, findings: [], sessions: [OLD, NEW], summary: SummaryModel.of(events).snapshot() });
}

describe('webview compare view (happy-dom)', () => {
  let mod: CompareModule;
  before(function () {
    this.timeout(20_000);
    registerDom();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require('../../../webview/compareApp') as CompareModule;
  });
  after(async () => {
    await unregisterDom();
  });

  function fresh() {
    const posted: IpcMessage[] = [];
    const doc = (globalThis as unknown as { document: { createElement(t: string): unknown; body: { append(e: unknown): void } } }).document;
    const root = doc.createElement('div') as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }>; querySelector(s: string): { textContent: string | null } | null };
    doc.body.append(root);
    const app = new mod.CompareApp({ postMessage: (m) => posted.push(m), getState: () => undefined, setState: () => undefined }, root as never);
    return { app, posted, root };
  }

  it('one labelled group per session, lined up by their start times on one axis', () => {
    const { app, root } = fresh();
    const events = cycleTrace();
    app.handle(snap(OLD, header('v1.15', '2026-01-01T00:00:00.000Z'), events));
    app.handle(snap(NEW, header('v1.36', '2026-01-01T00:00:01.000Z'), events));
    assert.equal(app.groups.length, 2);
    assert.deepEqual(app.aligned, { offsets: [0, 1000], mode: 'wall clock' });
    const heads = Array.from(root.querySelectorAll('.compare-name')).map((h) => h.textContent);
    assert.deepEqual(heads, [`v1.15 · ${OLD.title}`, `v1.36 · ${NEW.title}`]);
    assert.match(root.querySelector('.compare-title')?.textContent ?? '', /2 informers on one time axis · aligned on wall-clock time/);
    const lastT = events[events.length - 1].t;
    assert.equal(app.sharedDomain()[0], 0);
    assert.ok(app.sharedDomain()[1] >= lastT + 1000, 'the axis reaches the later session\'s end');
    assert.equal(Array.from(root.querySelectorAll('.compare-group [data-k="relists"] .chip-value')).length, 2);
  });

  it('a snapshot whose columns came deflated (a large session) is shown once inflated, and the delta behind it after it', async () => {
    const { app } = fresh();
    const events = cycleTrace();
    const cut = events.length - 3;
    const columns = deflateColumns(packColumns(encodeBatch(events.slice(0, cut))));
    app.handle(SnapshotNotification.create({ session: OLD, header: header('v1.15', '2026-01-01T00:00:00.000Z'), events: [], columns, findings: [], sessions: [OLD, NEW], summary: SummaryModel.of(events).snapshot() }));
    app.handle(DeltaNotification.create({ sessionId: OLD.id, afterSeq: events[cut - 1].seq, events: events.slice(cut), live: false }));
    assert.equal(app.groups.length, 0, 'nothing is taken before the snapshot is inflated');
    for (let i = 0; i < 100 && app.groups[0]?.data.eventCount !== events.length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(app.groups.length, 1);
    assert.equal(app.groups[0].data.eventCount, events.length, 'the snapshot, then the delta');
  });

  it('moving one group\'s window moves the other to the same moment', () => {
    const { app } = fresh();
    const events = cycleTrace();
    app.handle(snap(OLD, header('v1.15', '2026-01-01T00:00:00.000Z'), events));
    app.handle(snap(NEW, header('v1.36', '2026-01-01T00:00:01.000Z'), events));
    const [a, b] = [app.groups[0].view, app.groups[1].view];
    a.showWindow(1500, 2500);
    const [w0, w1] = a.window();
    const [v0, v1] = b.window();
    // Same shared window: the later session's own time is 1000 ms behind.
    assert.ok(Math.abs(v0 + 1000 - w0) < 1e-6 && Math.abs(v1 + 1000 - w1) < 1e-6, `${[w0, w1]} vs ${[v0, v1]}`);
    assert.ok(Math.abs(w0 - 1500) < 1 && Math.abs(w1 - 2500) < 1, `${[w0, w1]}`);
  });

  it('Follow live is off and disabled while every compared session has ended, on while one is live', () => {
    const { app, root } = fresh();
    const events = cycleTrace();
    const box = () => (root as unknown as { querySelector(s: string): { checked: boolean; disabled: boolean } }).querySelector('.compare-follow input');
    app.handle(snap(OLD, header('v1.15', '2026-01-01T00:00:00.000Z'), events));
    app.handle(snap(NEW, header('v1.36', '2026-01-01T00:00:01.000Z'), events));
    assert.deepEqual({ checked: box().checked, disabled: box().disabled }, { checked: false, disabled: true }, 'two ended traces');
    app.handle(snap({ ...NEW, live: true }, header('v1.36', '2026-01-01T00:00:01.000Z'), events));
    assert.deepEqual({ checked: box().checked, disabled: box().disabled }, { checked: true, disabled: false }, 'one live session');
    app.handle(DeltaNotification.create({ sessionId: 'new', afterSeq: events[events.length - 1].seq, events: [], live: false }));
    assert.deepEqual({ checked: box().checked, disabled: box().disabled }, { checked: false, disabled: true }, 'the live one ended');
  });

  it('deltas go to their session\'s group; one that does not follow on asks for snapshots', () => {
    const { app, posted } = fresh();
    const events = cycleTrace();
    const cut = 20;
    app.handle(snap(OLD, header('v1.15', '2026-01-01T00:00:00.000Z'), events.slice(0, cut)));
    app.handle(snap(NEW, header('v1.36', '2026-01-01T00:00:00.000Z'), events));
    app.handle(DeltaNotification.create({ sessionId: 'old', afterSeq: events[cut - 1].seq, events: events.slice(cut), live: false }));
    assert.equal(app.groups[0].data.eventCount, events.length);
    assert.equal(app.groups[1].data.eventCount, events.length);
    assert.equal(posted.filter((m) => ReadyCommand.is(m)).length, 0);
    app.handle(DeltaNotification.create({ sessionId: 'new', afterSeq: 3, events: events.slice(cut), live: false }));
    assert.equal(posted.filter((m) => ReadyCommand.is(m)).length, 1);
    // A delta rebuilds its own group's lanes only; the other group just redraws (the shared axis may have grown).
    const rebuilt = [0, 0];
    app.groups.forEach((g, i) => {
      const original = g.view.dataChanged.bind(g.view);
      g.view.dataChanged = () => {
        rebuilt[i]++;
        original();
      };
    });
    app.handle(DeltaNotification.create({ sessionId: 'old', afterSeq: events[events.length - 1].seq, events: [], live: true }));
    assert.deepEqual(rebuilt, [1, 0]);
    app.handle({ kind: 'notification', method: 'timeline/delta', params: { sessionId: 'old' } });
    assert.equal(app.groups[0].data.eventCount, events.length, 'a malformed message changes nothing');
  });

  it('the details of an update from a snapshot\'s columns ask the host for its diff, for that session, and show the answer', () => {
    const { app, posted, root } = fresh();
    const events = cycleTrace();
    const columns = (s: SessionInfo, h: TraceHeader) =>
      SnapshotNotification.create({ session: s, header: h, events: [], columns: encodeBatch(events), findings: [], sessions: [OLD, NEW], summary: SummaryModel.of(events).snapshot() });
    app.handle(columns(OLD, header('v1.15', '2026-01-01T00:00:00.000Z')));
    app.handle(columns(NEW, header('v1.36', '2026-01-01T00:00:00.000Z')));
    const changed = events.find((e) => e.type === 'distribute' && (e.diff?.length ?? 0) > 0)!;
    const q = (sel: string) => (root as unknown as { querySelector(s: string): { textContent: string | null } | null }).querySelector(sel);
    app.select('new', changed.seq);
    const asked = posted.filter((m) => EventDiffRequest.is(m));
    assert.equal(asked.length, 1, 'one diff request');
    assert.deepEqual(asked[0].params, { sessionId: 'new', seq: changed.seq });
    assert.equal(q('table.diff'), null, 'no diff before the host answers');
    app.select('new', changed.seq);
    assert.equal(posted.filter((m) => EventDiffRequest.is(m)).length, 1, 'asked once while in flight');
    app.handle(EventDiffRequest.completion.create({ diff: [{ path: 'data.x', old: '1', new: '2' }] }, asked[0].id));
    assert.match(q('table.diff')?.textContent ?? '', /data\.x/);
    // The other session's same seq is another event: asked for separately.
    app.select('old', changed.seq);
    assert.equal(posted.filter((m) => EventDiffRequest.is(m)).length, 2);
  });

  it('keeps what it compares for a reload (setState) and names each compared session that is gone, saying why', () => {
    const saved: unknown[] = [];
    const doc = (globalThis as unknown as { document: { createElement(t: string): unknown; body: { append(e: unknown): void } } }).document;
    const root = doc.createElement('div') as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null; dataset: { profile?: string } }>; querySelector(s: string): { textContent: string | null } | null };
    doc.body.append(root);
    const app = new mod.CompareApp({ postMessage: () => undefined, getState: () => undefined, setState: (s) => saved.push(s) }, root as never);
    const a = comparedSession(header('v1.15', '2026-01-01T00:00:00.000Z'), OLD.title);
    const b = comparedSession(header('v1.36', '2026-01-01T00:00:00.000Z'), NEW.title, 'file:///w/b.json');
    app.handle(CompareListNotification.create({ compared: [a, b], gone: [0, 1] }));
    assert.deepEqual(saved, [{ compared: [a, b] }]);
    const gone = Array.from(root.querySelectorAll('.compare-gone-item'));
    assert.deepEqual(gone.map((g) => g.dataset.profile), ['v1.15', 'v1.36']);
    assert.match(gone[0].textContent ?? '', /gone.*before the window reloaded/);
    assert.match(gone[1].textContent ?? '', /trace file could not be read again/);
    assert.match(root.querySelector('.compare-title')?.textContent ?? '', /none of the 2 compared informers is left/);
    // One came back: only the other is named.
    app.handle(CompareListNotification.create({ compared: [a, b], gone: [0] }));
    assert.equal(root.querySelectorAll('.compare-gone-item').length, 1);
  });
});
