/** The watch-list path (spec §1.8) and its rows 12, 26, 27; the v0.36 RV ordering guard and bookmarks to the store. */
import { strict as assert } from 'node:assert';
import type { Status } from '../../../src/engine/listWatch';
import { bookmark, BookmarkingStore, cm, errorEvent, expired, rig, tooLarge, tooMany, type Rig, type Step } from './reflectorHarness';

const V136 = { profileName: 'v1.36', gates: { WatchListClient: true } } as const;

function stream(rv: string, ...names: string[]): Step {
  return { on: 'watch', events: [...names.map((n, i) => ({ type: 'ADDED', object: cm(n, String(i + 1)) })), bookmark(rv, true)], close: 'never' };
}

async function until(r: Rig, calls: number): Promise<void> {
  const outcome = await r.runUntil(() => r.lw.calls.length >= calls);
  assert.equal(outcome, 'done', r.lw.divergence ?? 'script not used up');
}

function ends(r: Rig): [number, string][] {
  return r.sink.of('watch.end').map((e) => [e.row, e.outcome]);
}

describe('Reflector watch-list (§1.8)', () => {
  it('streams into a temporary store, replaces on the initial-events-end bookmark, and keeps watching on the same watcher', async () => {
    const r = rig([stream('20', 'a', 'b')], V136);
    await r.runUntil(() => r.store.calls.length === 1);
    assert.deepEqual(r.sink.requests(), ['watch rv= sendInitialEvents rvm=NotOlderThan']);
    const req = r.sink.of('request')[0];
    assert.equal(req.allowWatchBookmarks, true);
    assert.deepEqual(r.store.calls, [{ op: 'replace', keys: ['default/a', 'default/b'], rv: '20' }]);
    assert.equal(r.reflector.lastSyncResourceVersion(), '20');
    assert.deepEqual(r.sink.of('rv').map((e) => [e.rv, e.source]), [['20', 'watchlist']]);
    assert.ok(r.sink.of('watch.event').some((e) => e.initialEventsEnd === true));
    assert.ok(r.sink.logs().includes('Exiting watch because received the bookmark that marks the end of initial events stream'));
    assert.equal(r.lw.watchers.length, 1);
    assert.equal(r.lw.watchers[0].end, undefined, 'the watch-list watcher stays open for watch()');
    assert.equal(r.sink.of('reflector.state').at(-1)?.state, 'watching');
    await r.stop();
  });

  it('v1.36 ordering guard: synthetic ADDs of a watch started at RV "" do not move the RV until a non-ADDED event', async () => {
    const steps = (): Step[] => [
      { on: 'list', rv: '' },
      { on: 'watch', events: [{ type: 'ADDED', object: cm('a', '9') }, { type: 'ADDED', object: cm('b', '4') }], close: 'never' },
    ];
    const guarded = rig(steps(), { profileName: 'v1.36', gates: { WatchListClient: false } });
    await guarded.runUntil(() => guarded.store.calls.length === 3);
    assert.deepEqual(guarded.sink.of('watch.start').map((e) => [e.rv, e.propagateRVFromStart]), [['', false]]);
    assert.equal(guarded.reflector.lastSyncResourceVersion(), '');
    await guarded.stop();

    const old = rig(steps(), { profileName: 'v1.34' });
    await old.runUntil(() => old.store.calls.length === 3);
    assert.equal(old.reflector.lastSyncResourceVersion(), '4', 'before v0.36 every accepted event moves the RV');
    await old.stop();
  });

  it('v1.36 ordering guard: once a MODIFIED arrives, events move the RV again', async () => {
    const r = rig(
      [
        { on: 'list', rv: '' },
        { on: 'watch', events: [{ type: 'ADDED', object: cm('a', '9') }, { type: 'MODIFIED', object: cm('a', '12') }, { type: 'ADDED', object: cm('c', '13') }], close: 'never' },
      ],
      { profileName: 'v1.36', gates: { WatchListClient: false } },
    );
    await r.runUntil(() => r.store.calls.length === 4);
    assert.equal(r.reflector.lastSyncResourceVersion(), '13');
    await r.stop();
  });

  it('watch-list: the last synced RV is the bookmark RV, even when ADDs carried higher ones (v1.36)', async () => {
    const r = rig([{ on: 'watch', events: [{ type: 'ADDED', object: cm('a', '9') }, { type: 'ADDED', object: cm('b', '4') }, bookmark('7', true)], close: 'never' }], V136);
    await r.runUntil(() => r.store.calls.length === 1);
    assert.equal(r.reflector.lastSyncResourceVersion(), '7');
    await r.stop();
  });

  it('v1.36 forwards bookmark RVs of the handed-over watch to a bookmark store', async () => {
    const store = new BookmarkingStore();
    const r = rig([{ on: 'watch', events: [bookmark('7', true), bookmark('30', false)], close: 'never' }], { ...V136, store });
    await r.runUntil(() => store.calls.length === 2);
    assert.deepEqual(store.calls, [
      { op: 'replace', keys: [], rv: '7' },
      { op: 'bookmark', rv: '30' },
    ]);
    assert.equal(r.reflector.lastSyncResourceVersion(), '30');
    await r.stop();
  });

  it('#12 TooLarge on a watch-list request: unavailable, watch-list again at once with RV ""', async () => {
    const r = rig([{ on: 'watch', status: tooLarge }, stream('25', 'a')], V136);
    await until(r, 2);
    assert.deepEqual(ends(r), [[12, 'watchlist-again']]);
    assert.deepEqual(r.sink.requests(), ['watch rv= sendInitialEvents rvm=NotOlderThan', 'watch rv= sendInitialEvents rvm=NotOlderThan']);
    assert.equal(r.sink.of('backoff').length, 0);
    await r.runUntil(() => r.store.calls.length === 1);
    assert.deepEqual(r.sink.of('rv.unavailable').map((e) => e.value), [true, false]);
    await r.stop();
  });

  it('a relist is a new watch-list at the last RV; Expired there retries at once with RV ""', async () => {
    const r = rig(
      [
        { on: 'watch', events: [{ type: 'ADDED', object: cm('a', '1') }, bookmark('20', true), errorEvent(expired)], close: 'never' },
        { on: 'watch', status: expired },
        stream('40', 'a'),
      ],
      V136,
    );
    await r.runUntil(() => r.store.calls.length === 2);
    assert.deepEqual(r.sink.requests(), [
      'watch rv= sendInitialEvents rvm=NotOlderThan',
      'watch rv=20 sendInitialEvents rvm=NotOlderThan',
      'watch rv= sendInitialEvents rvm=NotOlderThan',
    ]);
    assert.equal(r.reflector.lastSyncResourceVersion(), '40');
    assert.deepEqual(ends(r).slice(0, 2), [
      [9, 'relist'],
      [10, 'watchlist-again'],
    ]);
    assert.equal(r.sink.of('watch.end')[0].watchList, true, 'the ended stream was the handed-over watch-list stream');
    const relist = r.sink.of('relist')[0];
    assert.deepEqual([relist.reason, relist.row, relist.rv, relist.consistent], ['Expired', 9, '20', false]);
    await r.stop();
  });

  it('#26 closed cleanly without the bookmark: watch-list again at once, no backoff', async () => {
    const r = rig([{ on: 'watch', events: [{ type: 'ADDED', object: cm('a', '1') }], close: 'eof', durationMs: 2000 }, stream('25', 'a')], V136);
    await until(r, 2);
    assert.deepEqual(ends(r), [[26, 'watchlist-again']]);
    assert.equal(r.sink.of('backoff').length, 0);
    assert.equal(r.sink.of('request')[1].t, 2000);
    assert.equal(r.sink.of('request')[1].sendInitialEvents, true);
    await r.stop();
  });

  it('#27 any other error (422 from a server without WatchList): fall back to a LIST at "0" in the same ListAndWatch', async () => {
    const invalid: Status = { code: 422, reason: 'Invalid', message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' };
    const r = rig([{ on: 'watch', status: invalid }, { on: 'list', rv: '10', items: [cm('a', '5')] }, { on: 'watch', close: 'never' }], V136);
    await until(r, 3);
    assert.deepEqual(ends(r), [[27, 'fallback-to-list']]);
    assert.deepEqual(r.sink.requests(), ['watch rv= sendInitialEvents rvm=NotOlderThan', 'list rv=0 limit=500', 'watch rv=10']);
    assert.deepEqual(r.sink.of('watchlist.fallback').map((e) => e.text), [invalid.message]);
    const log = r.sink.of('log').find((l) => l.msg.startsWith("Data couldn't be fetched in watchlist mode."));
    assert.equal(log?.level, 'v4');
    assert.deepEqual(r.sink.of('watchErrorHandler'), []);
    assert.equal(r.sink.of('relist').length, 0, 'the fallback list is still the initial sync');
    await r.stop();
  });

  it('429 on a watch-list request: one backoff delay (watchlist-retry), then watch-list again', async () => {
    const r = rig([{ on: 'watch', status: tooMany }, stream('25', 'a')], V136);
    await until(r, 2);
    assert.deepEqual(ends(r), [[14, 'watchlist-again']]);
    assert.deepEqual(r.sink.of('backoff').map((b) => b.purpose), ['watchlist-retry']);
    assert.ok(r.sink.logs().includes('watch-list failed - backing off'));
    await r.stop();
  });

  it('an ERROR event (Gone) inside the initial stream: unavailable, watch-list again; the temporary store is discarded', async () => {
    const gone: Status = { code: 410, reason: 'Gone', message: 'gone' };
    const r = rig([{ on: 'watch', events: [{ type: 'ADDED', object: cm('old', '1') }, errorEvent(gone)] }, stream('25', 'a')], V136);
    await r.runUntil(() => r.store.calls.length === 1);
    assert.deepEqual(ends(r), [[9, 'watchlist-again']]);
    assert.deepEqual(r.store.calls, [{ op: 'replace', keys: ['default/a'], rv: '25' }]);
    await r.stop();
  });

  it('a ListerWatcher without watch-list support never tries it, and says so once', async () => {
    const r = rig([{ on: 'list', rv: '10' }, { on: 'watch', close: 'never' }], { ...V136, watchListSupported: false });
    await until(r, 2);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10']);
    assert.equal(r.sink.logs().filter((m) => m.includes("doesn't support WatchList semantics")).length, 1);
    await r.stop();
  });

  it('the handed-over stream\'s very-short-watch clock starts at the hand-over, not at the watch-list request', async () => {
    const r = rig([{ on: 'watch', events: [{ type: 'ADDED', object: cm('a', '1') }, { ...bookmark('20', true), atMs: 1000 }], close: 'eof', durationMs: 1500 }], V136);
    await r.runUntil(() => r.sink.of('watch.end').length === 1);
    const end = r.sink.of('watch.end')[0];
    assert.deepEqual([end.row, end.outcome, end.durationMs, end.watchList], [5, 'relist', 500, true]);
    await r.stop();
  });

  it('warns every 10 s while the initial-events-end bookmark is outstanding', async () => {
    const r = rig([{ on: 'watch', events: [{ type: 'ADDED', object: cm('a', '1'), atMs: 15_000 }], close: 'never' }], V136);
    await r.runUntil(() => r.sink.of('log').filter((l) => l.msg === 'Warning: event bookmark expired').length === 2);
    const warnings = r.sink.of('log').filter((l) => l.msg === 'Warning: event bookmark expired');
    assert.deepEqual(
      warnings.map((w) => [w.t, w.level, w.kv?.err]),
      [
        [10_000, 'info', 'test-reflector: awaiting required bookmark event for initial events stream, no events received for 10s'],
        [20_000, 'info', "test-reflector: hasn't received required bookmark event marking the end of initial events stream, received last event 5s ago"],
      ],
    );
    await r.stop();
  });

  it('stop during the initial stream: run() resolves, the watcher is stopped, nothing left behind', async () => {
    const r = rig([{ on: 'watch', events: [{ type: 'ADDED', object: cm('a', '1') }], close: 'never' }], V136);
    await r.runUntil(() => r.sink.of('watch.event').length === 1);
    await r.stop();
    assert.deepEqual(ends(r), [[24, 'stop']]);
    assert.equal(r.lw.watchers[0].end?.kind, 'stopped');
    assert.deepEqual(r.store.calls, []);
  });
});
