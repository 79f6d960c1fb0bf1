/**
 * Each sandbox storyline, run for the short stretch of (virtual) time that holds its trouble, with
 * the engine and the project's HTTP ListerWatcher over real loopback HTTP, under v1.15 and v1.36,
 * recorded by a TraceRecorder and read back by the findings. Time is a FakeClock driving both the
 * sandbox (storyline, restarts, bookmarks) and the engine (backoff), so each run takes seconds.
 *
 * What each story must show (docs/findings.md, "Seen on the real cluster and the sandbox"):
 * - restart-storm: v1.15 relists after the refused re-watch and floods identical updates;
 *   v1.36 backs off and re-watches, no relist;
 * - etcd-lost-delete: after the watch cache reinitialises, the relist hands the lost object to
 *   the handler as a DeletedFinalStateUnknown tombstone;
 * - watch-expiry: the re-watch gets 410 Expired and the reflector relists.
 */
import { strict as assert } from 'node:assert';
import { TIMINGS } from '../../../src/sources/sandbox/storylines';
import { runStory, type StoryRun } from './storyRun';

const has = (r: StoryRun, id: string) => assert.ok(r.ids.includes(id), `${id} expected; found ${r.ids.join(', ') || 'none'}`);
const lacks = (r: StoryRun, id: string) => assert.ok(!r.ids.includes(id), `${id} not expected; found ${r.ids.join(', ')}`);

describe('sandbox storylines through the engine, read by the findings', function () {
  this.timeout(30_000);

  // First restart at 8 s, refused for 3 s; by 16 s v1.15's fixed 1 s loop has relisted.
  const restartMs = TIMINGS.restartFirstAtMs + TIMINGS.restartDownMs + 5000;

  it('restart-storm, v1.15: relists after the refused re-watch and delivers identical updates', async () => {
    const r = await runStory('restart-storm', 'v1.15', restartMs);
    assert.ok(r.of('relist').some((e) => e.reason === 'ConnectionRefused'), JSON.stringify(r.of('relist')));
    has(r, 'refused-watch-relist');
    has(r, 'identical-updates-after-relist');
  });

  it('restart-storm, v1.36: backs off and re-watches, no relist, no identical updates', async () => {
    const r = await runStory('restart-storm', 'v1.36', restartMs);
    assert.equal(r.of('relist').length, 0, JSON.stringify(r.of('relist')));
    assert.ok(r.of('watch.end').some((e) => e.outcome === 'rewatch-after-backoff'));
    lacks(r, 'refused-watch-relist');
    lacks(r, 'identical-updates-after-relist');
    lacks(r, 'relist-storm');
  });

  // The victim is created at 6 s, its delete lost at 12 s, the watch cache reinitialised at 18 s.
  const lostDeleteMs = TIMINGS.lostDeleteFirstAtMs + TIMINGS.lostDeleteAfterMs + TIMINGS.relistAfterLossMs + 4000;
  for (const profile of ['v1.15', 'v1.36']) {
    it(`etcd-lost-delete, ${profile}: the relist after 410 delivers the lost object as a tombstone`, async () => {
      const r = await runStory('etcd-lost-delete', profile, lostDeleteMs);
      const tombstones = r.of('notify').filter((e) => e.op === 'delete' && e.tombstone);
      assert.deepEqual(tombstones.map((e) => e.key), ['team-a/doomed-config-1']);
      const relist = r.of('relist')[0];
      assert.ok(relist && relist.seq < tombstones[0].seq, 'the tombstone comes from a relist');
      has(r, 'tombstones-delivered');
      has(r, 'expired-relist');
    });
  }

  // The first watch cache reinitialisation is at 8 s.
  const expiryMs = TIMINGS.expiryFirstAtMs + 3000;
  for (const profile of ['v1.15', 'v1.36']) {
    it(`watch-expiry, ${profile}: the re-watch gets 410 Expired and relists`, async () => {
      const r = await runStory('watch-expiry', profile, expiryMs);
      assert.ok(r.of('relist').some((e) => e.reason === 'Expired' || e.reason === 'Gone'), JSON.stringify(r.of('relist')));
      has(r, 'expired-relist');
      lacks(r, 'tombstones-delivered');
    });
  }
});
