import { strict as assert } from 'node:assert';
import { settle } from '../../../src/engine/clock';
import { type TestSandbox, fetchErrorCode, openWatch, testSandbox } from './helpers';

/** Lets I/O and timers of the test process run until cond holds (bounded, no sleeping). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await settle();
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('sandbox: apiserver restart and lifetime', () => {
  let t: TestSandbox;
  afterEach(async () => t.sb.stop());

  it('drops open watches, refuses connections while down, then serves again on the same port', async () => {
    t = await testSandbox();
    const w = await openWatch(t, '/api/v1/configmaps?watch=true');
    await w.take(12);
    const restarted = t.sb.restartApiserver(3000);
    await until(() => t.clock.nextTimerAt() === t.clock.now() + 3000, 'the server to go down');
    await assert.rejects(w.next(), 'the open watch breaks mid-stream');
    assert.equal(await fetchErrorCode(`${t.sb.url}/readyz`), 'ECONNREFUSED');
    await t.clock.advance(2999);
    assert.equal(await fetchErrorCode(`${t.sb.url}/readyz`), 'ECONNREFUSED', 'still down just before downMs');
    await t.clock.advance(1);
    await restarted;
    const res = await t.get('/readyz');
    assert.equal(res.status, 200);
    assert.equal(new URL(t.sb.url).port, String(t.sb.port));
    const list = await t.json('/api/v1/configmaps');
    assert.equal(list.body.items?.length, 12, 'storage survives the restart');
  });

  it('a second restart request while down joins the first', async () => {
    t = await testSandbox();
    const first = t.sb.restartApiserver(1000);
    const second = t.sb.restartApiserver(5000);
    await until(() => t.clock.nextTimerAt() === t.clock.now() + 1000, 'the server to go down');
    await t.clock.advance(1000);
    await Promise.all([first, second]);
    assert.equal((await t.get('/readyz')).status, 200);
  });

  it('stops itself after maxLifetimeMs and leaves no timer behind, storyline included', async () => {
    t = await testSandbox({ runStoryline: true, scenario: 'restart-storm', maxLifetimeMs: 30_000 });
    const w = await openWatch(t, '/api/v1/configmaps?watch=true&allowWatchBookmarks=true');
    await w.take(12);
    let stopped = false;
    void t.sb.stopped.then(() => (stopped = true));
    await t.clock.advance(29_000);
    assert.equal(stopped, false);
    await t.clock.advance(12_000);
    await t.sb.stopped;
    assert.equal(t.clock.pendingTimers(), 0);
    assert.equal(await fetchErrorCode(`${t.sb.url}/readyz`), 'ECONNREFUSED');
    await t.clock.advance(60_000);
    assert.equal(await fetchErrorCode(`${t.sb.url}/readyz`), 'ECONNREFUSED', 'a pending restart does not bring it back');
  });

  it('stop() during a restart keeps it down and is idempotent', async () => {
    t = await testSandbox();
    const restarted = t.sb.restartApiserver(5000);
    await until(() => t.clock.nextTimerAt() === t.clock.now() + 5000, 'the server to go down');
    await Promise.all([t.sb.stop(), t.sb.stop()]);
    await restarted;
    assert.equal(t.clock.pendingTimers(), 0);
    assert.equal(await fetchErrorCode(`${t.sb.url}/readyz`), 'ECONNREFUSED');
  });
});
