/**
 * Faults injected under a real SharedIndexInformer (real Reflector, FIFO, listeners), recorded by a
 * TraceRecorder, and read back by the findings: cause (fault.injected) and effect side by side.
 */
import { strict as assert } from 'assert';
import { FakeClock } from '../../../src/engine/clock';
import type { ListerWatcher, ListOptions, ObjectList, StreamEnd, WatchEvent, Watcher } from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { findProfile, withGates } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { FaultInjectingListerWatcher } from '../../../src/sources/faults';
import { checkConsistency } from '../../../src/trace/consistency';
import { computeFindings } from '../../../src/trace/findings';
import { TraceRecorder } from '../../../src/trace/recorder';
import { header } from '../trace/fixtures';

/** A watcher fed by the cluster; it never ends on its own. */
class LiveWatcher implements Watcher {
  end?: StreamEnd;
  private readonly queue: WatchEvent[] = [];
  private waiting?: (v: WatchEvent | null) => void;
  deliver(ev: WatchEvent): void {
    if (this.end) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w(ev);
    } else this.queue.push(ev);
  }
  next(): Promise<WatchEvent | null> {
    if (this.end) return Promise.resolve(null);
    const ev = this.queue.shift();
    if (ev) return Promise.resolve(ev);
    return new Promise((r) => (this.waiting = r));
  }
  stop(): void {
    this.end ??= { kind: 'stopped' };
    this.waiting?.(null);
    this.waiting = undefined;
  }
}

/** An in-memory apiserver for one namespaced resource: lists everything, broadcasts changes to live watches. */
class MemoryCluster implements ListerWatcher {
  readonly url = 'https://127.0.0.1:6443/api/v1/configmaps';
  readonly watchListSupported = false;
  private rv = 10;
  private readonly objects = new Map<string, KubeObject>();
  readonly watchers: LiveWatcher[] = [];
  put(name: string): void {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, resourceVersion: String(++this.rv) } };
    const type = this.objects.has(name) ? 'MODIFIED' : 'ADDED';
    this.objects.set(name, obj);
    this.broadcast({ type, object: obj });
  }
  remove(name: string): void {
    const obj = this.objects.get(name);
    if (!obj) return;
    this.objects.delete(name);
    this.broadcast({ type: 'DELETED', object: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } } });
  }
  async list(_o: ListOptions): Promise<ObjectList> {
    return { metadata: { resourceVersion: String(this.rv) }, items: [...this.objects.values()] };
  }
  async watch(): Promise<Watcher> {
    const w = new LiveWatcher();
    this.watchers.push(w);
    return w;
  }
  private broadcast(ev: WatchEvent): void {
    for (const w of this.watchers) w.deliver(ev);
  }
}

function setup(profileName: string, slowHandlerMs = 0) {
  const clock = new FakeClock();
  const cluster = new MemoryCluster();
  for (const n of ['a', 'b', 'c', 'd']) cluster.put(n);
  const base = findProfile(profileName);
  assert.ok(base);
  const profile = withGates(base, { WatchListClient: false });
  const { dropped: _d, ...h } = header({ profile: profileName, source: 'sandbox' });
  const rec = new TraceRecorder(h);
  const lw = new FaultInjectingListerWatcher(cluster, { clock, sink: rec });
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock, sink: rec, rand: () => 0, resyncPeriodMs: 0, name: 'faults' });
  informer.addEventHandler('main', {});
  if (slowHandlerMs > 0) informer.addEventHandler('slow', { onUpdate: () => clock.sleep(slowHandlerMs) });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const stop = async () => {
    ac.abort();
    await running;
  };
  return { clock, cluster, rec, lw, informer, stop };
}

const ids = (rec: TraceRecorder) => computeFindings(rec.header(), rec.events()).map((f) => f.id.split(':')[0]);

