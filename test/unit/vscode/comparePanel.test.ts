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
import { EventDiffRequest, ReadyCommand, SnapshotNotification } from '../../../src/protocol/timeline';
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
