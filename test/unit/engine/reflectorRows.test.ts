/**
 * One test per reachable row of the §1.10 classification table (plain LIST/WATCH mode; the
 * watch-list rows 12, 26, 27 are in reflectorWatchList.test.ts).
 */
import { strict as assert } from 'node:assert';
import type { Status } from '../../../src/engine/listWatch';
import { cm, errorEvent, expired, MemoryStore, rig, tooLarge, tooMany, type Rig, type Step } from './reflectorHarness';

const LIST10: Step = { on: 'list', rv: '10', items: [cm('a', '5')] };

function ends(r: Rig): { row: number; outcome: string; reason?: string }[] {
  return r.sink.of('watch.end').map((e) => ({ row: e.row, outcome: e.outcome, ...(e.reason ? { reason: e.reason } : {}) }));
}

/** Runs until every scripted step is used and the reflector has made its next (unscripted, blocking) call. */
async function runScript(r: Rig): Promise<void> {
  const outcome = await r.runUntil(() => r.lw.calls.length > scriptedCount.get(r)!);
  assert.equal(outcome, 'done', `script not used up: ${r.lw.divergence ?? `${r.lw.remaining()} steps left`}`);
}

const scriptedCount = new WeakMap<Rig, number>();

function start(steps: Step[], opts: Parameters<typeof rig>[1] = {}): Rig {
  const scripted = steps.length;
  const r = rig(steps, opts);
  scriptedCount.set(r, scripted);
  return r;
}

function handlerTexts(r: Rig): string[] {
  return r.sink.of('watchErrorHandler').map((e) => e.text);
}

const forbidden: Status = { code: 403, reason: 'Forbidden', message: 'configmaps is forbidden: User "x" cannot watch resource "configmaps"' };

