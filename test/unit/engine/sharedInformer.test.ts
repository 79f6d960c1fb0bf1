import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/engine/clock';
import type { ListerWatcher } from '../../../src/engine/listWatch';
import { isTombstone, type KubeObject } from '../../../src/engine/objects';
import { findProfile, type Profile } from '../../../src/engine/profiles';
import type { ReflectorOptions } from '../../../src/engine/reflector';
import { SharedIndexInformer, type ResourceEventHandler } from '../../../src/engine/sharedInformer';
import { CaptureSink, cm } from './informerFixtures';

const unusedLW: ListerWatcher = {
  url: 'https://127.0.0.1:6443/api/v1/configmaps',
  list: () => Promise.reject(new Error('not used')),
  watch: () => Promise.reject(new Error('not used')),
};

function profile(name: string): Profile {
  const p = findProfile(name);
  assert.ok(p, name);
  return p;
}

/** An informer whose reflector is a stand-in: the test writes into the FIFO (config.store) itself. */
function harness(profileName: string, resyncPeriodMs = 0) {
  const clock = new FakeClock();
  const sink = new CaptureSink();
  let config: ReflectorOptions | undefined;
  const informer = new SharedIndexInformer({
    listerWatcher: unusedLW,
    profile: profile(profileName),
    clock,
    sink,
    resyncPeriodMs,
    reflectorFactory: (c) => {
      config = c;
      return {
        run: (signal) => new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }))),
        lastSyncResourceVersion: () => 'from-reflector',
      };
    },
  });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  return {
    clock,
    sink,
    informer,
    /** Runs everything due now: promise chains and zero-delay timers (a woken Pop yields through one). */
    flush: () => clock.advance(0),
    start(): ReflectorOptions {
      running = informer.run(ac.signal);
      assert.ok(config);
      return config;
    },
    async stop(): Promise<void> {
      ac.abort();
      await running;
    },
  };
}

/** A handler that records one line per call. */
function recorder(): { lines: string[]; handler: ResourceEventHandler } {
  const lines: string[] = [];
  const name = (o: KubeObject) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  return {
    lines,
    handler: {
      onAdd: (o, initial) => void lines.push(`add ${name(o)}${initial ? ' initial' : ''}`),
      onUpdate: (a, b) => void lines.push(`update ${name(a)}->${b.metadata?.resourceVersion}`),
      onDelete: (o) => void lines.push(isTombstone(o) ? `delete tombstone ${o.key}@${o.obj?.metadata?.resourceVersion ?? ''}` : `delete ${name(o)}`),
    },
  };
}

const ALL = ['v1.15', 'v1.32', 'v1.34', 'v1.36'];

