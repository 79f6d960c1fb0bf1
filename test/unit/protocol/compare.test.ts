import { strict as assert } from 'node:assert';
import { alignSessions, CompareListNotification, comparedSession, isCompareViewState, isSameSession, MAX_WALL_SPREAD_MS } from '../../../src/protocol/compare';

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

describe('compare: the compared sessions as a window reload finds them again', () => {
  const h = { profile: 'v1.15', source: 'sandbox' as const, resource: { group: '', version: 'v1', resource: 'configmaps' }, startedAt: '2026-01-01T00:00:00.000Z' };

  it('a session is the compared one when its trace has the same source, profile, resource and start (not the same id or title)', () => {
    const c = comparedSession(h, 'configmaps (v1.15) SIMULATED', 'file:///w/a.json');
    assert.deepEqual(c, { title: 'configmaps (v1.15) SIMULATED', profile: 'v1.15', source: 'sandbox', resource: '/v1/configmaps', startedAt: h.startedAt, file: 'file:///w/a.json' });
    assert.ok(isSameSession(c, h));
    assert.ok(!isSameSession(c, { ...h, profile: 'v1.36' }));
    assert.ok(!isSameSession(c, { ...h, startedAt: '2026-01-01T00:00:01.000Z' }), 'a new run of the same informer is another session');
    assert.ok(!isSameSession(c, { ...h, resource: { group: '', version: 'v1', resource: 'pods' } }));
    assert.ok(!isSameSession(c, { ...h, source: 'import' }));
  });

  it('the view state is checked before a reload trusts it; the list message too', () => {
    const c = comparedSession(h, 't');
    assert.ok(isCompareViewState({ compared: [c, c] }));
    for (const bad of [undefined, null, 'x', {}, { compared: 'x' }, { compared: [{ ...c, source: 'elsewhere' }] }, { compared: [{ ...c, startedAt: 1 }] }, { compared: Array(17).fill(c) }]) {
      assert.ok(!isCompareViewState(bad), JSON.stringify(bad));
    }
    assert.ok(CompareListNotification.is(CompareListNotification.create({ compared: [c, c], gone: [1] })));
    assert.ok(!CompareListNotification.is(CompareListNotification.create({ compared: [c], gone: [1] })), 'a gone index past the list');
    assert.ok(!CompareListNotification.is(CompareListNotification.create({ compared: [c], gone: [0.5] })));
  });
});
