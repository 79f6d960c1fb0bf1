import { strict as assert } from 'node:assert';
import { requireWithFakeVscode } from './fakeVscode';

/**
 * The prompts a palette command opens stay open when focus moves: VS Code gives focus back to the
 * editor that had it (a timeline webview) after the palette closes, and a quick pick or input box
 * without ignoreFocusOut can close at that moment, before the user could answer (seen in
 * code-server as a prompt that vanished between two steps of "Add handler" and "Check cache
 * consistency").
 */
type Options = { ignoreFocusOut?: boolean; placeHolder?: string; prompt?: string };
const asked: { kind: 'pick' | 'input'; options: Options }[] = [];
let answers: unknown[] = [];
const vscode = {
  window: {
    showQuickPick: async (items: unknown[], options: Options) => (asked.push({ kind: 'pick', options }), answers.shift() === 'first' ? (items as unknown[])[0] : undefined),
    showInputBox: async (options: Options) => (asked.push({ kind: 'input', options }), answers.shift()),
    showInformationMessage: async () => undefined,
    showErrorMessage: async () => undefined,
  },
};

describe('vscode: command prompts survive a change of focus', () => {
  const load = () => requireWithFakeVscode<typeof import('../../../src/vscode/commands')>('../../../src/vscode/commands', vscode);

  it('Add handler: which informer, the handler name and its resync period all ignore focus out', async () => {
    const { addHandlerCommand } = load();
    const added: [string, number][] = [];
    const session = (id: string) => ({ id, title: id, live: true, controls: { addHandler: (n: string, ms: number) => added.push([n, ms]) } });
    const registry = { running: () => [session('a'), session('b')], all: () => [], shown: undefined };
    asked.length = 0;
    answers = ['first', 'late', '5'];
    await addHandlerCommand(registry as never);
    assert.deepEqual(
      asked.map((a) => a.kind),
      ['pick', 'input', 'input'],
    );
    for (const a of asked) assert.equal(a.options.ignoreFocusOut, true, `${a.options.placeHolder ?? a.options.prompt} closes when focus moves`);
    assert.deepEqual(added, [['late', 5000]]);
  });

  it('Check cache consistency: the informer pick ignores focus out', async () => {
    const { chooseSession } = load();
    const registry = { running: () => [{ id: 'a', title: 'a', live: true }, { id: 'b', title: 'b', live: true }], all: () => [], shown: undefined };
    asked.length = 0;
    answers = ['first'];
    const s = await chooseSession(registry as never, true, 'Check the cache of which informer?');
    assert.equal(s?.id, 'b');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].options.ignoreFocusOut, true);
  });
});
