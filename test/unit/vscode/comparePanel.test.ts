/**
 * The compare panel after a window reload (src/vscode/comparePanel.ts `revive`, with a stand-in
 * for 'vscode'): the compared sessions still open come back by their trace's identity, the others
 * are listed as gone, one that opens later joins, and a state that is not the view's restores
 * nothing (and says so in the tab).
 */
import { strict as assert } from 'node:assert';
import { SessionRegistry } from '../../../src/app/registry';
import { InformerSession } from '../../../src/app/session';
import type { TraceHeader } from '../../../src/format/trace';
import { CompareListNotification, comparedSession } from '../../../src/protocol/compare';
import type { IpcMessage } from '../../../src/protocol/ipc';
import { EventDiffRequest, ReadyCommand, SnapshotNotification, SpillRangeRequest } from '../../../src/protocol/timeline';
import { decodeBatch } from '../../../src/protocol/eventColumns';
import { TraceRecorder } from '../../../src/trace/recorder';
import { SegmentFile } from '../../../src/trace/segments';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireWithFakeVscode } from './fakeVscode';

type ComparePanelModule = typeof import('../../../src/vscode/comparePanel');

const read: string[] = [];
const fakeVscode = {
  Uri: {
    joinPath: (base: { path: string }, ...parts: string[]) => ({ path: [base.path, ...parts].join('/') }),
    parse: (s: string) => ({ path: s.replace(/^file:\/\//, ''), toString: () => s }),
  },
  workspace: {
    fs: {
      readFile: async (u: { path: string }) => {
        read.push(u.path);
        throw new Error(`ENOENT: ${u.path}`);
      },
    },
  },
};

const header = (profile: string, startedAt: string, source: TraceHeader['source'] = 'sandbox') =>
  ({ format: 'informer-trace/v1', profile, resource: { group: '', version: 'v1', resource: 'configmaps' }, startedAt, source, cap: 1000, dropped: 0 }) as unknown as TraceHeader;

function session(registry: SessionRegistry, h: TraceHeader, title: string): InformerSession {
  const s = new InformerSession({ id: registry.newId(), kind: 'import', title, simulated: false, imported: { header: h, events: [] } });
  registry.add(s);
  return s;
}

function fakePanel(title: string) {
  const posted: IpcMessage[] = [];
  let onMessage: (m: unknown) => void = () => undefined;
  const panel = {
    title,
    visible: true,
    webview: {
      options: {},
      html: '',
      cspSource: 'https://webview.example',
      asWebviewUri: (u: { path: string }) => `https://webview.example${u.path}`,
      onDidReceiveMessage: (fn: (m: unknown) => void) => ((onMessage = fn), { dispose: () => undefined }),
      postMessage: async (m: IpcMessage) => (posted.push(m), true),
    },
    onDidChangeViewState: () => ({ dispose: () => undefined }),
    onDidDispose: () => ({ dispose: () => undefined }),
    dispose: () => undefined,
  };
  return { panel, posted, send: (m: unknown) => onMessage(m) };
}

describe('vscode: the compare panel after a window reload', () => {
  const { ComparePanel } = requireWithFakeVscode<ComparePanelModule>('../../../src/vscode/comparePanel', fakeVscode);
  const A = header('v1.15', '2026-01-01T00:00:00.000Z');
  const B = header('v1.36', '2026-01-01T00:00:00.500Z');
  const C = header('v1.36', '2026-01-01T00:00:09.000Z', 'import');

  it('the compared sessions still open come back; the others are listed as gone; one that opens later joins', async () => {
    const registry = new SessionRegistry();
    const a = session(registry, A, 'a');
    const state = { compared: [comparedSession(A, 'a'), comparedSession(B, 'b'), comparedSession(C, 'c.json', 'file:///w/c.json')] };
    const { panel, posted, send } = fakePanel('Compare: v1.15 vs v1.36 vs v1.36');
    const cp = await ComparePanel.revive(panel as never, { path: '/ext' } as never, registry, state);
    assert.deepEqual(read, ['/w/c.json'], 'the imported trace is read again from its file (here it is gone)');
    send(ReadyCommand.create({}));
    const lists = () => posted.filter((m) => CompareListNotification.is(m)).map((m) => (m.params as { gone: number[] }).gone);
    const snapshots = () => posted.filter((m) => SnapshotNotification.is(m)).map((m) => (m.params as { session: { id: string } }).session.id);
    assert.deepEqual(lists(), [[1, 2]]);
    assert.deepEqual(snapshots(), [a.id]);
    assert.equal(panel.title, 'Compare: v1.15 vs v1.36 vs v1.36', 'one is left: the title is the view\'s own');
    // A session with B's trace appears (and one with another start does not count).
    session(registry, { ...B, startedAt: '2026-01-01T00:00:05.000Z' }, 'b again, another run');
    assert.deepEqual(lists(), [[1, 2]]);
    const b = session(registry, B, 'b');
    assert.deepEqual(lists(), [[1, 2], [2]]);
    assert.deepEqual(snapshots(), [a.id, b.id]);
    // The view's details ask for diffs: the panel answers each request by its id.
    send(EventDiffRequest.create({ sessionId: a.id, seq: 3 }, 7));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(posted.filter((m) => EventDiffRequest.completion.is(m)).map((m) => m.id), [7]);
    cp.dispose();
    registry.dispose();
  });

  it('answers the view\'s spill-range requests by id: columns for a session that spilled, one line when the session or its segment is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compare-panel-spill-'));
    const registry = new SessionRegistry();
    try {
      const seg = new SegmentFile({ dir, maxBytes: 1 << 20, name: 's' });
      const { dropped: _d, ...h } = A;
      const rec = new TraceRecorder({ ...h, cap: 20 }, 20, seg);
      for (let i = 0; i < 100; i++) rec.emit({ t: i, type: 'resync.timer', shouldResync: false });
      const s = new InformerSession({ id: registry.newId(), kind: 'replay', title: 'spilled', simulated: false, recorder: rec });
      registry.add(s);
      const { panel, posted, send } = fakePanel('Compare: v1.15');
      const cp = await ComparePanel.revive(panel as never, { path: '/ext' } as never, registry, { compared: [comparedSession(rec.header(), 'spilled')] });
      send(ReadyCommand.create({}));
      const answers = async (n: number) => {
        await new Promise((r) => setTimeout(r, 200));
        const all = posted.filter((m) => SpillRangeRequest.completion.is(m)) as ReturnType<typeof SpillRangeRequest.completion.create>[];
        // Answers come as their reads end, not in the order asked.
        return all.slice(-n).sort((x, y) => x.id! - y.id!);
      };
      send(SpillRangeRequest.create({ sessionId: s.id, t0: 0, t1: 10 }, 1_000_000_001));
      send(SpillRangeRequest.create({ sessionId: 'nobody', t0: 0, t1: 10 }, 1_000_000_002));
      const [ok, gone] = await answers(2);
      assert.equal(ok.id, 1_000_000_001);
      const seqs = decodeBatch(ok.params.columns!)!.map((e) => e.seq);
      assert.ok(seqs.length > 0 && seqs[0] === 0, `seqs ${seqs.slice(0, 3)}`);
      assert.deepEqual([gone.id, gone.params.message], [1_000_000_002, 'That session is gone.']);
      rmSync(seg.state().path);
      send(SpillRangeRequest.create({ sessionId: s.id, t0: 0, t1: 10 }, 1_000_000_003));
      const [lost] = await answers(1);
      assert.equal(lost.id, 1_000_000_003);
      assert.equal(lost.params.columns, undefined);
      assert.match(lost.params.message ?? '', /^Could not read the spilled events: the spill segment .* is gone/);
      cp.dispose();
    } finally {
      registry.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a state that is not the view\'s restores nothing and says so in the tab', async () => {
    const registry = new SessionRegistry();
    session(registry, A, 'a');
    const { panel, posted, send } = fakePanel('Compare: v1.15 vs v1.36');
    const cp = await ComparePanel.revive(panel as never, { path: '/ext' } as never, registry, { compared: 'nonsense' });
    send(ReadyCommand.create({}));
    assert.equal(panel.title, 'Compare: v1.15 vs v1.36 (stopped by reload)');
    assert.deepEqual(posted.filter((m) => CompareListNotification.is(m)).map((m) => m.params), [{ compared: [], gone: [] }]);
    assert.equal(posted.filter((m) => SnapshotNotification.is(m)).length, 0);
    cp.dispose();
    registry.dispose();
  });
});
