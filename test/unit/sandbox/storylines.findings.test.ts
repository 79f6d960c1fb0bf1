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
import { settle } from '../../../src/engine/clock';
import { findProfile } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { HttpListerWatcher, KubeConnection } from '../../../src/kube';
import { TIMINGS } from '../../../src/sources/sandbox/storylines';
import { computeFindings } from '../../../src/trace/findings';
import type { Finding } from '../../../src/format/trace';
import { TraceRecorder } from '../../../src/trace/recorder';
import type { RecordedEvent } from '../../../src/format/events';
import { type TestSandbox, testSandbox } from './helpers';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
const STEP_MS = 50;

interface StoryRun {
  recorder: TraceRecorder;
  findings: Finding[];
  ids: string[];
  of<T extends RecordedEvent['type']>(type: T): Extract<RecordedEvent, { type: T }>[];
}

/** Moves virtual time in small steps, letting real loopback I/O complete between them. */
async function drive(t: TestSandbox, ms: number): Promise<void> {
  for (let done = 0; done < ms; done += STEP_MS) {
    await t.clock.advance(STEP_MS);
    for (let i = 0; i < 4; i++) await settle();
  }
}

async function runStory(story: string, profileName: string, virtualMs: number): Promise<StoryRun> {
  const profile = findProfile(profileName);
  if (!profile) throw new Error(`no profile ${profileName}`);
  const t = await testSandbox({ runStoryline: true, scenario: story });
  const recorder = new TraceRecorder({
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: '0.1.0' },
    profile: profile.name,
    gates: { ...profile.gates },
    resource: { ...CONFIGMAPS, kind: 'ConfigMap' },
    context: 'informer-inspector-sandbox',
    source: 'sandbox',
    startedAt: '2026-01-01T00:00:00.000Z',
    cap: 200_000,
    redacted: true,
  });
  const conn = KubeConnection.load({ kubeconfigYaml: t.sb.kubeconfigYaml });
  const lw = new HttpListerWatcher(conn, CONFIGMAPS, { clock: t.clock });
  let seed = 11;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock: t.clock, sink: recorder, rand, name: `story-${story}` });
  informer.addEventHandler('main', {});
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  try {
    await drive(t, virtualMs);
  } finally {
    ac.abort();
    await running;
    await t.sb.stop();
  }
  const findings = computeFindings(recorder.header(), recorder.events());
  if (process.env.PRINT_STORY_FINDINGS === '1') console.log(`      ${story} ${profileName}: ${findings.map((f) => f.id).join(', ') || 'none'}`);
  return {
    recorder,
    findings,
    ids: findings.map((f) => f.id.split(':')[0]),
    of: <T extends RecordedEvent['type']>(type: T) => recorder.events().filter((e): e is Extract<RecordedEvent, { type: T }> => e.type === type),
  };
}

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
