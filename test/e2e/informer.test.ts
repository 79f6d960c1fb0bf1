/**
 * The engine (SharedIndexInformer + Reflector) with the HTTP ListerWatcher against a real
 * kube-apiserver v1.36.3 + etcd v3.6: initial sync of >1000 objects, watch events, a server-side
 * watch timeout, an apiserver restart (v1.36 re-watches, v1.15 relists with identical updates).
 * After every fault the store must equal a fresh consistent LIST; the audit log must show that
 * the engine sent only GETs. The tests write with the admin user; the engine only reads.
 */
import { strict as assert } from 'node:assert';
import { useCluster } from './cluster';
import { assertEngineOnlyGot, cmBody, createConfigMaps, createNamespace, sleep, waitFor } from './helpers';
import { useInformers, watchEnds } from './informerHarness';

/**
 * kube-apiserver writes to etcd in the background (its identity lease every 10 s, the endpoint
 * reconciler). Those writes raise etcd's revision, and a restarted watch cache starts at the
 * current revision, so a re-watch at the last RV a client saw for ConfigMaps would get 410.
 * Turning them off keeps the revision still across the restart, which is what the story of
 * PR #81634 needs: the re-watch itself must be possible so that only the client's decision differs.
 */
const QUIET = ['--feature-gates=APIServerIdentity=false,UnknownVersionInteroperabilityProxy=false', '--endpoint-reconciler-type=none'];

