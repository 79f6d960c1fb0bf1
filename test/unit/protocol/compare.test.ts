import { strict as assert } from 'node:assert';
import { alignSessions, MAX_WALL_SPREAD_MS } from '../../../src/protocol/compare';

describe('compare: lining sessions up on one time axis', () => {
  it('sessions on a real clock are placed by their start times', () => {
    const a = alignSessions([
      { startedAt: '2026-01-01T00:00:01.500Z', source: 'sandbox' },
      { startedAt: '2026-01-01T00:00:01.000Z', source: 'sandbox' },
      { startedAt: '2026-01-01T00:00:03.000Z', source: 'cluster' },
    ]);
    assert.equal(a.mode, 'wall clock');
    assert.deepEqual(a.offsets, [500, 0, 2000]);
  });

  it('replays (virtual time) and runs recorded far apart line up their starts', () => {
    assert.deepEqual(alignSessions([{ startedAt: '2026-01-01T00:00:00Z', source: 'scenario' }, { startedAt: '2026-01-01T00:00:05Z', source: 'sandbox' }]), { offsets: [0, 0], mode: 'starts' });
    const far = new Date(Date.parse('2026-01-01T00:00:00Z') + MAX_WALL_SPREAD_MS + 1).toISOString();
    assert.deepEqual(alignSessions([{ startedAt: '2026-01-01T00:00:00Z', source: 'import' }, { startedAt: far, source: 'import' }]).mode, 'starts');
    assert.deepEqual(alignSessions([{ startedAt: 'not a date', source: 'import' }, { startedAt: '2026-01-01T00:00:00Z', source: 'import' }]), { offsets: [0, 0], mode: 'starts' }, 'a bad date does not throw');
  });
});
