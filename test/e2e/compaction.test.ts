/**
 * etcd compaction → 410 → relist at the last RV, through the TCP fault proxy, against a real
 * kube-apiserver whose ConfigMap watch cache is off (--watch-cache-sizes=configmaps#0), so
 * watches and lists go to etcd and a compacted resourceVersion gives etcd's own 410.
 * kube-apiserver compacts etcd every --etcd-compaction-interval (to the revision it saw one
 * interval earlier). After the fault the store must equal a fresh consistent LIST.
 */
import { strict as assert } from 'node:assert';
import { useCluster } from './cluster';
import { assertEngineOnlyGot, cmBody, createConfigMaps, createNamespace, sleep } from './helpers';
import { startInformer, useInformers, watchEnds } from './informerHarness';

describe('e2e: etcd compaction → 410 → relist', function () {
  this.timeout(180_000);
  const cluster = useCluster({ apiserverFlags: ['--watch-cache-sizes=configmaps#0', '--etcd-compaction-interval=2s'] });
  const { start, proxy } = useInformers(cluster);

  it('v1.32: with the watch cache off, the initial LIST at RV 0 is paginated (3 pages of ≤500 for 1100 objects) and stays paginated', async () => {
    const c = cluster();
    await createNamespace(c, 'pages');
    await createConfigMaps(c, 'pages', 'cm', 1100);
    const r = start(c, { profile: 'v1.32', namespace: 'pages', server: proxy().url });
    await r.waitConsistent(c);
    const lists = r.of('request').filter((q) => q.verb === 'list');
    assert.deepEqual(lists.map((q) => [q.rv, q.limit, !!q.continue]), [['0', 500, false], ['', 500, true], ['', 500, true]]);
    const done = r.of('list.done')[0];
    assert.deepEqual([done.items, done.pages, done.paginated], [1100, 3, true]);
    assert.equal(r.of('list.page').length, 3);
    const watch = r.of('request').find((q) => q.verb === 'watch');
    assert.equal(watch?.rv, done.rv);
  });

  for (const profile of ['v1.32', 'v1.36']) {
    it(`${profile}: a re-watch at a compacted RV gets 410 and relists at the last RV; deletes made meanwhile leave the store`, async () => {
      const c = cluster();
      const ns = `compact-${profile.replace('.', '')}`;
      await createNamespace(c, ns);
      await createConfigMaps(c, ns, 'cm', 30);
      const r = start(c, { profile, namespace: ns, server: proxy().url });
      await r.waitConsistent(c);
      await sleep(1_500); // so the cut does not end a "very short" watch (row 5), which relists by itself
      const lastRV = r.informer.lastSyncResourceVersion();
      const since = r.events.length;

      // Cut the engine off; meanwhile change things and let etcd compact past its RV.
      await proxy().stopListening();
      proxy().cutAll('reset');
      for (let i = 0; i < 10; i++) await c.adminOk('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm-${i}`);
      for (let i = 0; i < 5; i++) await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, `new-${i}`));
      await sleep(5_000); // > 2 compaction intervals
      await proxy().listen();

      await r.waitConsistent(c, 60_000);
      const ends = r.of('watch.end', since);
      const expired = ends.find((e) => e.reason === 'Expired' || e.reason === 'Gone');
      assert.ok(expired, watchEnds(r, since).join(' '));
      assert.ok([9, 10].includes(expired.row), JSON.stringify(expired));
      assert.match(expired.error ?? '', /too old/i);
      const relist = r.of('relist', since)[0];
      assert.ok(relist, 'a relist followed');
      // Relist at the last RV (not a consistent read): client-go never sets the unavailable flag from a watch.
      assert.equal(relist.rv, lastRV);
      assert.equal(relist.consistent, false);
      // The relist itself may hit the compacted RV too (a LIST at a compacted RV from etcd is
      // Expired) and then retries at once with RV "" (row 9's second half).
      const deletes = r.of('notify', since).filter((n) => n.op === 'delete');
      assert.equal(deletes.length, 10);
      assert.ok(deletes.every((d) => d.tombstone === true), 'deletes seen only through a relist arrive as DeletedFinalStateUnknown');
    });
  }

  it('the engine sent nothing but GET requests (audit log)', () => {
    assertEngineOnlyGot(cluster());
  });
});

describe('e2e: kube-apiserver with --feature-gates=WatchList=false', function () {
  this.timeout(120_000);
  const cluster = useCluster({ apiserverFlags: ['--feature-gates=WatchList=false'] });

  it('v1.36: the watch-list request is refused and the reflector falls back to a LIST in the same ListAndWatch', async () => {
    const c = cluster();
    await createNamespace(c, 'nowl');
    await createConfigMaps(c, 'nowl', 'cm', 50);
    const r = startInformer(c, { profile: 'v1.36', namespace: 'nowl' });
    try {
      await r.waitConsistent(c);
      const reqs = r.of('request').map((q) => `${q.verb}${q.sendInitialEvents ? '+initial' : ''} rv=${q.rv}`);
      assert.deepEqual(reqs.slice(0, 3), ['watch+initial rv=', 'list rv=0', `watch rv=${r.of('list.done')[0].rv}`]);
      assert.equal(r.of('watchlist.fallback').length, 1);
      assert.match(r.of('watchlist.fallback')[0].text, /sendInitialEvents is forbidden|WatchList/);
      assert.equal(r.of('relist').length, 0);
    } finally {
      await r.stop();
    }
    assertEngineOnlyGot(c);
  });
});
