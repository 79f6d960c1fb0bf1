import { strict as assert } from 'node:assert';
import { settle } from '../../../src/engine/clock';
import { type TestSandbox, keyOf, openWatch, rvOf, testSandbox } from './helpers';

const INITIAL_END = 'k8s.io/initial-events-end';

describe('sandbox: WATCH', () => {
  let t: TestSandbox;
  beforeEach(async () => (t = await testSandbox({ windowSize: 30, bookmarkIntervalMs: 10_000 })));
  afterEach(async () => t.sb.stop());

  const bump = (key: string, value: string) =>
    t.sb.storage.update('configmaps', key, (cm) => ({ ...cm, data: { revision: value } }));

  it('from an RV: replays the window after it, then streams live changes in order', async () => {
    const from = t.sb.storage.currentRV;
    bump('default/web-config', 'a');
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${from}`);
    const [replayed] = await w.take(1);
    assert.deepEqual([replayed.type, keyOf(replayed), rvOf(replayed)], ['MODIFIED', 'default/web-config', String(from + 1)]);
    t.sb.storage.create('configmaps', { metadata: { namespace: 'team-a', name: 'fresh' } });
    t.sb.storage.delete('configmaps', 'team-b/db-settings');
    const live = await w.take(2);
    assert.deepEqual(live.map((e) => [e.type, keyOf(e), rvOf(e)]), [
      ['ADDED', 'team-a/fresh', String(from + 2)],
      ['DELETED', 'team-b/db-settings', String(from + 3)],
    ]);
    assert.equal(live[0].object.kind, 'ConfigMap', 'watch objects carry their kind');
    await w.cancel();
  });

  it('with RV "" or "0": synthetic ADDED events for the current state first, no bookmark', async () => {
    const w = await openWatch(t, '/api/v1/namespaces/team-a/configmaps?watch=1');
    const initial = await w.take(4);
    assert.deepEqual(initial.map((e) => e.type), ['ADDED', 'ADDED', 'ADDED', 'ADDED']);
    assert.deepEqual(initial.map(keyOf), ['team-a/cache-tuning', 'team-a/db-settings', 'team-a/feature-flags', 'team-a/web-config']);
    bump('default/web-config', 'other namespace');
    bump('team-a/web-config', 'x');
    const [next] = await w.take(1);
    assert.deepEqual([next.type, keyOf(next)], ['MODIFIED', 'team-a/web-config'], 'other namespaces are filtered out');
    await w.cancel();
  });

  it('watch-list: ADDED for the current state, then the initial-events-end BOOKMARK at the current RV, then live events', async () => {
    const current = t.sb.storage.currentRV;
    const w = await openWatch(
      t,
      '/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=',
    );
    const events = await w.take(13);
    assert.deepEqual(events.slice(0, 12).map((e) => e.type), Array(12).fill('ADDED'));
    const end = events[12];
    assert.equal(end.type, 'BOOKMARK');
    assert.equal(end.object.metadata?.annotations?.[INITIAL_END], 'true');
    assert.equal(rvOf(end), String(current));
    bump('team-b/web-config', 'y');
    const [live] = await w.take(1);
    assert.deepEqual([live.type, rvOf(live)], ['MODIFIED', String(current + 1)]);
    await w.cancel();
  });

  it('watch-list validation: NotOlderThan and allowWatchBookmarks are required; the gate can be off', async () => {
    const noMatch = await t.json('/api/v1/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true');
    assert.deepEqual([noMatch.status, noMatch.body.reason], [422, 'Invalid']);
    assert.match(String(noMatch.body.message), /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);
    const noBookmarks = await t.json('/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
    assert.equal(noBookmarks.status, 422);
    const plainMatch = await t.json('/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=5');
    assert.equal(plainMatch.status, 422);
    const off = await (async () => {
      const other = await testSandbox({ watchListEnabled: false });
      try {
        return await other.json('/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
      } finally {
        await other.sb.stop();
      }
    })();
    assert.equal(off.status, 422);
    assert.match(String(off.body.message), /sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/);
  });

  it('sends periodic bookmarks, one shortly before timeoutSeconds, then ends the stream cleanly', async () => {
    const from = t.sb.storage.currentRV;
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${from}&allowWatchBookmarks=true&timeoutSeconds=25`);
    await t.clock.advance(10_000);
    const [first] = await w.take(1);
    assert.deepEqual([first.type, rvOf(first)], ['BOOKMARK', String(from)]);
    assert.equal(first.object.metadata?.annotations, undefined);
    bump('default/web-config', 'z');
    await t.clock.advance(10_000);
    const [change, second] = await w.take(2);
    assert.equal(change.type, 'MODIFIED');
    assert.deepEqual([second.type, rvOf(second)], ['BOOKMARK', String(from + 1)]);
    await t.clock.advance(3_000); // 23 s: 2 s before the 25 s timeout
    const [beforeEnd] = await w.take(1);
    assert.equal(beforeEnd.type, 'BOOKMARK');
    await t.clock.advance(2_000);
    assert.deepEqual(await w.rest(), [], 'the stream ends at timeoutSeconds with nothing more');
    assert.equal(w.ended, true);
  });

  it('sends no bookmarks unless allowed', async () => {
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${t.sb.storage.currentRV}&timeoutSeconds=15`);
    await t.clock.advance(15_000);
    assert.deepEqual(await w.rest(), []);
  });

  it('an RV older than the window gets one ERROR event 410 Expired "too old resource version" and the stream ends', async () => {
    const old = t.sb.storage.currentRV - 5;
    t.sb.storage.compact();
    const start = t.sb.storage.windowStartRV;
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${old}&allowWatchBookmarks=true`);
    const events = await w.rest();
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'ERROR');
    assert.deepEqual(
      [events[0].object.kind, events[0].object.code, events[0].object.reason, events[0].object.message],
      ['Status', 410, 'Expired', `too old resource version: ${old} (${start})`],
    );
  });

  it('a selector turns changes that move objects in or out of it into ADDED and DELETED', async () => {
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${t.sb.storage.currentRV}&labelSelector=stage%3Dlive`);
    const relabel = (stage: string) =>
      t.sb.storage.update('configmaps', 'default/web-config', (cm) => ({ ...cm, metadata: { ...cm.metadata, labels: { stage } } }));
    relabel('live');
    relabel('live');
    relabel('draft');
    const events = await w.take(3);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    await w.cancel();
  });

  it('a watch on one object name and on a custom resource', async () => {
    const w = await openWatch(t, '/apis/demo.example.com/v1/namespaces/default/widgets?watch=true&fieldSelector=metadata.name%3Dblue');
    const [initial] = await w.take(1);
    assert.deepEqual([initial.type, keyOf(initial), initial.object.apiVersion], ['ADDED', 'default/blue', 'demo.example.com/v1']);
    t.sb.storage.update('widgets.demo.example.com', 'default/blue', (o) => ({ ...o, spec: { size: 9 } }));
    const [mod] = await w.take(1);
    assert.deepEqual(mod.object.spec, { size: 9 });
    await w.cancel();
  });

  it('forgets a watch whose client went away', async () => {
    const w = await openWatch(t, '/api/v1/configmaps?watch=true&allowWatchBookmarks=true');
    await w.take(12);
    await w.cancel();
    for (let i = 0; i < 20 && t.clock.pendingTimers() > 1; i++) await settle();
    assert.equal(t.clock.pendingTimers(), 1, 'only the lifetime timer is left');
  });
});