describe('faults under a real informer, read by the findings', () => {
  it('dropNextDelete leaves a deleted object in the cache; the consistency check and stale-cache finding see it', async () => {
    const { clock, cluster, rec, lw, informer, stop } = setup('v1.36');
    assert.equal(await clock.runUntilIdle(() => informer.hasSynced() && cluster.watchers.length > 0 && informer.isIdle()), 'done');
    lw.dropNextDelete();
    cluster.remove('a');
    cluster.remove('b');
    await clock.advance(100);
    assert.deepEqual(informer.getIndexer().listKeys().sort(), ['default/a', 'default/c', 'default/d'], 'only the second delete reached the cache');
    let result: Awaited<ReturnType<typeof checkConsistency>> | undefined;
    void checkConsistency({ listerWatcher: lw, cache: informer.getIndexer(), clock, sink: rec, lastSyncResourceVersion: () => informer.lastSyncResourceVersion() }).then((r) => (result = r));
    assert.equal(await clock.runUntilIdle(() => result !== undefined, 60_000), 'done');
    assert.deepEqual(result?.extra, ['default/a']);
    assert.deepEqual(result?.missing, []);
    const stale = computeFindings(rec.header(), rec.events()).find((f) => f.id.startsWith('stale-cache'));
    assert.ok(stale, 'stale-cache finding');
    assert.match(stale.detail, /default\/a/);
    const types = stale.evidence.map((s) => rec.events().find((e) => e.seq === s)?.type);
    assert.deepEqual(types, ['fault.injected', 'consistency.check']);
    await stop();
  });

  it('refuseConnections under v1.15: the restart relists and floods the handler with identical updates', async () => {
    const { clock, cluster, rec, lw, informer, stop } = setup('v1.15');
    assert.equal(await clock.runUntilIdle(() => informer.hasSynced() && cluster.watchers.length > 0 && informer.isIdle()), 'done');
    await clock.advance(5000);
    lw.refuseConnections(3000);
    const restartedAt = clock.now();
    const listsBefore = rec.events().filter((e) => e.type === 'list.done').length;
    assert.equal(
      await clock.runUntilIdle(() => clock.now() >= restartedAt + 3000 && rec.events().filter((e) => e.type === 'list.done').length > listsBefore && informer.isIdle(), 60_000),
      'done',
      JSON.stringify(rec.events().slice(-5)),
    );
    const found = ids(rec);
    assert.ok(found.includes('refused-watch-relist'), JSON.stringify(found));
    assert.ok(found.includes('identical-updates-after-relist'), JSON.stringify(found));
    const fault = rec.events().find((e) => e.type === 'fault.injected');
    const relist = rec.events().find((e) => e.type === 'relist');
    assert.ok(fault && relist && fault.seq < relist.seq, 'the fault precedes its effect on the timeline');
    await stop();
  });

  it('refuseConnections under v1.36: backs off and re-watches, no relist, no identical updates', async () => {
    const { clock, cluster, rec, lw, informer, stop } = setup('v1.36');
    assert.equal(await clock.runUntilIdle(() => informer.hasSynced() && cluster.watchers.length > 0 && informer.isIdle()), 'done');
    await clock.advance(5000);
    lw.refuseConnections(3000);
    const restartedAt = clock.now();
    assert.equal(await clock.runUntilIdle(() => clock.now() >= restartedAt + 3000 && cluster.watchers.length > 1 && informer.isIdle(), 60_000), 'done');
    assert.equal(rec.events().filter((e) => e.type === 'relist').length, 0);
    const found = ids(rec);
    assert.ok(!found.includes('refused-watch-relist') && !found.includes('identical-updates-after-relist'), JSON.stringify(found));
    await stop();
  });

  it('a slow handler under a burst of updates: its buffer grows and the slow-handler finding names it', async () => {
    const { clock, cluster, rec, informer, stop } = setup('v1.36', 300);
    assert.equal(await clock.runUntilIdle(() => informer.hasSynced() && cluster.watchers.length > 0 && informer.isIdle()), 'done');
    for (let i = 0; i < 150; i++) cluster.put(['a', 'b', 'c', 'd'][i % 4]);
    assert.equal(await clock.runUntilIdle(() => informer.isIdle(), 3_600_000), 'done');
    const slow = computeFindings(rec.header(), rec.events()).filter((f) => f.id.startsWith('slow-handler'));
    assert.deepEqual(slow.map((f) => f.id), ['slow-handler:slow'], 'only the slow handler is named');
    assert.equal(slow[0].severity, 'warning');
    assert.match(slow[0].title, /notifications waiting/);
    await stop();
  });

  it('a long apiserver outage under v1.15 is a relist storm of refused connections', async () => {
    const { clock, cluster, rec, lw, informer, stop } = setup('v1.15');
    assert.equal(await clock.runUntilIdle(() => informer.hasSynced() && cluster.watchers.length > 0 && informer.isIdle()), 'done');
    await clock.advance(5000);
    lw.refuseConnections(10_000);
    const until = clock.now() + 10_000;
    assert.equal(await clock.runUntilIdle(() => clock.now() >= until && cluster.watchers.length > 1 && informer.isIdle(), 60_000), 'done');
    const storm = computeFindings(rec.header(), rec.events()).find((f) => f.id === 'relist-storm');
    assert.ok(storm, 'relist-storm');
    assert.match(storm.detail, /ConnectionRefused ×\d+/);
    assert.ok(storm.evidence.length >= 5);
    await stop();
  });
});
