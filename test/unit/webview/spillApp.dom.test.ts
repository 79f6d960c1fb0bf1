/**
 * The webview app with a session that spilled (happy-dom, fake `vscode`): the axis starts at the
 * recording's start, the header says what is in memory and on disk, and a window inside the
 * spilled span asks the host for that range once and draws the answer as events.
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
import { SegmentFile } from '../../../src/trace/segments';
import { readSpilledRange } from '../../../src/trace/segmentRange';
import { SETTLE_MS } from '../../../webview/spillLoader';
import { header } from '../trace/fixtures';

type AppModule = typeof import('../../../webview/app');
const S: SessionInfo = { id: 'big', title: 'big', live: false, simulated: true };

function eventAt(i: number): TraceEvent {
  const t = i * 3;
  if (i % 100 === 0) return { t, type: 'relist', reason: 'Expired', row: 1, rv: String(i), consistent: true, text: 'expired' };
  if (i % 100 === 1) return { t, type: 'list.done', rv: String(i), items: 3, pages: 1, paginated: false, durationMs: 2 };
  if (i % 2 === 0) return { t, type: 'fifo.enqueue', key: `ns/p${i % 11}`, delta: 'Updated', rv: String(i), depthKeys: 1, depthDeltas: 1 };
  return { t, type: 'notify', handler: 'main', op: 'update', key: `ns/p${i % 11}`, rv: String(i), isSync: false, pending: 0 };
}

describe('webview app: a session that spilled to disk (happy-dom)', function () {
  this.timeout(20_000);
  let mod: AppModule;
  let dir: string;
  before(() => {
    registerDom();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require('../../../webview/app') as AppModule;
  });
  after(async () => unregisterDom());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spill-app-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('spans the whole recording, says where the events are, and loads a zoomed-into spilled range', async () => {
    const { dropped: _d, ...h } = header();
    const seg = new SegmentFile({ dir, maxBytes: 1 << 24, name: 'app' });
    const r = new TraceRecorder(h, 500, seg);
    for (let i = 0; i < 5000; i++) r.emit(eventAt(i));
    const memory = r.since(-1);
    const st = seg.state();
    const doc = (globalThis as unknown as { document: Document }).document;
    const root = doc.createElement('div');
    doc.body.append(root);
    const posted: IpcMessage[] = [];
    const app = new mod.TimelineApp({ postMessage: (m) => posted.push(m), getState: () => undefined, setState: () => undefined }, root as never);
    app.handle(
      SnapshotNotification.create({
        session: S,
        header: r.header(),
        events: [],
        columns: encodeBatch(memory),
        findings: [],
        sessions: [S],
        summary: SummaryModel.of(memory).snapshot(),
        spill: r.spillOverview(),
        storage: { memoryEvents: memory.length, dropped: 0, disk: { events: st.events, bytes: st.bytes, maxBytes: st.maxBytes } },
      }),
    );
    assert.equal(app.data.firstT, 0, 'the axis starts at the first spilled event');
    assert.equal(app.data.marks.columns.kind.subarray(0, app.data.marks.length).length, 100, 'every relist and LIST of the run is a mark');
    const chipText = root.querySelector('[data-k="storage"] .chip-value')?.textContent ?? '';
    assert.match(chipText, /^500 in memory · 4,500 on disk \(\d+\.\d MB of 16\.0 MB\) · search: memory only$/);

    // A window inside the spilled span: after it settles, one request for that range.
    const loader = (app as unknown as { spillLoader: { windowChanged(a: number, b: number): void } }).spillLoader;
    loader.windowChanged(300, 900);
    loader.windowChanged(300, 900);
    await new Promise((res) => setTimeout(res, SETTLE_MS + 50));
    const requests = posted.filter((m) => SpillRangeRequest.is(m));
    assert.equal(requests.length, 1);
    const req = requests[0] as ReturnType<typeof SpillRangeRequest.create>;
    assert.deepEqual([req.params.t0, req.params.t1], [300, 900]);
    const range = await readSpilledRange(st, req.params.t0, req.params.t1);
    app.handle(SpillRangeRequest.completion.create({ columns: encodeBatch(range.events), t0: range.t0, t1: range.t1, complete: range.complete }, req.id!));
    assert.ok(app.data.indexOfSeq(150) >= 0 && app.data.indexOfSeq(299) >= 0, 'the range is loaded');
    assert.equal(app.data.indexOfSeq(450), -1, 'and nothing beyond its chunks');
    assert.deepEqual(app.data.eventAt(app.data.indexOfSeq(201)), range.events.find((e) => e.seq === 201));
    assert.match(root.querySelector('[data-k="storage"] .chip-value')?.textContent ?? '', /search: memory \+ loaded range$/);
    // The same window again asks nothing more; an answer nobody asked for changes nothing.
    loader.windowChanged(310, 890);
    await new Promise((res) => setTimeout(res, SETTLE_MS + 50));
    assert.equal(posted.filter((m) => SpillRangeRequest.is(m)).length, 1);
    const count = app.data.eventCount;
    app.handle(SpillRangeRequest.completion.create({ columns: encodeBatch([]), t0: 0, t1: 0, complete: true }, 1_000_000_999));
    assert.equal(app.data.eventCount, count);
  });
});
