import { strict as assert } from 'node:assert';
import { DEFAULT_PROFILE } from '../../../src/engine/profiles';
import { replayProfileName } from '../../../src/app/profiles';

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
