/**
 * The bottom-panel view provider (src/vscode/timelineView.ts) with a stand-in for the 'vscode'
 * module: resolving the view again (VS Code does after the panel is closed and reopened) must not
 * pile up listeners, and disposing the provider releases everything it holds.
 */
import { strict as assert } from 'node:assert';
import { SessionRegistry } from '../../../src/app/registry';
import { requireWithFakeVscode } from './fakeVscode';

type TimelineViewModule = typeof import('../../../src/vscode/timelineView');

const fakeVscode = {
  Uri: { joinPath: (base: { path: string }, ...parts: string[]) => ({ path: [base.path, ...parts].join('/') }) },
  commands: { executeCommand: async () => undefined },
};

function load(): TimelineViewModule {
  return requireWithFakeVscode<TimelineViewModule>('../../../src/vscode/timelineView', fakeVscode);
}

/** An event whose live subscriptions are counted. */
function countedEvent() {
  const listeners = new Set<(v: unknown) => void>();
  const event = (fn: (v: unknown) => void) => {
    listeners.add(fn);
    return { dispose: () => void listeners.delete(fn) };
  };
  return { event, listeners };
}

function fakeView() {
  const visibility = countedEvent();
  const disposed = countedEvent();
  const messages = countedEvent();
  const view = {
    visible: true,
    webview: {
      options: {},
      html: '',
      cspSource: 'https://webview.example',
      asWebviewUri: (u: { path: string }) => `https://webview.example${u.path}`,
      onDidReceiveMessage: messages.event,
      postMessage: async () => true,
    },
    onDidChangeVisibility: visibility.event,
    onDidDispose: disposed.event,
  };
  const live = () => visibility.listeners.size + disposed.listeners.size + messages.listeners.size;
  const dispose = () => [...disposed.listeners].forEach((fn) => fn(undefined));
  return { view, live, dispose };
}

describe('vscode: the timeline view provider', () => {
  const { TimelineViewProvider } = load();

  it('resolving again releases the previous view\'s binding and listeners; dispose releases the last', () => {
    const registry = new SessionRegistry();
    const provider = new TimelineViewProvider({ path: '/ext' } as never, registry);
    const views = [fakeView(), fakeView(), fakeView()];
    for (const v of views) provider.resolveWebviewView(v.view as never);
    assert.deepEqual(views.map((v) => v.live()), [0, 0, 3], 'only the last view holds listeners (visibility, dispose, messages)');
    views[2].dispose();
    assert.equal(views[2].live(), 0, 'a disposed view lets go of everything');
    const again = fakeView();
    provider.resolveWebviewView(again.view as never);
    assert.equal(again.live(), 3);
    provider.dispose();
    assert.equal(again.live(), 0);
    registry.dispose();
  });
});
