import { strict as assert } from 'node:assert';
import { newestRunning, pickOrder, uniqueTitle } from '../../../src/app/sessionPick';
import { statusText, storageText } from '../../../src/vscode/statusText';
import { SummaryModel } from '../../../src/trace/summary';
import { numbered } from '../trace/fixtures';

describe('sessions: the one on screen first, unique names', () => {
  it('commands offer the session on screen first (a quick pick preselects it), then the newest', () => {
    const s = [{ id: 'old' }, { id: 'mid' }, { id: 'new' }];
    assert.deepEqual(pickOrder(s, 'old').map((x) => x.id), ['old', 'new', 'mid']);
    assert.deepEqual(pickOrder(s, undefined).map((x) => x.id), ['new', 'mid', 'old']);
    assert.deepEqual(pickOrder(s, 'gone').map((x) => x.id), ['new', 'mid', 'old']);
  });

  it('revealOnDebug shows the newest running informer, not a trace opened after it', () => {
    const s = [{ id: 'run-old', live: true }, { id: 'run-new', live: true }, { id: 'trace', live: false }];
    assert.equal(newestRunning(s)?.id, 'run-new');
    assert.equal(newestRunning([{ id: 'trace', live: false }]), undefined);
  });

  it('two sessions never share a title', () => {
    const t = 'configmaps (all namespaces, v1.36) SIMULATED';
    assert.equal(uniqueTitle(t, []), t);
    assert.equal(uniqueTitle(t, [t]), `${t} #2`);
    assert.equal(uniqueTitle(t, [t, `${t} #2`]), `${t} #3`);
  });

  it('the status bar counts what the header chip counts, LIST-refused relists named', () => {
    const s = SummaryModel.of(
      numbered([
        { t: 0, type: 'list.done', rv: '1', items: 1, pages: 1, paginated: false, durationMs: 1 },
        { t: 1, type: 'relist', reason: 'ConnectionRefused', row: 6, rv: '1', consistent: false, text: 'refused' },
        { t: 2, type: 'list.error', text: 'connection refused' },
        { t: 3, type: 'relist', reason: 'ConnectionRefused', row: 7, rv: '1', consistent: false, text: 'refused' },
      ]),
    ).snapshot();
    const bar = statusText([{ id: 'a', title: 'a', summary: () => s }]);
    assert.equal(bar.text, '$(pulse) 1 informer · 2 relists');
    assert.equal(bar.tooltip, 'a: relists 2 (1 with the LIST refused; ConnectionRefused 2)');
  });

  it('the tooltip says where a session keeps its events: memory, the spill segment against its bound, drops', () => {
    const s = new SummaryModel().snapshot();
    const spill = { path: '/x', events: 1200, bytes: 300 * 1024 * 1024, maxBytes: 1024 * 1024 * 1024, chunks: [] };
    const bar = statusText([{ id: 'a', title: 'a', summary: () => s, storage: () => ({ memoryEvents: 200000, dropped: 0, spill }) }]);
    assert.equal(bar.tooltip, 'a: relists 0\n  200000 events in memory, 1200 on disk (300 MB of 1 GB)');
    assert.equal(storageText({ memoryEvents: 5, dropped: 7 }), '5 events in memory, no spill to disk, 7 dropped');
    assert.equal(storageText({ memoryEvents: 5, dropped: 3, spill: { ...spill, bytes: 5 * 1024 * 1024, error: 'ENOSPC' } }), '5 events in memory, 1200 on disk (5.0 MB of 1 GB), spilling stopped: ENOSPC, 3 dropped');
  });

  it('with several informers the status bar counts the one on screen, or says it is a sum', () => {
    const relists = (n: number) =>
      SummaryModel.of(numbered(Array.from({ length: n }, (_, i) => ({ t: i, type: 'relist' as const, reason: 'Expired', row: 7, rv: '1', consistent: false, text: 'gone' })))).snapshot();
    const a = { id: 'a', title: 'pods (v1.15)', summary: () => relists(3) };
    const b = { id: 'b', title: 'pods (v1.36)', summary: () => relists(1) };
    const onScreen = statusText([a, b], 'b');
    assert.equal(onScreen.text, '$(pulse) 2 informers · on screen: 1 relist');
    assert.equal(onScreen.relists, 1, 'the session on screen, not the sum of both');
    assert.match(onScreen.tooltip, /pods \(v1\.36\) \(on screen\): relists 1/);
    assert.match(onScreen.tooltip, /pods \(v1\.15\): relists 3/);
    const none = statusText([a, b], 'ended-trace');
    assert.equal(none.text, '$(pulse) 2 informers · 4 relists in all');
    assert.match(none.tooltip, /4 relists in all/);
  });
});
