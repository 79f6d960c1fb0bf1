/**
 * The compare view with sessions that spilled (happy-dom, fake `vscode`): each group spans its
 * whole recording and says how much is on disk, and a window that settles inside the spilled span
 * asks the host for each group's range (the timeline's SpillLoader, one per group); each answer
 * goes to its own group, whatever the order they come in.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerDom, unregisterDom } from './dom';
import { SnapshotNotification, SpillRangeRequest, type SessionInfo } from '../../../src/protocol/timeline';
import type { IpcMessage } from '../../../src/protocol/ipc';
import type { TraceEvent } from '../../../src/format/events';
import { encodeBatch } from '../../../src/protocol/eventColumns';
import { SummaryModel } from '../../../src/trace/summary';
import { TraceRecorder } from '../../../src/trace/recorder';
import { SegmentFile, type SpillState } from '../../../src/trace/segments';
import { readSpilledRange } from '../../../src/trace/segmentRange';
import { SETTLE_MS } from '../../../webview/spillLoader';
import { header } from '../trace/fixtures';

type CompareModule = typeof import('../../../webview/compareApp');

function eventAt(i: number, step: number): TraceEvent {
  const t = i * step;
  if (i % 100 === 0) return { t, type: 'relist', reason: 'Expired', row: 1, rv: String(i), consistent: true, text: 'expired' };
  if (i % 2 === 0) return { t, type: 'fifo.enqueue', key: `ns/p${i % 11}`, delta: 'Updated', rv: String(i), depthKeys: 1, depthDeltas: 1 };
  return { t, type: 'notify', handler: 'main', op: 'update', key: `ns/p${i % 11}`, rv: String(i), isSync: false, pending: 0 };
}

describe('webview compare view: sessions that spilled (happy-dom)', function () {
  this.timeout(20_000);
  let mod: CompareModule;
  let dir: string;
  before(() => {
    registerDom();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require('../../../webview/compareApp') as CompareModule;
  });
  after(async () => unregisterDom());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'compare-spill-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A recorded session of 5000 events (one every `step` ms) with a 500-event window: 4500 spilled. */
  function recorded(name: string, step: number) {
    const { dropped: _d, ...h } = header();
    const seg = new SegmentFile({ dir, maxBytes: 1 << 24, name });
    const r = new TraceRecorder(h, 500, seg);
    for (let i = 0; i < 5000; i++) r.emit(eventAt(i, step));
    const memory = r.since(-1);
    const info: SessionInfo = { id: name, title: name, live: false, simulated: true };
    const snap = SnapshotNotification.create({
      session: info,
      header: r.header(),
      events: [],
      columns: encodeBatch(memory),
      findings: [],
      sessions: [info],
      summary: SummaryModel.of(memory).snapshot(),
      spill: r.spillOverview(),
      storage: { memoryEvents: memory.length, dropped: 0, disk: { events: seg.state().events, bytes: seg.state().bytes, maxBytes: seg.state().maxBytes } },
    });
    return { snap, state: seg.state() };
  }

  async function answer(state: SpillState, req: ReturnType<typeof SpillRangeRequest.create>) {
    const range = await readSpilledRange(state, req.params.t0, req.params.t1);
    return SpillRangeRequest.completion.create({ columns: encodeBatch(range.events), t0: range.t0, t1: range.t1, complete: range.complete }, req.id!);
  }

  it('each group shows its spilled span, asks for its own range when the shared window settles in it, and takes only its own answer', async () => {
    const a = recorded('a', 3);
    const b = recorded('b', 2);
    const doc = (globalThis as unknown as { document: Document }).document;
    const root = doc.createElement('div');
    doc.body.append(root);
    const posted: IpcMessage[] = [];
    const app = new mod.CompareApp({ postMessage: (m) => posted.push(m), getState: () => undefined, setState: () => undefined }, root as never);
    app.handle(a.snap);
    app.handle(b.snap);
    const [ga, gb] = app.groups;
    assert.equal(ga.data.firstT, 0, 'the axis starts at the first spilled event');
    assert.equal(app.sharedDomain()[0], 0);
    assert.deepEqual(
      Array.from(root.querySelectorAll('[data-k="spilled"] .chip-value')).map((c) => c.textContent),
      ['4500', '4500'],
    );

    // The shared window moves into both spilled spans: each group asks for its own part, once.
    // (happy-dom draws no canvas, so the views' render does not reach onWindow: it is called as render would, with each view's window.)
    ga.view.showWindow(300, 900);
    for (const g of app.groups) g.loader.windowChanged(...g.view.window());
    await new Promise((res) => setTimeout(res, SETTLE_MS + 100));
    const requests = posted.filter((m) => SpillRangeRequest.is(m)) as ReturnType<typeof SpillRangeRequest.create>[];
    assert.deepEqual(requests.map((r) => r.params.sessionId).sort(), ['a', 'b']);
    assert.notEqual(requests[0].id, requests[1].id);
    const reqA = requests.find((r) => r.params.sessionId === 'a')!;
    const reqB = requests.find((r) => r.params.sessionId === 'b')!;
    assert.ok(Math.abs(reqA.params.t0 - 300) < 1 && Math.abs(reqA.params.t1 - 900) < 1, `${reqA.params.t0}–${reqA.params.t1}`);

    // B's answer first: only B loads it; then A's.
    app.handle(await answer(b.state, reqB));
    assert.ok(gb.data.indexOfSeq(201) >= 0, 'b holds its range (t 402 at 2 ms a step)');
    assert.equal(ga.data.indexOfSeq(201), -1, 'a has not loaded b\'s answer');
    app.handle(await answer(a.state, reqA));
    assert.ok(ga.data.indexOfSeq(150) >= 0 && ga.data.indexOfSeq(299) >= 0, 'a holds its range (t 450–897)');
    assert.match(root.querySelector('[data-k="spilled"] .chip-value')?.textContent ?? '', /^4500 \(\d+ loaded\)$/);
    // An answer nobody asked for changes nothing.
    const count = ga.data.eventCount;
    app.handle(SpillRangeRequest.completion.create({ columns: encodeBatch([]), t0: 0, t1: 0, complete: true }, 1_000_000_999 + 5000));
    assert.equal(ga.data.eventCount, count);
  });
});
