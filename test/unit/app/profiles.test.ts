import { strict as assert } from 'node:assert';
import { DEFAULT_PROFILE } from '../../../src/engine/profiles';
import { replayProfile, replayProfileName } from '../../../src/app/profiles';
import type { Scenario } from '../../../src/scenario/types';

describe('replayProfileName', () => {
  it('uses the default profile when the scenario names none or includes it', () => {
    assert.equal(replayProfileName(undefined), DEFAULT_PROFILE);
    assert.equal(replayProfileName([]), DEFAULT_PROFILE);
    assert.equal(replayProfileName(['v1.15', DEFAULT_PROFILE]), DEFAULT_PROFILE);
  });

  it("uses the scenario's first profile when the default is not among them", () => {
    assert.notEqual(DEFAULT_PROFILE, 'v1.15');
    assert.equal(replayProfileName(['v1.15']), 'v1.15');
    assert.equal(replayProfileName(['v1.32', 'v1.34']), 'v1.32');
  });
});

describe('replayProfile', () => {
  const scenario = (gates: Record<string, boolean>, profiles?: string[]) =>
    ({ format: 'informer-scenario/v1', name: 's', resource: {}, informer: { handlers: [{ name: 'main' }] }, gates, ...(profiles ? { profiles } : {}), steps: [] }) as unknown as Scenario;

  it('v1.32 with WatchListClient on runs the gate and the client-side watch-list, with no warning (finding 6 is emulated)', () => {
    const r = replayProfile(scenario({ WatchListClient: true }), 'v1.32');
    assert.equal(r.profile.gates.WatchListClient, true);
    assert.equal(r.profile.listUsesWatchList, true);
    assert.equal(r.warning, undefined);
  });

  it('warns when the requested profile is not one the scenario is meant for', () => {
    const r = replayProfile(scenario({}, ['v1.34']), 'v1.32');
    assert.match(r.warning ?? '', /meant for v1\.34, not v1\.32; replaying anyway/);
  });
});
