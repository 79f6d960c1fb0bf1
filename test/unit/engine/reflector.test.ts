import { strict as assert } from 'node:assert';
import { cm, errorEvent, expired, rig, tooMany } from './reflectorHarness';

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

describe('Reflector: watch.opened says the server accepted the watch', () => {
  it('follows watch.start once the stream is open, and is absent when the open is refused', async () => {
    const r = rig([
      { on: 'list', rv: '10', items: [] },
      { on: 'watch', network: 'connection-refused' },
      { on: 'watch', events: [], close: 'never', openDelayMs: 40 },
    ]);
    await r.runUntil(() => r.sink.of('watch.opened').length === 1);
    const seen = r.sink.events.filter((e) => e.type === 'watch.start' || e.type === 'watch.opened' || e.type === 'watch.end').map((e) => `${e.type}@${e.t}`);
    const start2 = r.sink.of('watch.start')[1].t;
    assert.deepEqual(seen, ['watch.start@0', 'watch.end@0', `watch.start@${start2}`, `watch.opened@${start2 + 40}`]);
    assert.equal(r.sink.of('watch.opened')[0].watchList, false);
    await r.stop();
  });
});

describe('Reflector: pagination decisions (§1.5)', () => {
  it('a specific RV relist is unpaginated; a paginated RV "0" list makes every later list paginated', async () => {
    const r = rig([
      { on: 'list', rv: '10', items: [cm('a', '1')], continue: 't1' },
      { on: 'list', rv: '10', items: [cm('b', '2')] },
      { on: 'watch', events: [errorEvent(expired)] },
      { on: 'list', rv: '12', items: [] },
    ]);
    await r.runUntil(() => r.lw.calls.length === 5);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'list rv= limit=500 continue=t1', 'watch rv=10', 'list rv=10 limit=500', 'watch rv=12']);
    const done = r.sink.of('list.done')[0];
    assert.deepEqual([done.pages, done.paginated, done.items], [2, true, 2]);
    await r.stop();
  });

  it('without the sticky flag, a relist at a specific RV sends no limit', async () => {
    const r = rig([{ on: 'list', rv: '10' }, { on: 'watch', events: [errorEvent(expired)] }, { on: 'list', rv: '12' }]);
    await r.runUntil(() => r.lw.calls.length === 4);
    assert.deepEqual(r.sink.requests().slice(0, 3), ['list rv=0 limit=500', 'watch rv=10', 'list rv=10']);
    await r.stop();
  });

  it('an expired continue token on page 2 makes one full list at the original RV', async () => {
    const r = rig([{ on: 'list', rv: '10', continue: 't1' }, { on: 'list', status: { ...expired, message: 'continue too old' } }, { on: 'list', rv: '15' }]);
    await r.runUntil(() => r.lw.calls.length === 4);
    assert.deepEqual(r.sink.requests().slice(0, 3), ['list rv=0 limit=500', 'list rv= limit=500 continue=t1', 'list rv=0']);
    assert.equal(r.sink.of('list.expiredContinue').length, 1);
    assert.equal(r.reflector.lastSyncResourceVersion(), '15');
    await r.stop();
  });

  it('v1.15 lists at RV "0" every time', async () => {
    const r = rig([{ on: 'list', rv: '10' }, { on: 'watch', events: [errorEvent(expired)] }, { on: 'list', rv: '12' }], { profileName: 'v1.15' });
    await r.runUntil(() => r.lw.calls.length === 4);
    assert.deepEqual(r.sink.requests().slice(0, 3), ['list rv=0 limit=500', 'watch rv=10', 'list rv=0 limit=500']);
    await r.stop();
  });
});

describe('Reflector: one shared backoff', () => {
  it('429s while re-watching lengthen the next relist delay', async () => {
    const r = rig([
      { on: 'list', rv: '10' },
      { on: 'watch', status: tooMany },
      { on: 'watch', status: tooMany },
      { on: 'watch', events: [errorEvent(expired)] },
      { on: 'list', rv: '11' },
    ]);
    await r.runUntil(() => r.lw.calls.length === 6);
    assert.deepEqual(
      r.sink.of('backoff').map((b) => [b.purpose, b.baseMs]),
      [
        ['watch-retry', 800],
        ['watch-retry', 1600],
        ['run-loop', 3200],
      ],
    );
    await r.stop();
  });
});

describe('Reflector: cancellation', () => {
  it('stops promptly during a run-loop backoff', async () => {
    const r = rig([{ on: 'list', network: 'connection-refused' }]);
    await r.runUntil(() => r.sink.of('backoff').length === 1, 0);
    assert.equal(r.sink.of('reflector.state').at(-1)?.state, 'backoff');
    await r.stop();
    assert.equal(r.clock.now(), 0, 'no virtual time had to pass');
  });

  it('stops promptly while a list never answers ("Caches populated" is still logged, as upstream)', async () => {
    const r = rig([]);
    await r.runUntil(() => r.lw.calls.length === 1);
    await r.stop();
    assert.equal(r.sink.of('watch.start').length, 0);
    assert.ok(r.sink.logs().includes('Caches populated'));
    assert.equal(r.sink.logs().at(-1), 'Stopping reflector');
  });

  it('stops promptly while a watch is being opened (no handler call, nothing left behind)', async () => {
    const r = rig([{ on: 'list', rv: '10' }, { on: 'watch', openDelayMs: 5000, close: 'never' }]);
    await r.runUntil(() => r.lw.calls.length === 2, 0);
    await r.stop();
    assert.deepEqual(r.sink.of('watchErrorHandler'), []);
  });
});

describe('Reflector: log texts per profile.logStyle', () => {
  it('v1.32 prints the printf-style texts of ≤v0.32', async () => {
    const r = rig([{ on: 'list', rv: '10' }, { on: 'watch', events: [errorEvent(expired)] }, { on: 'list', network: 'connection-refused' }], { profileName: 'v1.32' });
    await r.runUntil(() => r.sink.of('watchErrorHandler').length === 1);
    const logs = r.sink.of('log').map((l) => [l.level, l.msg]);
    assert.deepEqual(logs.slice(0, 3), [
      ['v3', 'Starting reflector /v1, Kind=ConfigMap (0s) from test-reflector'],
      ['v3', 'Listing and watching /v1, Kind=ConfigMap from test-reflector'],
      ['v2', 'Caches populated for /v1, Kind=ConfigMap from test-reflector'],
    ]);
    assert.ok(logs.some(([lv, m]) => lv === 'v4' && m === `test-reflector: watch of /v1, Kind=ConfigMap closed with: ${expired.message}`));
    assert.ok(logs.some(([lv, m]) => lv === 'warning' && m.startsWith('test-reflector: failed to list /v1, Kind=ConfigMap: Get ')));
    assert.ok(logs.some(([lv, m]) => lv === 'error' && m.startsWith('test-reflector: Failed to watch /v1, Kind=ConfigMap: failed to list /v1, Kind=ConfigMap: Get ')));
    assert.ok(r.sink.of('log').every((l) => l.kv === undefined));
    await r.stop();
  });

  it('a custom watchErrorHandler replaces the default log', async () => {
    const seen: string[] = [];
    const r = rig([{ on: 'list', status: { code: 403, reason: 'Forbidden', message: 'nope' } }], { watchErrorHandler: (e) => seen.push(e.message) });
    await r.runUntil(() => seen.length === 1);
    assert.deepEqual(seen, ['failed to list /v1, Kind=ConfigMap: nope']);
    assert.ok(!r.sink.logs().includes('Failed to watch'));
    await r.stop();
  });
});
