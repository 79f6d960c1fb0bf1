import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/engine/clock';
import { FIFOClosedError } from '../../../src/engine/fifo';
import { RealFIFO, type RealFIFOOptions } from '../../../src/engine/realFifo';
import { newIndexer, type Indexer } from '../../../src/engine/store';
import { CaptureSink, cm, deltaText, popAll } from './informerFixtures';

function fifo(extra: Partial<RealFIFOOptions> = {}) {
  const sink = new CaptureSink();
  const f = new RealFIFO({ clock: new FakeClock(), sink, ...extra });
  return { f, sink };
}

function known(...objs: ReturnType<typeof cm>[]): Indexer {
  const ix = newIndexer();
  for (const o of objs) ix.add(o);
  return ix;
}

async function popTexts(f: RealFIFO): Promise<string[]> {
  return (await popAll(f)).map((p) => {
    assert.equal(p.deltas.length, 1, 'RealFIFO pops one delta at a time');
    return deltaText(p.deltas[0]);
  });
}

describe('RealFIFO', () => {
  it('keeps one entry per event, never merging, and counts depth in entries', async () => {
    const { f, sink } = fifo({ knownObjects: known() });
    f.add(cm('a', '1'));
    f.update(cm('a', '2'));
    f.delete(cm('a', '3'));
    f.delete(cm('a', '4'));
    assert.equal(f.depthKeys(), 4);
    assert.deepEqual(sink.of('fifo.enqueue').map((e) => e.depthDeltas), [1, 2, 3, 4]);
    assert.deepEqual(await popTexts(f), ['Added:default/a@1', 'Updated:default/a@2', 'Deleted:default/a@3', 'Deleted:default/a@4']);
  });

  it('never drops a delete, even of an object nobody has seen', async () => {
    const { f, sink } = fifo({ knownObjects: known() });
    f.delete(cm('ghost', '9'));
    assert.deepEqual(await popTexts(f), ['Deleted:default/ghost@9']);
    assert.equal(sink.of('fifo.drop').length, 0);
  });

  it('a woken Pop runs after the burst: every entry queued at that instant is behind it, in arrival order', async () => {
    const clock = new FakeClock();
    const f = new RealFIFO({ clock, sink: new CaptureSink() });
    const seen: string[] = [];
    const pop = () => f.pop((ds) => void seen.push(deltaText(ds[0])));
    const first = pop();
    await clock.advance(0);
    f.update(cm('a', '11'));
    f.update(cm('b', '12'));
    f.update(cm('a', '13'));
    assert.equal(f.depthDeltas(), 3, 'nothing popped before the clock hop');
    await clock.advance(0);
    await first;
    assert.equal(f.depthDeltas(), 2);
    await pop();
    await pop(); // an item is queued: no hop, so this settles without the clock
    assert.deepEqual(seen, ['Updated:default/a@11', 'Updated:default/b@12', 'Updated:default/a@13']);
  });

  describe('non-atomic Replace', () => {
    it('appends tombstones first — queued keys, then known keys absent from the log — and then Replaced in list order', async () => {
      const ix = known(cm('k1', '1'), cm('k2', '1'), cm('stay', '1'));
      const { f, sink } = fifo({ knownObjects: ix });
      f.update(cm('k2', '2'));
      f.add(cm('q', '1'));
      f.replace([cm('stay', '3'), cm('new', '1')], '10');
      assert.deepEqual(await popTexts(f), [
        'Updated:default/k2@2',
        'Added:default/q@1',
        'Deleted:tombstone(default/k2@2)',
        'Deleted:tombstone(default/q@1)',
        'Deleted:tombstone(default/k1@1)',
        'Replaced:default/stay@3',
        'Replaced:default/new@1',
      ]);
      assert.deepEqual(sink.of('fifo.replace')[0], { t: 0, type: 'fifo.replace', items: 2, tombstonesFromQueue: 2, tombstonesFromKnown: 1, atomic: false });
    });

    it('adds no tombstone for a queued key whose last entry is already a delete', async () => {
      const { f } = fifo({ knownObjects: known(cm('d', '1')) });
      f.update(cm('d', '2'));
      f.delete(cm('d', '3'));
      f.replace([], '10');
      assert.deepEqual(await popTexts(f), ['Updated:default/d@2', 'Deleted:default/d@3']);
    });

    it('sets the initial population to every entry in the log, including earlier ones and tombstones', async () => {
      const { f } = fifo({ knownObjects: known(cm('gone', '1')) });
      f.add(cm('early', '1'));
      assert.equal(f.hasSynced(), true, 'a watch event first makes the FIFO synced at once');
      const fresh = fifo({ knownObjects: known(cm('gone', '1')) });
      fresh.f.replace([cm('a', '1')], '10');
      fresh.f.add(cm('later', '1'));
      const popped = await popAll(fresh.f);
      assert.deepEqual(popped.map((p) => p.isInInitialList), [true, true, false]);
    });
  });

  describe('non-atomic Resync', () => {
    it('queues Sync only for known keys that appear nowhere in the log', async () => {
      const { f, sink } = fifo({ knownObjects: known(cm('a', '1'), cm('b', '1')) });
      f.update(cm('b', '2'));
      f.resync();
      assert.deepEqual(await popTexts(f), ['Updated:default/b@2', 'Sync:default/a@1']);
      assert.deepEqual(sink.of('fifo.resync')[0], { t: 0, type: 'fifo.resync', queued: 1, skippedBusy: 1, atomic: false });
    });

    it('ignores bookmarks', () => {
      const { f } = fifo({ knownObjects: known() });
      f.bookmark('42');
      assert.equal(f.depthKeys(), 0);
    });
  });

  describe('atomic mode (AtomicFIFO, v0.36)', () => {
    it('Replace appends one ReplacedAll carrying the list and its RV; Resync one SyncAll; bookmarks a Bookmark', async () => {
      const { f, sink } = fifo({ atomic: true, syncAfterProcess: true });
      f.replace([cm('a', '1'), cm('b', '1')], '10');
      f.resync();
      f.bookmark('12');
      const popped = await popAll(f);
      assert.deepEqual(popped.map((p) => deltaText(p.deltas[0])), ['ReplacedAll@10', 'SyncAll', 'Bookmark@12']);
      assert.deepEqual(popped[0].deltas[0].objects?.map((o) => o.metadata?.name), ['a', 'b']);
      assert.deepEqual(popped.map((p) => p.isInInitialList), [true, false, false]);
      assert.deepEqual(sink.of('fifo.enqueue').map((e) => [e.delta, e.objects]), [['ReplacedAll', 2], ['SyncAll', undefined], ['Bookmark', undefined]]);
      assert.equal(sink.of('fifo.replace')[0].atomic, true);
      assert.equal(sink.of('fifo.resync')[0].atomic, true);
    });
  });

  describe('HasSynced timing', () => {
    for (const syncAfterProcess of [true, false]) {
      it(`becomes observable only once the last initial entry has been processed (syncAfterProcess=${syncAfterProcess})`, async () => {
        let signalled = 0;
        const { f } = fifo({ knownObjects: known(), syncAfterProcess, onSynced: () => signalled++ });
        f.replace([cm('a', '1'), cm('b', '1')], '10');
        const seen: boolean[] = [];
        await f.pop(() => void seen.push(f.hasSynced()));
        await f.pop(() => void seen.push(f.hasSynced()));
        assert.deepEqual(seen, [false, false]);
        assert.equal(f.hasSynced(), true);
        assert.equal(signalled, 1);
      });
    }
  });

  it('rejects a Pop once closed and drained', async () => {
    const { f } = fifo();
    f.close();
    await assert.rejects(f.pop(() => undefined), FIFOClosedError);
  });
});
