import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/engine/clock';
import { DeltaFIFO, dedupDeltas, type DeltaFIFOOptions } from '../../../src/engine/deltaFifo';
import { FIFOClosedError, type Delta } from '../../../src/engine/fifo';
import { DeletedFinalStateUnknown } from '../../../src/engine/objects';
import { newIndexer, type Indexer } from '../../../src/engine/store';
import { CaptureSink, cm, deltaText, popAll } from './informerFixtures';

function fifo(extra: Partial<DeltaFIFOOptions> = {}) {
  const sink = new CaptureSink();
  const clock = new FakeClock();
  const f = new DeltaFIFO({ clock, sink, emitDeltaTypeReplaced: true, ...extra });
  return { f, sink, clock };
}

function known(...objs: ReturnType<typeof cm>[]): Indexer {
  const ix = newIndexer();
  for (const o of objs) ix.add(o);
  return ix;
}

describe('DeltaFIFO', () => {
  describe('queueing and dedupDeltas', () => {
    it('accumulates a key\'s deltas under one queue entry, oldest first, without merging adds and updates', async () => {
      const { f, sink } = fifo();
      f.add(cm('a', '1'));
      f.update(cm('a', '2'));
      f.update(cm('a', '2'));
      f.add(cm('b', '1'));
      assert.equal(f.depthKeys(), 2);
      assert.equal(f.depthDeltas(), 4);
      assert.deepEqual(sink.of('fifo.enqueue').map((e) => [e.key, e.delta, e.depthKeys, e.depthDeltas]), [
        ['default/a', 'Added', 1, 1],
        ['default/a', 'Updated', 1, 2],
        ['default/a', 'Updated', 1, 3],
        ['default/b', 'Added', 2, 4],
      ]);
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [
        ['Added:default/a@1', 'Updated:default/a@2', 'Updated:default/a@2'],
        ['Added:default/b@1'],
      ]);
      assert.deepEqual(sink.of('fifo.pop').map((e) => [e.key, e.depthKeys, e.depthDeltas]), [['default/a', 1, 1], ['default/b', 0, 0]]);
    });

    it('collapses two consecutive deletes: the older real object wins over a newer one', () => {
      const ds: Delta[] = [{ type: 'Deleted', object: cm('a', '1') }, { type: 'Deleted', object: cm('a', '2') }];
      assert.equal(dedupDeltas(ds), 'older');
      assert.deepEqual(ds.map(deltaText), ['Deleted:default/a@1']);
    });

    it('collapses two consecutive deletes: a real object wins over an older tombstone', () => {
      const ds: Delta[] = [{ type: 'Deleted', object: new DeletedFinalStateUnknown('default/a', cm('a', '1')) }, { type: 'Deleted', object: cm('a', '2') }];
      assert.equal(dedupDeltas(ds), 'newer');
      assert.deepEqual(ds.map(deltaText), ['Deleted:default/a@2']);
    });

    it('leaves any other pair alone', () => {
      for (const [a, b] of [['Sync', 'Sync'], ['Replaced', 'Replaced'], ['Updated', 'Deleted'], ['Deleted', 'Added']] as const) {
        const ds: Delta[] = [{ type: a, object: cm('a', '1') }, { type: b, object: cm('a', '2') }];
        assert.equal(dedupDeltas(ds), undefined);
        assert.equal(ds.length, 2);
      }
    });

    it('reports a merge as fifo.dedup after the enqueue', () => {
      const { f, sink } = fifo();
      f.add(cm('a', '1'));
      f.delete(cm('a', '2'));
      f.delete(cm('a', '3'));
      assert.equal(f.depthDeltas(), 2);
      assert.deepEqual(sink.of('fifo.dedup'), [{ t: 0, type: 'fifo.dedup', key: 'default/a', kept: 'older' }]);
    });
  });

  describe('Delete', () => {
    it('ignores a delete of a key that is neither queued nor known', () => {
      const { f, sink } = fifo({ knownObjects: known(cm('k', '1')) });
      f.delete(cm('ghost', '5'));
      assert.equal(f.depthKeys(), 0);
      assert.deepEqual(sink.of('fifo.drop').map((e) => [e.key, e.why]), [['default/ghost', 'delete-of-unknown']]);
      f.delete(cm('k', '2'));
      assert.equal(f.depthKeys(), 1);
    });

    it('without knownObjects, queues a delete only when the key has deltas queued', () => {
      const { f } = fifo();
      f.delete(cm('a', '1'));
      assert.equal(f.depthKeys(), 0);
      f.add(cm('a', '1'));
      f.delete(cm('a', '2'));
      assert.equal(f.depthDeltas(), 2);
    });
  });

  describe('Replace', () => {
    it('emits Replaced when asked, Sync otherwise', async () => {
      for (const [emit, type] of [[true, 'Replaced'], [false, 'Sync']] as const) {
        const { f } = fifo({ emitDeltaTypeReplaced: emit });
        f.replace([cm('a', '1')], '10');
        const popped = await popAll(f);
        assert.deepEqual(popped.map((p) => p.deltas[0].type), [type]);
      }
    });

    it('v0.27+: tombstones queued keys missing from the list with their newest object, unwrapping a nested tombstone', async () => {
      const { f, sink } = fifo();
      f.add(cm('q', '1'));
      f.update(cm('q', '2'));
      f.replace([cm('a', '1')], '10');
      f.replace([cm('a', '1')], '11');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [
        ['Added:default/q@1', 'Updated:default/q@2', 'Deleted:tombstone(default/q@2)'],
        ['Replaced:default/a@1', 'Replaced:default/a@1'],
      ]);
      assert.deepEqual(sink.of('fifo.replace').map((e) => [e.tombstonesFromQueue, e.tombstonesFromKnown]), [[1, 0], [1, 0]]);
      assert.ok(sink.of('fifo.enqueue').some((e) => e.tombstone === 'replace-queued'));
    });

    it('v0.27+: keeps a queued real delete rather than the new tombstone', async () => {
      const { f, sink } = fifo({ knownObjects: known(cm('d', '1')) });
      f.delete(cm('d', '2'));
      f.replace([], '10');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [['Deleted:default/d@2']]);
      assert.equal(sink.of('fifo.dedup')[0].kept, 'older');
    });

    it('v0.27+: tombstones known keys only when nothing is queued for them, after the list items', async () => {
      const ix = known(cm('k1', '1'), cm('k2', '1'), cm('stay', '1'));
      const { f, sink } = fifo({ knownObjects: ix });
      f.update(cm('k2', '2'));
      f.replace([cm('stay', '3'), cm('new', '1')], '10');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [
        ['Updated:default/k2@2', 'Deleted:tombstone(default/k2@2)'],
        ['Replaced:default/stay@3'],
        ['Replaced:default/new@1'],
        ['Deleted:tombstone(default/k1@1)'],
      ]);
      assert.deepEqual(sink.of('fifo.replace')[0], { t: 0, type: 'fifo.replace', items: 2, tombstonesFromQueue: 1, tombstonesFromKnown: 1, atomic: false });
    });

    it('≤v0.26 with knownObjects: a queued-but-unknown key gets no delete; known keys do even when busy', async () => {
      const ix = known(cm('k', '1'));
      const { f } = fifo({ knownObjects: ix, replaceTombstonesQueuedKeys: false });
      f.add(cm('queuedOnly', '1'));
      f.update(cm('k', '2'));
      f.replace([], '10');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [
        ['Added:default/queuedOnly@1'],
        ['Updated:default/k@2', 'Deleted:tombstone(default/k@1)'],
      ]);
    });

    it('≤v0.26 without knownObjects: a tombstone wraps the newest object as is, even a tombstone', async () => {
      const { f } = fifo({ replaceTombstonesQueuedKeys: false });
      f.add(cm('q', '1'));
      f.replace([], '10');
      f.replace([], '11');
      const [p] = await popAll(f);
      const last = p.deltas[p.deltas.length - 1].object as DeletedFinalStateUnknown;
      assert.ok(last.obj instanceof DeletedFinalStateUnknown, 'nested tombstone kept');
    });
  });

  describe('HasSynced and the initial list', () => {
    it('counts list items plus tombstones; every pop of that batch is in the initial list; synced only after the last is processed', async () => {
      let syncedCalls = 0;
      const { f, sink } = fifo({ knownObjects: known(cm('gone', '1')), onSynced: () => syncedCalls++ });
      f.replace([cm('a', '1'), cm('b', '1')], '10');
      assert.equal(f.hasSynced(), false);
      f.add(cm('c', '1'));
      const initial: boolean[] = [];
      const syncedAfter: boolean[] = [];
      for (let i = 0; i < 4; i++) {
        await f.pop((_ds, isInInitialList) => {
          initial.push(isInInitialList);
          // client-go holds the lock across process: a HasSynced caller cannot see the new state yet.
          assert.equal(f.hasSynced(), i === 3);
        });
        syncedAfter.push(f.hasSynced());
      }
      assert.deepEqual(initial, [true, true, true, false]);
      assert.deepEqual(syncedAfter, [false, false, true, true]);
      assert.equal(syncedCalls, 1);
      assert.equal(sink.of('fifo.synced').length, 1);
    });

    it('is synced at once when the first operation is a watch event or an empty Replace', () => {
      const a = fifo();
      a.f.update(cm('a', '1'));
      assert.equal(a.f.hasSynced(), true);
      const b = fifo();
      b.f.replace([], '1');
      assert.equal(b.f.hasSynced(), true);
      assert.equal(b.sink.of('fifo.synced').length, 1);
    });

    it('only the first Replace sets the initial population', async () => {
      const { f } = fifo();
      f.replace([cm('a', '1')], '10');
      await popAll(f);
      f.replace([cm('a', '1'), cm('b', '1')], '11');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.isInInitialList), [false, false]);
    });
  });

  describe('Resync', () => {
    it('queues Sync for known objects and skips keys with anything queued', async () => {
      const { f, sink } = fifo({ knownObjects: known(cm('a', '1'), cm('b', '1')) });
      f.update(cm('b', '2'));
      f.resync();
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [['Updated:default/b@2'], ['Sync:default/a@1']]);
      assert.deepEqual(sink.of('fifo.resync')[0], { t: 0, type: 'fifo.resync', queued: 1, skippedBusy: 1, atomic: false });
      assert.deepEqual(sink.of('fifo.drop').map((e) => e.why), ['sync-busy']);
    });

    it('does nothing without knownObjects', () => {
      const { f, sink } = fifo();
      f.resync();
      assert.equal(f.depthKeys(), 0);
      assert.equal(sink.of('fifo.resync').length, 0);
    });

    it('≤1.16: drops a Sync when the key\'s last delta is Deleted (so a relist after delete+recreate misses the create)', async () => {
      const { f, sink } = fifo({ knownObjects: known(cm('a', '1')), dropsSyncAfterDelete: true, emitDeltaTypeReplaced: false });
      f.delete(cm('a', '1'));
      f.replace([cm('a', '5')], '10');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [['Deleted:default/a@1']]);
      assert.deepEqual(sink.of('fifo.drop').map((e) => [e.delta, e.why]), [['Sync', 'sync-after-delete']]);
    });

    it('from 1.17 the same Sync is kept', async () => {
      const { f } = fifo({ knownObjects: known(cm('a', '1')), emitDeltaTypeReplaced: false });
      f.delete(cm('a', '1'));
      f.replace([cm('a', '5')], '10');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => p.deltas.map(deltaText)), [['Deleted:default/a@1', 'Sync:default/a@5']]);
    });
  });

  describe('Pop and Close', () => {
    it('waits for an item, and a waiting Pop rejects with FIFOClosedError on close', async () => {
      const { f, clock } = fifo();
      const seen: string[] = [];
      const p = f.pop((ds) => void seen.push(deltaText(ds[0])));
      await clock.advance(0);
      assert.deepEqual(seen, []);
      f.add(cm('a', '1'));
      await clock.advance(0);
      await p;
      assert.deepEqual(seen, ['Added:default/a@1']);
      const waiting = f.pop(() => undefined);
      f.close();
      await assert.rejects(waiting, (e: unknown) => e instanceof FIFOClosedError && e.message === 'DeltaFIFO: manipulating with closed queue');
    });

    it('a woken Pop runs after the burst: deltas queued at the same instant for one key come out together (fifo-same-instant-regroup)', async () => {
      const { f, clock } = fifo({ knownObjects: known(cm('a', '5'), cm('b', '6')) });
      const seen: string[][] = [];
      const pop = () => f.pop((ds) => void seen.push(ds.map(deltaText)));
      const first = pop();
      await clock.advance(0);
      // Three watch events at one instant, as the reflector hands them over without blocking.
      f.update(cm('a', '11'));
      f.update(cm('b', '12'));
      f.update(cm('a', '13'));
      await clock.advance(0);
      await first;
      await pop();
      assert.deepEqual(seen, [['Updated:default/a@11', 'Updated:default/a@13'], ['Updated:default/b@12']]);
      // A Pop that finds items queued does not yield first.
      f.add(cm('c', '14'));
      await pop(); // would never settle if it waited on the clock
      assert.deepEqual(seen[2], ['Added:default/c@14']);
    });

    it('still hands out queued items after close, then rejects', async () => {
      const { f } = fifo();
      f.add(cm('a', '1'));
      f.close();
      let n = 0;
      await f.pop(() => void n++);
      assert.equal(n, 1);
      await assert.rejects(f.pop(() => undefined), FIFOClosedError);
    });
  });
});
