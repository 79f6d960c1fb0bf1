import { strict as assert } from 'node:assert';
import { cm, errorEvent, expired, rig } from './reflectorHarness';

describe('Reflector: list, watch, relist', () => {
  it('lists at RV "0" with limit 500, replaces the store, then watches at the list RV', async () => {
    const r = rig([
      { on: 'list', rv: '10', items: [cm('a', '5'), cm('b', '7')] },
      { on: 'watch', events: [{ type: 'MODIFIED', object: cm('a', '11') }], close: 'never' },
    ]);
    await r.runUntil(() => r.store.calls.length === 2);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10']);
    assert.deepEqual(r.store.calls, [
      { op: 'replace', keys: ['default/a', 'default/b'], rv: '10' },
      { op: 'update', key: 'default/a', rv: '11' },
    ]);
    assert.equal(r.reflector.lastSyncResourceVersion(), '11');
    const watchReq = r.sink.of('request')[1];
    assert.equal(watchReq.allowWatchBookmarks, true);
    assert.equal(watchReq.timeoutSeconds, 300);
    await r.stop();
  });

  it('relists at the last RV after a 410 ERROR event, after one backoff delay', async () => {
    const r = rig([
      { on: 'list', rv: '10', items: [] },
      { on: 'watch', events: [{ type: 'MODIFIED', object: cm('a', '11') }, errorEvent(expired)] },
      { on: 'list', rv: '25', items: [] },
    ]);
    await r.runUntil(() => r.lw.remaining() === 0 && r.sink.of('list.done').length === 2);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'list rv=11', 'watch rv=25']);
    const end = r.sink.of('watch.end')[0];
    assert.equal(end.row, 9);
    assert.equal(end.outcome, 'relist');
    assert.equal(end.reason, 'Expired');
    const relist = r.sink.of('relist')[0];
    assert.deepEqual({ reason: relist.reason, row: relist.row, rv: relist.rv, consistent: relist.consistent }, { reason: 'Expired', row: 9, rv: '11', consistent: false });
    const backoff = r.sink.of('backoff')[0];
    assert.deepEqual({ purpose: backoff.purpose, baseMs: backoff.baseMs, sleepMs: backoff.sleepMs }, { purpose: 'run-loop', baseMs: 800, sleepMs: 800 });
    assert.equal(relist.t, 800);
    await r.stop();
  });
});
