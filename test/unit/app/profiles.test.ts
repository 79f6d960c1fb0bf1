import { strict as assert } from 'node:assert';
import { DEFAULT_PROFILE, unemulatedGateProblem } from '../../../src/engine/profiles';
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

describe('replayProfile: gate settings the engine only partly emulates', () => {
  const scenario = (gates: Record<string, boolean>) =>
    ({ format: 'informer-scenario/v1', name: 's', resource: {}, informer: { handlers: [{ name: 'main' }] }, gates, steps: [] }) as unknown as Scenario;

  it('v1.32 with WatchListClient on says the LISTs of that setting may differ from client-go (finding 6)', () => {
    const r = replayProfile(scenario({ WatchListClient: true }), 'v1.32');
    assert.equal(r.profile.gates.WatchListClient, true);
    assert.match(r.warning ?? '', /WatchListClient=true under profile v1\.32 is only partly emulated: .*PrepareWatchListOptionsFromListOptions/);
    assert.equal(unemulatedGateProblem(r.profile), r.warning);
  });

  it('says nothing for the same gate under v1.34, or for v1.32 with the gate off', () => {
    assert.equal(replayProfile(scenario({ WatchListClient: true }), 'v1.34').warning, undefined);
    assert.equal(replayProfile(scenario({ WatchListClient: false }), 'v1.32').warning, undefined);
  });
});
