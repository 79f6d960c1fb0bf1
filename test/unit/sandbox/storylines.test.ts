import { strict as assert } from 'node:assert';
import type { WatchEvent } from '../../../src/engine/listWatch';
import { TIMINGS } from '../../../src/sources/sandbox/storylines';
import { type EventReader, type TestSandbox, fetchErrorCode, keyOf, openWatch, rvOf, testSandbox } from './helpers';

/** Collects a watch's events in the background until the stream ends or breaks. */
function collect(w: EventReader): { events: WatchEvent[]; done: Promise<'ended' | 'broken'> } {
  const events: WatchEvent[] = [];
  const done = (async () => {
    try {
      for (let e = await w.next(); e; e = await w.next()) events.push(e);
      return 'ended' as const;
    } catch {
      return 'broken' as const;
    }
  })();
  return { events, done };
}

const lastRV = (events: WatchEvent[]) => rvOf(events[events.length - 1]) ?? '';

describe('sandbox: storylines', () => {
  let t: TestSandbox;
  let log: string[];
  const start = async (scenario: string) => {
    log = [];
    t = await testSandbox({ runStoryline: true, scenario, onLog: (l) => log.push(l) });
  };
  afterEach(async () => t.sb.stop());

  it('restart-storm: refuses connections for a few seconds every 20 s, churn goes on, state survives', async () => {
    await start('restart-storm');
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${t.sb.storage.currentRV}`);
    const watched = collect(w);
    await t.clock.advance(TIMINGS.restartFirstAtMs);
    assert.equal(await watched.done, 'broken', 'the watch is dropped, not ended cleanly');
    assert.ok(watched.events.length >= 3, 'churn events arrived before the restart');
    assert.equal(await fetchErrorCode(`${t.sb.url}/api/v1/configmaps`), 'ECONNREFUSED');
    await t.clock.advance(TIMINGS.restartDownMs);
    const again = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${lastRV(watched.events)}`);
    const [resumed] = await again.take(1);
    assert.notEqual(resumed.type, 'ERROR', 're-watching from the last RV works after a restart');
    await again.cancel();
    await t.clock.advance(TIMINGS.restartEveryMs - TIMINGS.restartDownMs);
    assert.equal(await fetchErrorCode(`${t.sb.url}/readyz`), 'ECONNREFUSED', 'the second restart');
    assert.equal(log.filter((l) => l.includes('apiserver restarting')).length, 2);
    assert.match(log[1], /^t=8\.0s apiserver restarting/);
  });

  it('etcd-lost-delete: the object vanishes without a DELETED event, then re-watches get 410 and a relist no longer has it', async () => {
    await start('etcd-lost-delete');
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${t.sb.storage.currentRV}&allowWatchBookmarks=true`);
    const watched = collect(w);
    await t.clock.advance(TIMINGS.lostDeleteFirstAtMs + TIMINGS.lostDeleteAfterMs + TIMINGS.relistAfterLossMs);
    assert.equal(await watched.done, 'ended', 'the watch cache reinitialisation ends the watch cleanly');
    const doomed = watched.events.filter((e) => keyOf(e) === 'team-a/doomed-config-1');
    assert.deepEqual(doomed.map((e) => e.type), ['ADDED'], 'added, never deleted');
    assert.equal(t.sb.storage.get('configmaps', 'team-a/doomed-config-1'), undefined);
    const rewatch = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${lastRV(watched.events)}`);
    const [expired] = await rewatch.rest();
    assert.deepEqual([expired.type, expired.object.code, expired.object.reason], ['ERROR', 410, 'Expired']);
    const relist = await t.json(`/api/v1/configmaps?resourceVersion=${lastRV(watched.events)}`);
    assert.equal(relist.status, 200);
    assert.ok(!(relist.body.items ?? []).some((o) => o.metadata?.name === 'doomed-config-1'));
    assert.ok(log.some((l) => /etcd lost the delete of configmap team-a\/doomed-config-1/.test(l)));
  });

  it('watch-expiry: every watch cache reinitialisation makes the re-watch from the last RV 410', async () => {
    await start('watch-expiry');
    for (const at of [TIMINGS.expiryFirstAtMs, TIMINGS.expiryEveryMs]) {
      const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${t.sb.storage.currentRV}&allowWatchBookmarks=true`);
      const watched = collect(w);
      await t.clock.advance(at);
      assert.equal(await watched.done, 'ended');
      const from = lastRV(watched.events);
      const [event] = await (await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${from}`)).rest();
      assert.equal(event.type, 'ERROR');
      assert.equal(event.object.message, `too old resource version: ${from} (${t.sb.storage.windowStartRV})`);
    }
  });

  it('calm: a minute of churn with no restart and no expiry', async () => {
    await start('calm');
    const w = await openWatch(t, `/api/v1/configmaps?watch=true&resourceVersion=${t.sb.storage.currentRV}&timeoutSeconds=300`);
    const watched = collect(w);
    await t.clock.advance(60_000);
    assert.equal((await t.get('/readyz')).status, 200);
    await w.cancel();
    await watched.done;
    assert.ok(watched.events.length >= 20, `churn: ${watched.events.length} events`);
    assert.ok(watched.events.every((e) => e.type !== 'ERROR'));
    assert.equal(log.length, 1, 'only the storyline banner');
  });

  it('runs the same changes on every run (deterministic churn)', async () => {
    const changes: string[][] = [];
    for (let run = 0; run < 2; run++) {
      await start('calm');
      const seen: string[] = [];
      const unsubscribe = t.sb.storage.subscribe((c) => seen.push(`${c.type} ${c.key} ${c.rv}`));
      await t.clock.advance(30_000);
      unsubscribe();
      changes.push(seen);
      await t.sb.stop();
    }
    assert.ok(changes[0].length >= 10);
    assert.deepEqual(changes[0], changes[1]);
  });
});