describe('Reflector §1.10 rows', () => {
  it('#1 server closes at timeoutSeconds: re-watch at once at the last RV, no backoff, "Watch close"', async () => {
    const r = start([LIST10, { on: 'watch', events: [{ type: 'MODIFIED', object: cm('a', '12') }], close: 'eof', durationMs: 300_000 }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 1, outcome: 'rewatch' }]);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'watch rv=12']);
    assert.equal(r.sink.of('backoff').length, 0);
    assert.equal(r.sink.of('request')[2].t, 300_000);
    const close = r.sink.of('log').find((l) => l.msg === 'Watch close');
    assert.deepEqual(close?.kv, { reflector: 'test-reflector', type: '/v1, Kind=ConfigMap', totalItems: '1' });
    await r.stop();
  });

  it('#2 EOF mid-stream (after 1 s): re-watch at once', async () => {
    const r = start([LIST10, { on: 'watch', close: 'eof', durationMs: 1500 }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 2, outcome: 'rewatch' }]);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'watch rv=10']);
    await r.stop();
  });

  it('#3 unexpected EOF: StreamWatcher V(1) line, then re-watch at once', async () => {
    const r = start([LIST10, { on: 'watch', close: 'unexpected-eof', durationMs: 2000 }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 3, outcome: 'rewatch' }]);
    const line = r.sink.of('log').find((l) => l.msg === 'Unexpected EOF during watch stream event decoding');
    assert.equal(line?.level, 'v1');
    assert.equal(r.sink.requests().at(-1), 'watch rv=10');
    await r.stop();
  });

  it('#4 connection reset / client-side timeout mid-stream: V(5) line, re-watch at once', async () => {
    const r = start([LIST10, { on: 'watch', close: 'reset', durationMs: 2000 }, { on: 'watch', close: 'timeout', durationMs: 2000, endMessage: 'context deadline exceeded' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [
      { row: 4, outcome: 'rewatch' },
      { row: 4, outcome: 'rewatch' },
    ]);
    assert.equal(r.sink.of('log').filter((l) => l.msg === 'Unable to decode an event from the watch stream' && l.level === 'v5').length, 2);
    assert.equal(r.sink.of('backoff').length, 0);
    await r.stop();
  });

  it('#5 very short watch (<1 s, 0 events): relist at the last RV after backoff, Warning line', async () => {
    const r = start([LIST10, { on: 'watch', close: 'eof', durationMs: 500 }, { on: 'list', rv: '20' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 5, outcome: 'relist', reason: 'VeryShortWatch' }]);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'list rv=10', 'watch rv=20']);
    const warn = r.sink.of('log').find((l) => l.msg === 'Warning: watch ended with error');
    assert.equal(warn?.kv?.err, 'very short watch: test-reflector: Unexpected watch close - watch lasted less than a second and no items received');
    assert.deepEqual(handlerTexts(r), []);
    assert.equal(r.sink.of('relist')[0].reason, 'VeryShortWatch');
    await r.stop();
  });

  it('#6 connection refused opening the watch: one backoff delay, re-watch at the same RV, no relist', async () => {
    const r = start([LIST10, { on: 'watch', network: 'connection-refused' }, { on: 'watch', network: 'connection-refused' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [
      { row: 6, outcome: 'rewatch-after-backoff' },
      { row: 6, outcome: 'rewatch-after-backoff' },
    ]);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'watch rv=10', 'watch rv=10']);
    assert.deepEqual(
      r.sink.of('backoff').map((b) => [b.purpose, b.baseMs]),
      [
        ['watch-retry', 800],
        ['watch-retry', 1600],
      ],
    );
    assert.equal(r.sink.of('log').filter((l) => l.msg === 'Watch failed - backing off').length, 2);
    assert.deepEqual(handlerTexts(r), []);
    await r.stop();
  });

  it('#6 on v1.15: a refused watch start goes to the handler and relists at "0" after the fixed 1 s', async () => {
    const r = start([LIST10, { on: 'watch', network: 'connection-refused' }, { on: 'list', rv: '11' }], { profileName: 'v1.15' });
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 6, outcome: 'relist', reason: 'ConnectionRefused' }]);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'list rv=0 limit=500', 'watch rv=11']);
    assert.match(handlerTexts(r)[0], /connect: connection refused$/);
    assert.deepEqual(
      r.sink.of('backoff').map((b) => [b.purpose, b.sleepMs]),
      [['run-loop', 1000]],
    );
    assert.ok(r.sink.logs().some((m) => /^test-reflector: Failed to watch \/v1, Kind=ConfigMap: Get ".*": dial tcp 127\.0\.0\.1:6443: connect: connection refused$/.test(m)));
    await r.stop();
  });

  it('#7 connection refused on LIST: the handler gets "failed to list …", backoff, relist', async () => {
    const r = start([{ on: 'list', network: 'connection-refused' }, LIST10]);
    await runScript(r);
    const text = 'failed to list /v1, Kind=ConfigMap: Get "https://127.0.0.1:6443/api/v1/configmaps": dial tcp 127.0.0.1:6443: connect: connection refused';
    assert.deepEqual(handlerTexts(r), [text]);
    const failed = r.sink.of('log').find((l) => l.msg === 'Failed to watch');
    assert.equal(failed?.level, 'error');
    assert.equal(failed?.kv?.err, text);
    const relist = r.sink.of('relist')[0];
    assert.deepEqual([relist.row, relist.reason, relist.rv], [7, 'ConnectionRefused', '0']);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'list rv=0 limit=500', 'watch rv=10']);
    await r.stop();
  });

  it('#8 watch open retries exhausted (empty closed watcher after 10 s): re-watch at once', async () => {
    const r = start([LIST10, { on: 'watch', openDelayMs: 10_000, durationMs: 0, close: 'open-retries-exhausted', endMessage: 'EOF' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 8, outcome: 'rewatch' }]);
    assert.equal(r.sink.of('watch.end')[0].durationMs, 10_000);
    assert.equal(r.sink.requests().at(-1), 'watch rv=10');
    await r.stop();
  });

  it('#9 410 ERROR event, then the relist itself is Expired: consistent retry at once, unpaginated', async () => {
    const r = start([LIST10, { on: 'watch', events: [errorEvent(expired)] }, { on: 'list', status: expired }, { on: 'list', rv: '30' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 9, outcome: 'relist', reason: 'Expired' }]);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'watch rv=10', 'list rv=10', 'list rv=', 'watch rv=30']);
    assert.deepEqual(r.sink.of('list.retryConsistent').map((e) => e.reason), ['Expired']);
    assert.deepEqual(r.sink.of('rv.unavailable').map((e) => e.value), [true, false]);
    const closed = r.sink.of('log').find((l) => l.msg === 'Watch closed');
    assert.equal(closed?.level, 'v4');
    assert.equal(closed?.kv?.err, expired.message);
    await r.stop();
  });

  it('#10 410 as the HTTP status of the watch request: handler ("Watch closed" at V(4)), relist', async () => {
    const r = start([LIST10, { on: 'watch', status: expired }, { on: 'list', rv: '12' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 10, outcome: 'relist', reason: 'Expired' }]);
    assert.deepEqual(handlerTexts(r), [expired.message]);
    assert.ok(r.sink.of('log').some((l) => l.msg === 'Watch closed' && l.level === 'v4'));
    assert.ok(!r.sink.logs().includes('Failed to watch'));
    assert.deepEqual(r.sink.requests().slice(2), ['list rv=10', 'watch rv=12']);
    await r.stop();
  });

  it('#11 TooLarge on LIST: unavailable, consistent retry at once; no handler', async () => {
    const r = start([{ on: 'list', status: tooLarge }, LIST10]);
    await runScript(r);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'list rv= limit=500', 'watch rv=10']);
    assert.deepEqual(r.sink.of('list.retryConsistent').map((e) => e.reason), ['TooLargeResourceVersion']);
    assert.deepEqual(handlerTexts(r), []);
    assert.equal(r.sink.of('backoff').length, 0);
    await r.stop();
  });

  it('#11 on v1.15 (no TooLarge detection, no consistent retry): the error goes to the handler', async () => {
    const r = start([{ on: 'list', status: tooLarge }, LIST10], { profileName: 'v1.15' });
    await runScript(r);
    assert.deepEqual(r.sink.requests(), ['list rv=0 limit=500', 'list rv=0 limit=500', 'watch rv=10']);
    assert.equal(handlerTexts(r).length, 1);
    await r.stop();
  });

  it('#13 TooLarge as an ERROR event in a plain watch: relist at the last RV (not consistent)', async () => {
    const r = start([LIST10, { on: 'watch', events: [errorEvent(tooLarge)] }, { on: 'list', rv: '11' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 13, outcome: 'relist', reason: 'TooLargeResourceVersion' }]);
    assert.deepEqual(r.sink.requests().slice(2), ['list rv=10', 'watch rv=11']);
    assert.equal(r.sink.of('relist')[0].consistent, false);
    await r.stop();
  });

  it('#14 429 opening the watch: backoff, re-watch; v1.15 relists instead', async () => {
    const r = start([LIST10, { on: 'watch', status: tooMany }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 14, outcome: 'rewatch-after-backoff' }]);
    assert.deepEqual(r.sink.requests().slice(1), ['watch rv=10', 'watch rv=10']);
    await r.stop();
    const old = start([LIST10, { on: 'watch', status: tooMany }, { on: 'list', rv: '11' }], { profileName: 'v1.15' });
    await runScript(old);
    assert.deepEqual(ends(old), [{ row: 14, outcome: 'relist', reason: 'TooManyRequests' }]);
    assert.equal(handlerTexts(old).length, 1);
    await old.stop();
  });

  it('#15 429 ERROR event: "Watch returned 429 - backing off", backoff, re-watch at the same RV', async () => {
    const r = start([LIST10, { on: 'watch', events: [{ type: 'ADDED', object: cm('b', '11') }, errorEvent(tooMany)] }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 15, outcome: 'rewatch-after-backoff' }]);
    assert.deepEqual(r.sink.requests().slice(1), ['watch rv=10', 'watch rv=11']);
    assert.ok(r.sink.of('log').some((l) => l.msg === 'Watch returned 429 - backing off' && l.level === 'v2'));
    assert.equal(r.sink.of('backoff')[0].purpose, 'watch-retry');
    await r.stop();
  });

  it('#16 429 on LIST: handler, relist', async () => {
    const r = start([{ on: 'list', status: tooMany }, LIST10]);
    await runScript(r);
    assert.equal(handlerTexts(r)[0], `failed to list /v1, Kind=ConfigMap: ${tooMany.message}`);
    assert.deepEqual([r.sink.of('relist')[0].row, r.sink.of('relist')[0].reason], [16, 'TooManyRequests']);
    await r.stop();
  });

  it('#17 client-side decode error (500 InternalError ERROR event): relist, never retried by informers', async () => {
    const decode: Status = {
      code: 500,
      reason: 'InternalError',
      message: 'an error on the server ("unable to decode an event from the watch stream: got short buffer with n=0, base=4092, cap=163840") has prevented the request from succeeding',
      details: { causes: [{ type: 'UnexpectedServerResponse' }, { type: 'ClientWatchDecoding' }] },
    };
    const r = start([LIST10, { on: 'watch', events: [errorEvent(decode)] }, { on: 'list', rv: '11' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 17, outcome: 'relist', reason: 'DecodeError' }]);
    assert.equal(r.sink.of('log').find((l) => l.msg === 'Warning: watch ended with error')?.kv?.err, decode.message);
    assert.deepEqual(handlerTexts(r), []);
    await r.stop();
  });

  it('#18 403 opening the watch: "Failed to watch" through the handler, relist', async () => {
    const r = start([LIST10, { on: 'watch', status: forbidden }, { on: 'list', rv: '11' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 18, outcome: 'relist', reason: 'WatchOpenFailed' }]);
    assert.deepEqual(handlerTexts(r), [forbidden.message]);
    assert.equal(r.sink.of('log').find((l) => l.msg === 'Failed to watch')?.kv?.err, forbidden.message);
    await r.stop();
  });

  it('#19 other ERROR event status: Warning line, relist, no handler', async () => {
    const r = start([LIST10, { on: 'watch', events: [errorEvent(forbidden)] }, { on: 'list', rv: '11' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 19, outcome: 'relist', reason: 'ErrorEvent' }]);
    assert.deepEqual(handlerTexts(r), []);
    await r.stop();
  });

  it('#20 ERROR event whose object is not a Status: "unexpected object: …", relist', async () => {
    const r = start([LIST10, { on: 'watch', events: [{ type: 'ERROR', object: cm('x', '1') }] }, { on: 'list', rv: '11' }]);
    await runScript(r);
    assert.deepEqual(ends(r), [{ row: 20, outcome: 'relist', reason: 'UnexpectedObject' }]);
    assert.match(r.sink.of('watch.end')[0].error ?? '', /^unexpected object: /);
    await r.stop();
  });

  it('#21 bookmarks move the RV without touching the store (v1.34)', async () => {
    const r = start([LIST10, { on: 'watch', events: [{ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '40' } } }], close: 'eof', durationMs: 2000 }]);
    await runScript(r);
    assert.deepEqual(r.store.calls.map((c) => c.op), ['replace']);
    assert.equal(r.sink.requests().at(-1), 'watch rv=40');
    assert.equal(r.sink.of('watch.end')[0].eventCount, 1);
    await r.stop();
  });

  it('#22 a skipped event (wrong GVK) neither counts nor moves the RV; a store error is logged and the stream goes on', async () => {
    const store = new MemoryStore();
    store.failAdd = new Error('add failed');
    const r = start(
      [
        LIST10,
        {
          on: 'watch',
          events: [
            { type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', resourceVersion: '50' } } },
            { type: 'ADDED', object: cm('b', '12') },
          ],
          close: 'eof',
          durationMs: 2000,
        },
      ],
      { store, expectedGVK: { apiVersion: 'v1', kind: 'ConfigMap' } },
    );
    await runScript(r);
    const events = r.sink.of('watch.event').map((e) => [e.eventType, e.accepted, e.skipped ?? '']);
    assert.deepEqual(events, [
      ['MODIFIED', false, 'Unexpected watch event object gvk'],
      ['ADDED', true, ''],
    ]);
    assert.ok(r.sink.logs().includes('Unable to add watch event object to store'));
    assert.equal(r.sink.of('watch.end')[0].eventCount, 1);
    assert.equal(r.sink.requests().at(-1), 'watch rv=12');
    await r.stop();
  });

  it('#23 a store.resync() error ends the watch and relists; the resync timer restarts per ListAndWatch', async () => {
    const store = new MemoryStore();
    const r = start([LIST10, { on: 'watch', close: 'never' }, { on: 'list', rv: '11' }, { on: 'watch', close: 'never' }], { store, resyncPeriodMs: 1000 });
    await r.runUntil(() => r.sink.of('resync.timer').length === 2);
    assert.deepEqual(r.sink.of('resync.timer').map((e) => e.t), [1000, 2000]);
    store.failResync = new Error('resync failed');
    await r.runUntil(() => r.sink.of('watch.end').length === 1);
    store.failResync = undefined;
    assert.deepEqual(ends(r), [{ row: 23, outcome: 'relist', reason: 'ResyncError' }]);
    assert.equal(r.sink.of('watch.end')[0].error, 'resync failed');
    assert.equal(r.sink.of('watch.end')[0].t, 3000);
    assert.equal(r.sink.of('log').find((l) => l.msg === 'Warning: watch ended with error')?.kv?.err, 'resync failed');
    // New ListAndWatch after the 800 ms backoff: the timer starts again from there.
    await r.runUntil(() => r.sink.of('resync.timer').length === 4);
    assert.deepEqual(r.sink.requests().slice(2), ['list rv=10', 'watch rv=11']);
    assert.deepEqual(r.sink.of('resync.timer').map((e) => e.t).slice(2), [3000, 4800]);
    await r.stop();
  });

  it('#24 stop while watching: stops the watcher, run() resolves, no timers left', async () => {
    const r = start([LIST10, { on: 'watch', close: 'never' }], { resyncPeriodMs: 5000 });
    await r.runUntil(() => r.sink.of('watch.start').length === 1);
    await r.stop();
    assert.deepEqual(ends(r), [{ row: 24, outcome: 'stop' }]);
    assert.equal(r.sink.of('reflector.state').at(-1)?.state, 'stopped');
    assert.equal(r.lw.watchers[0].end?.kind, 'stopped');
  });

  it('#25 the store refuses the list: "unable to sync list result" through the handler, relist', async () => {
    const store = new MemoryStore();
    store.failReplace = new Error('boom');
    const r = start([LIST10, LIST10], { store });
    await r.runUntil(() => r.sink.of('relist').length === 1);
    assert.equal(handlerTexts(r)[0], 'unable to sync list result: boom');
    assert.deepEqual([r.sink.of('relist')[0].row, r.sink.of('relist')[0].reason], [25, 'SyncFailed']);
    await r.stop();
  });
});