describe('e2e: informer against kube-apiserver', function () {
  this.timeout(180_000);
  const cluster = useCluster({ apiserverFlags: [...QUIET, '--min-request-timeout=4'] });
  const { start, proxy } = useInformers(cluster);

  it('initial sync of 1100 ConfigMaps: v1.36 by watch-list, v1.32 by LIST at RV 0; store == fresh LIST', async () => {
    const c = cluster();
    await createNamespace(c, 'bulk');
    await createConfigMaps(c, 'bulk', 'cm', 1100);
    const v136 = start(c, { profile: 'v1.36', namespace: 'bulk' });
    const v132 = start(c, { profile: 'v1.32', namespace: 'bulk' });
    await v136.waitConsistent(c);
    await v132.waitConsistent(c);
    assert.equal(v136.informer.getIndexer().list().length, 1100);

    const r136 = v136.of('request');
    assert.equal(r136[0].verb, 'watch');
    assert.equal(r136[0].sendInitialEvents, true);
    assert.equal(r136[0].resourceVersionMatch, 'NotOlderThan');
    assert.equal(v136.of('list.start').length, 0, 'v1.36 synced through watch-list, no LIST');
    assert.equal(v136.of('watch.event').filter((e) => e.initialEventsEnd).length, 1);

    const r132 = v132.of('request');
    assert.deepEqual({ verb: r132[0].verb, rv: r132[0].rv, limit: r132[0].limit }, { verb: 'list', rv: '0', limit: 500 });
    const done = v132.of('list.done')[0];
    assert.equal(done.items, 1100);
    // The watch cache serves RV "0" in one piece whatever the limit.
    assert.equal(done.pages, 1);
    assert.equal(v132.of('request')[1].verb, 'watch');
    assert.equal(v132.of('request')[1].rv, done.rv);
    assert.equal(v132.of('relist').length + v136.of('relist').length, 0);
  });

  it('delivers create, update and delete made through the API as add, update, delete', async () => {
    const c = cluster();
    await createNamespace(c, 'events');
    const r = start(c, { profile: 'v1.36', namespace: 'events' });
    await waitFor('synced', () => r.informer.hasSynced());
    const since = r.events.length;
    const created = await c.adminOk<any>('POST', '/api/v1/namespaces/events/configmaps', cmBody('events', 'a'));
    const updated = await c.adminOk<any>('PUT', '/api/v1/namespaces/events/configmaps/a', { ...created, data: { v: '1' } });
    await c.adminOk('DELETE', '/api/v1/namespaces/events/configmaps/a');
    await waitFor('three notifications', () => r.of('notify', since).length >= 3);
    const n = r.of('notify', since).map((e) => `${e.op} ${e.key} ${e.rv}`);
    assert.deepEqual(n.slice(0, 2), [
      `add events/a ${created.metadata.resourceVersion}`,
      `update events/a ${updated.metadata.resourceVersion}`,
    ]);
    // The DELETED event carries the object at its deletion, with the deletion's resourceVersion.
    const del = r.of('notify', since)[2];
    assert.deepEqual([del.op, del.key], ['delete', 'events/a']);
    assert.ok(Number(del.rv) > Number(updated.metadata.resourceVersion));
    await r.waitConsistent(c);
  });

  it('a server-side watch timeout (--min-request-timeout) re-watches at the last RV without relisting', async () => {
    const c = cluster();
    await createNamespace(c, 'timeout');
    await createConfigMaps(c, 'timeout', 'cm', 20);
    const r = start(c, { profile: 'v1.36', namespace: 'timeout', serverChosenWatchTimeout: true });
    await r.waitConsistent(c);
    // kube-apiserver ends each watch after 4–8 s; wait for two endings.
    await waitFor('two server-side watch endings', () => r.of('watch.end').length >= 2, 40_000, 200);
    for (const end of r.of('watch.end').slice(0, 2)) {
      assert.equal(end.outcome, 'rewatch', JSON.stringify(end));
      // Row 1 (closed at timeoutSeconds) or row 2 (EOF): without timeoutSeconds in the request the
      // engine cannot tell a server-chosen timeout from any other clean close; both re-watch at once.
      assert.ok([1, 2].includes(end.row), JSON.stringify(end));
      assert.ok(end.durationMs >= 3_000, `the watch lasted ${end.durationMs} ms`);
    }
    const watches = r.of('request').filter((q) => q.verb === 'watch');
    assert.equal(watches[1].sendInitialEvents, undefined, 'the re-watch is a plain watch, not a new watch-list');
    assert.ok(watches[1].rv !== '' && watches[1].rv !== '0');
    assert.equal(r.of('relist').length, 0);
    assert.equal(r.of('list.start').length, 0);
    await r.waitConsistent(c);
  });

  it('apiserver restart: v1.36 re-watches after backoff without relisting; v1.15 relists and floods identical updates', async () => {
    const c = cluster();
    await createNamespace(c, 'old');
    await createNamespace(c, 'new');
    await createConfigMaps(c, 'old', 'cm', 12);
    await createConfigMaps(c, 'new', 'cm', 12);
    const v115 = start(c, { profile: 'v1.15', namespace: 'old' });
    const v136 = start(c, { profile: 'v1.36', namespace: 'new' });
    await v115.waitConsistent(c);
    await v136.waitConsistent(c);
    // The newest etcd revision must be one v1.36 has seen (see QUIET): write to its namespace last.
    await c.adminOk('POST', '/api/v1/namespaces/old/configmaps', cmBody('old', 'marker'));
    const marker = await c.adminOk<any>('POST', '/api/v1/namespaces/new/configmaps', cmBody('new', 'marker'));
    await waitFor('v1.36 to see the marker', () => v136.informer.lastSyncResourceVersion() === marker.metadata.resourceVersion);
    await waitFor('v1.15 to see its marker', () => v115.informer.getIndexer().list().length === 13);
    const s115 = v115.events.length;
    const s136 = v136.events.length;

    await c.restartApiserver();
    await v136.waitConsistent(c, 60_000);
    await v115.waitConsistent(c, 60_000);
    await waitFor('v1.15 identical updates', () => v115.of('distribute', s115).filter((d) => d.op === 'update').length >= 13, 30_000);

    // v1.36: the refused watch starts backed off and re-watched at the same RV (row 6); no LIST at all.
    const ends136 = watchEnds(v136, s136);
    assert.ok(ends136.includes('6:rewatch-after-backoff'), ends136.join(' '));
    assert.ok(v136.of('backoff', s136).length >= 1);
    assert.equal(v136.of('relist', s136).length, 0, ends136.join(' '));
    assert.equal(v136.of('list.start', s136).length, 0);
    assert.ok(v136.of('request', s136).filter((q) => q.verb === 'watch').every((q) => q.rv === marker.metadata.resourceVersion && !q.sendInitialEvents));
    assert.equal(v136.of('distribute', s136).filter((d) => d.op === 'update').length, 0, 'no updates at all');

    // v1.15: the same refused watch start relists (PR #81634 not yet in), and the relist at RV 0
    // hands every object to the handler again as an update whose old and new objects are equal.
    const relists = v115.of('relist', s115);
    assert.ok(relists.length >= 1);
    assert.ok(relists.every((e) => e.rv === '0'), JSON.stringify(relists));
    assert.ok(watchEnds(v115, s115).some((e) => e.startsWith('6:relist')), watchEnds(v115, s115).join(' '));
    const updates = v115.of('distribute', s115).filter((d) => d.op === 'update');
    assert.ok(updates.length >= 13);
    assert.deepEqual(updates.filter((u) => u.change !== 'identical'), []);
    assert.equal(new Set(updates.map((u) => u.key)).size, 13);
  });

  it('v1.36: connection reset and refused connections re-watch without relisting', async () => {
    const c = cluster();
    await createNamespace(c, 'faults');
    await createConfigMaps(c, 'faults', 'cm', 10);
    const r = start(c, { profile: 'v1.36', namespace: 'faults', server: proxy().url });
    await r.waitConsistent(c);
    await sleep(1_200); // so the watch is not "very short"
    const since = r.events.length;
    await c.adminOk('POST', '/api/v1/namespaces/faults/configmaps', cmBody('faults', 'before-cut'));
    await waitFor('the event', () => r.informer.getIndexer().list().length === 11);
    await proxy().refuseFor(3_000, { cut: 'reset' });
    await c.adminOk('POST', '/api/v1/namespaces/faults/configmaps', cmBody('faults', 'after-cut'));
    await r.waitConsistent(c, 30_000);
    const ends = watchEnds(r, since);
    // reset mid-stream → immediate re-watch (row 4), then refused → backoff and re-watch (row 6)
    assert.equal(ends[0], '4:rewatch', ends.join(' '));
    assert.ok(ends.includes('6:rewatch-after-backoff'), ends.join(' '));
    assert.equal(r.of('relist', since).length, 0);
  });

  it('v1.36: client-side timeouts (rest.Config.Timeout) and a stalled connection close watches quietly and re-watch', async () => {
    const c = cluster();
    await createNamespace(c, 'stall');
    await createConfigMaps(c, 'stall', 'cm', 5);
    const r = start(c, { profile: 'v1.36', namespace: 'stall', server: proxy().url, requestTimeoutMs: 4_000 });
    await r.waitConsistent(c);
    // Every watch ends after 4 s by the client timeout (row 4): re-watch at once, never relist.
    await waitFor('two client-timeout watch endings', () => r.of('watch.end').length >= 2, 20_000, 200);
    for (const end of r.of('watch.end').slice(0, 2)) {
      assert.deepEqual([end.row, end.how, end.outcome], [4, 'timeout', 'rewatch'], JSON.stringify(end));
    }
    const since = r.events.length;
    proxy().stall();
    await sleep(5_000);
    proxy().resume();
    await c.adminOk('POST', '/api/v1/namespaces/stall/configmaps', cmBody('stall', 'after-stall'));
    await r.waitConsistent(c, 30_000);
    assert.ok(r.of('watch.end', since).some((e) => e.how === 'timeout'), watchEnds(r, since).join(' '));
    assert.equal(r.of('relist').length, 0, watchEnds(r).join(' '));
  });

  it('the engine sent nothing but GET requests (audit log)', () => {
    assertEngineOnlyGot(cluster());
  });
});
