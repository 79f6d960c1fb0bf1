import { strict as assert } from 'node:assert';
import { startSandboxComparison } from '../../../src/app/compare';
import { alignSessions } from '../../../src/protocol/compare';

describe('compare: a sandbox storyline under two profiles, started together', () => {
  it('restart-storm as v1.15 and v1.36: two live SIMULATED informers that line up on the wall clock', async function () {
    this.timeout(30_000);
    let n = 0;
    const sessions = await startSandboxComparison({ storyline: 'restart-storm', profiles: ['v1.15', 'v1.36'], newId: () => `c${++n}` });
    try {
      assert.deepEqual(sessions.map((s) => s.header().profile), ['v1.15', 'v1.36']);
      assert.deepEqual(sessions.map((s) => s.id), ['c1', 'c2']);
      assert.ok(sessions.every((s) => s.live && s.info().simulated));
      const a = alignSessions(sessions.map((s) => s.header()));
      assert.equal(a.mode, 'wall clock');
      assert.ok(Math.max(...a.offsets) < 1000, `started together: offsets ${a.offsets}`);
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && !sessions.every((s) => s.summary().synced)) await new Promise((r) => setTimeout(r, 100));
      assert.ok(sessions.every((s) => s.summary().synced), 'both informers synced');
    } finally {
      await Promise.all(sessions.map((s) => s.stop()));
    }
    assert.ok(sessions.every((s) => !s.live), 'stopping a session stops its sandbox and informer');
  });

  it('a bad profile or storyline starts nothing', async () => {
    await assert.rejects(startSandboxComparison({ storyline: 'restart-storm', profiles: ['v1.15', 'v0.0'], newId: () => 'x' }), /unknown profile "v0.0"/);
    await assert.rejects(startSandboxComparison({ storyline: 'no-such-story', profiles: ['v1.15', 'v1.36'], newId: () => 'x' }), /unknown sandbox scenario/);
    await assert.rejects(startSandboxComparison({ storyline: 'calm', profiles: ['v1.15'], newId: () => 'x' }), /2 to 4 profiles/);
  });
});