describe('sharedIndexInformer', () => {
  describe('initial list', () => {
    for (const p of ALL) {
      it(`${p}: delivers the list as adds in the initial list, then reports synced once`, async () => {
        const h = harness(p);
        const r = recorder();
        const reg = h.informer.addEventHandler('main', r.handler);
        const { store } = h.start();
        assert.equal(h.informer.hasSynced(), false);
        store.replace([cm('a', '1'), cm('b', '2')], '10');
        await h.flush();
        const flag = p === 'v1.15' ? '' : ' initial';
        assert.deepEqual(r.lines, [`add a@1${flag}`, `add b@2${flag}`]);
        assert.equal(h.informer.hasSynced(), true);
        assert.equal(reg.hasSynced(), true);
        assert.equal(h.sink.of('synced').length, 1);
        assert.deepEqual(h.informer.getIndexer().listKeys().sort(), ['default/a', 'default/b']);
        const notify = h.sink.of('notify')[0];
        assert.equal('initialList' in notify, p !== 'v1.15');
        assert.equal(h.informer.lastSyncResourceVersion(), 'from-reflector');
        await h.stop();
      });
    }

    it('reports the FIFO kind in informer.start', async () => {
      const kinds: [string, string, boolean][] = [];
      for (const p of ALL) {
        const h = harness(p);
        h.start();
        const e = h.sink.of('informer.start')[0];
        kinds.push([p, e.fifo, e.atomic]);
        await h.stop();
        assert.equal(h.sink.of('informer.stop').length, 1);
      }
      assert.deepEqual(kinds, [['v1.15', 'DeltaFIFO', false], ['v1.32', 'DeltaFIFO', false], ['v1.34', 'RealFIFO', false], ['v1.36', 'RealFIFO', true]]);
    });
  });

  describe('relists', () => {
    for (const p of ['v1.32', 'v1.34', 'v1.36']) {
      it(`${p}: an object missing from a relist is deleted with a tombstone; a changed RV is an update for everyone`, async () => {
        const h = harness(p, 1000);
        const main = recorder();
        const periodic = recorder();
        h.informer.addEventHandler('main', main.handler, 0);
        h.informer.addEventHandler('periodic', periodic.handler);
        const { store, shouldResync } = h.start();
        store.replace([cm('a', '1'), cm('b', '1')], '10');
        await h.flush();
        assert.equal(shouldResync?.(), false, 'nobody is due at t=0');
        store.replace([cm('a', '2')], '20');
        await h.flush();
        // DeltaFIFO queues the list items before the tombstones; RealFIFO (and ReplacedAll) the other way round.
        const expected = p === 'v1.32' ? ['update a@1->2', 'delete tombstone default/b@1'] : ['delete tombstone default/b@1', 'update a@1->2'];
        for (const r of [main, periodic]) assert.deepEqual(r.lines.slice(2), expected);
        const dist = h.sink.of('distribute').filter((e) => e.op === 'update');
        assert.deepEqual(dist.map((e) => [e.isSync, e.delivered, e.skipped, e.change, e.oldRv, e.rv]), [[false, 2, 0, 'resourceVersion', '1', '2']]);
        await h.stop();
      });

      it(`${p}: a relist update with an unchanged RV is a sync and reaches only listeners due for resync`, async () => {
        const h = harness(p, 1000);
        const main = recorder();
        const periodic = recorder();
        h.informer.addEventHandler('main', main.handler, 0);
        h.informer.addEventHandler('periodic', periodic.handler);
        const { store, shouldResync } = h.start();
        store.replace([cm('a', '1')], '10');
        await h.flush();
        assert.equal(shouldResync?.(), false);
        store.replace([cm('a', '1')], '11');
        await h.flush();
        assert.deepEqual([main.lines.length, periodic.lines.length], [1, 1], 'a sync reaches no listener that is not syncing');
        await h.clock.advance(1000);
        assert.equal(shouldResync?.(), true);
        store.replace([cm('a', '1')], '12');
        await h.flush();
        assert.deepEqual(periodic.lines.slice(1), ['update a@1->1']);
        assert.deepEqual(main.lines.slice(1), []);
        const last = h.sink.of('distribute').at(-1);
        assert.deepEqual([last?.isSync, last?.delivered, last?.skipped, last?.change], [true, 1, 1, 'identical']);
        await h.stop();
      });
    }

    it('v1.15 (delta-type rule): objects seen only through a relist reach only syncing listeners (PR #86015)', async () => {
      const results: Record<string, string[]> = {};
      for (const p of ['v1.15', 'v1.32']) {
        const h = harness(p, 1000);
        const main = recorder();
        h.informer.addEventHandler('main', main.handler, 0);
        const { store, shouldResync } = h.start();
        store.replace([cm('a', '1')], '10');
        await h.flush();
        shouldResync?.();
        store.replace([cm('a', '2'), cm('b', '1')], '20');
        await h.flush();
        results[p] = main.lines.slice(1);
        await h.stop();
      }
      assert.deepEqual(results['v1.15'], [], 'update and add were syncs and main was not syncing');
      assert.deepEqual(results['v1.32'], ['update a@1->2', 'add b@1']);
    });

    it('v1.32 (DeltaFIFO) ignores a watch delete of an unknown object; v1.34 (RealFIFO) delivers it', async () => {
      const out: Record<string, string[]> = {};
      for (const p of ['v1.32', 'v1.34']) {
        const h = harness(p);
        const r = recorder();
        h.informer.addEventHandler('main', r.handler);
        const { store } = h.start();
        store.replace([], '10');
        store.delete(cm('ghost', '11'));
        await h.flush();
        out[p] = r.lines;
        await h.stop();
      }
      assert.deepEqual(out, { 'v1.32': [], 'v1.34': ['delete ghost@11'] });
    });

    it('v1.36: a bookmark moves the indexer\'s store RV', async () => {
      const h = harness('v1.36');
      const { store } = h.start();
      store.replace([cm('a', '1')], '10');
      store.bookmark?.('15');
      await h.flush();
      assert.equal(h.informer.getIndexer().lastStoreSyncResourceVersion(), '15');
      await h.stop();
    });
  });

  describe('resync', () => {
    it('a new listener starts syncing: a resync before the first check reaches it', async () => {
      for (const p of ['v1.32', 'v1.34', 'v1.36']) {
        const h = harness(p, 1000);
        const r = recorder();
        h.informer.addEventHandler('main', r.handler, 0);
        const { store } = h.start();
        store.replace([cm('a', '1')], '10');
        await h.flush();
        store.resync();
        await h.flush();
        assert.deepEqual(r.lines, ['add a@1 initial', 'update a@1->1'], p);
        await h.stop();
      }
    });

    for (const p of ['v1.32', 'v1.34', 'v1.36']) {
      it(`${p}: two handlers at different periods resync at multiples of the lowered check period`, async () => {
        const h = harness(p, 10_000);
        const slow = recorder();
        const fast = recorder();
        const mid = recorder();
        h.informer.addEventHandler('default', slow.handler);
        h.informer.addEventHandler('fast', fast.handler, 2000);
        h.informer.addEventHandler('mid', mid.handler, 5000);
        const config = h.start();
        assert.equal(config.resyncPeriodMs, 2000, 'the check period was lowered before start');
        assert.equal(h.sink.of('informer.start')[0].resyncCheckPeriodMs, 2000);
        assert.deepEqual(h.sink.of('handler.added').map((e) => [e.handler, e.requestedResyncMs, e.effectiveResyncMs]), [
          ['default', 10_000, 10_000],
          ['fast', 2000, 2000],
          ['mid', 5000, 5000],
        ]);
        config.store.replace([cm('a', '1')], '10');
        await h.flush();
        config.shouldResync?.();
        const due: string[] = [];
        for (let t = 2000; t <= 10_000; t += 2000) {
          await h.clock.advance(2000);
          if (config.shouldResync?.()) config.store.resync();
          await h.flush();
          due.push(h.sink.of('resync.check').filter((e) => e.t === t && e.due).map((e) => e.handler).join('+'));
        }
        assert.deepEqual(due, ['fast', 'fast', 'fast+mid', 'fast', 'default+fast']);
        const syncs = (r: { lines: string[] }) => r.lines.filter((l) => l === 'update a@1->1').length;
        assert.deepEqual([syncs(fast), syncs(mid), syncs(slow)], [5, 1, 1]);
        await h.stop();
      });
    }

    it('warns about and adjusts periods: too small, smaller than the check period after start, informer without resync', async () => {
      const h = harness('v1.34', 2000);
      h.informer.addEventHandler('tiny', {}, 500);
      assert.equal(h.sink.of('handler.added')[0].effectiveResyncMs, 1000);
      h.start();
      h.informer.addEventHandler('late', {}, 1500);
      assert.equal(h.sink.of('handler.added')[1].effectiveResyncMs, 1500, 'tiny lowered the check period to 1000 before start');
      assert.equal(h.sink.of('informer.start')[0].resyncCheckPeriodMs, 1000);
      const h2 = harness('v1.34', 0);
      h2.informer.addEventHandler('wants', {}, 3000);
      assert.equal(h2.sink.of('handler.added')[0].effectiveResyncMs, 0);
      assert.deepEqual(h.sink.logs(), ['Warning: resync period is too small. Changing it to the minimum allowed value']);
      const h3 = harness('v1.34', 5000);
      h3.start();
      h3.informer.addEventHandler('late', {}, 2000);
      assert.equal(h3.sink.of('handler.added')[0].effectiveResyncMs, 5000);
      assert.deepEqual(h3.sink.of('log').map((e) => [e.msg, e.kv]), [
        ['Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period', { resyncPeriod: '2s', resyncCheckPeriod: '5s' }],
      ]);
      assert.deepEqual(h2.sink.of('log').map((e) => [e.msg, e.kv]), [
        ["Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", { desired: '3s' }],
      ]);
      await h.stop();
      await h3.stop();
    });
    it('≤v0.32 profiles print the printf-style klog warnings', async () => {
      const h = harness('v1.32', 0);
      h.informer.addEventHandler('tiny', {}, 500);
      assert.deepEqual(h.sink.of('log').map((e) => [e.level, e.msg]), [
        ['warning', 'resyncPeriod 500ms is too small. Changing it to the minimum allowed value of 1s'],
        ['warning', "The specified resyncPeriod 1s is invalid because this shared informer doesn't support resyncing"],
      ]);
    });
  });

  describe('handlers', () => {
    it('a handler added after start gets synthetic initial-list adds and syncs once it has handled them', async () => {
      const h = harness('v1.36');
      h.informer.addEventHandler('first', {});
      const { store } = h.start();
      store.replace([cm('a', '1'), cm('b', '1')], '10');
      await h.flush();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((r) => (release = r));
      const seen: string[] = [];
      const reg = h.informer.addEventHandler('late', {
        onAdd: async (o, initial) => {
          seen.push(`${o.metadata?.name} ${initial}`);
          await gate;
        },
      });
      assert.deepEqual(h.sink.of('handler.added')[1], { t: 0, type: 'handler.added', handler: 'late', requestedResyncMs: 0, effectiveResyncMs: 0, afterStart: true, syntheticAdds: 2 });
      await h.flush();
      assert.equal(reg.hasSynced(), false);
      assert.equal(h.informer.isIdle(), false);
      release();
      await h.flush();
      assert.deepEqual(seen, ['a true', 'b true']);
      assert.equal(reg.hasSynced(), true);
      assert.equal(h.informer.isIdle(), true);
      await h.stop();
    });

    it('a slow handler does not hold back the others, and is reported', async () => {
      const h = harness('v1.34');
      const fast = recorder();
      h.informer.addEventHandler('slow', { onAdd: () => h.clock.sleep(500) });
      h.informer.addEventHandler('fast', fast.handler);
      const { store } = h.start();
      store.replace([cm('a', '1'), cm('b', '1'), cm('c', '1')], '10');
      await h.flush();
      assert.equal(fast.lines.length, 3);
      assert.equal(h.informer.isIdle(), false);
      await h.clock.advance(1500);
      assert.equal(h.informer.isIdle(), true);
      assert.deepEqual(h.sink.of('handler.slow').map((e) => [e.handler, e.durationMs]), [['slow', 500], ['slow', 500], ['slow', 500]]);
      await h.stop();
    });

    it('a removed handler gets nothing more', async () => {
      const h = harness('v1.34');
      const r = recorder();
      const reg = h.informer.addEventHandler('main', r.handler);
      const { store } = h.start();
      store.replace([cm('a', '1')], '10');
      await h.flush();
      h.informer.removeEventHandler(reg);
      store.update(cm('a', '2'));
      await h.flush();
      assert.deepEqual(r.lines, ['add a@1 initial']);
      await h.stop();
    });

    it('indexes by namespace by default; a panicking index function drops that delta, is logged, and the informer goes on', async () => {
      const h = harness('v1.34');
      const r = recorder();
      h.informer.addEventHandler('main', r.handler);
      const { store } = h.start();
      store.replace([cm('a', '1', undefined, 'n1'), cm('b', '1', undefined, 'n2')], '10');
      await h.flush();
      assert.deepEqual(h.informer.getIndexer().indexKeys('namespace', 'n1'), ['n1/a']);
      h.informer.getIndexer().addIndexers({ picky: (o) => { if ('metadata' in o && o.metadata?.name === 'bad') throw new Error('boom'); return ['x']; } });
      store.add(cm('bad', '2'));
      store.add(cm('good', '3'));
      await h.flush();
      assert.deepEqual(r.lines.slice(2), ['add good@3']);
      assert.deepEqual(h.sink.of('log').map((e) => [e.level, e.msg, e.kv?.err]), [
        ['error', 'Observed a panic', 'unable to calculate an index entry for key "default/bad" on index "picky": boom'],
      ]);
      await h.stop();
    });

    it('refuses a second run and handlers after stop', async () => {
      const h = harness('v1.34');
      h.start();
      await h.informer.run(new AbortController().signal);
      assert.deepEqual(h.sink.logs(), ['Warning: the sharedIndexInformer has started, run more than once is not allowed']);
      await h.stop();
      assert.throws(() => h.informer.addEventHandler('x', {}), { message: 'handler x was not added to shared informer because it has stopped already' });
    });
  });
});
