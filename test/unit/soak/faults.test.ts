/**
 * The soak's fault plan and what its refused-connection faults must show (test/soak/faults.ts):
 * pure parts, run without a cluster.
 */
import { strict as assert } from 'node:assert';
import { checkRefusals, faultPlan, type FaultRecord } from '../../soak/faults';
import { seededRandom } from '../../soak/random';

const PROFILES = ['v1.15', 'v1.32', 'v1.36'];

function refused(starts: Record<string, { relist: number; rewatch: number }>): FaultRecord {
  return { kind: 'refused', at: 1, faultMs: 4000, convergedMs: {}, backoffMs: {}, relists: {}, refusedWatchStarts: starts };
}

describe('soak faults', () => {
  it('the plan holds every fault asked for, in an order that repeats for one seed', () => {
    const counts = { restarts: 3, compactions: 2, resetGroups: 4, bursts: 1, refusals: 3 };
    const plan = faultPlan(counts, seededRandom(7));
    const n = (k: string) => plan.filter((f) => f === k).length;
    assert.deepEqual([n('restart-kill'), n('restart-graceful'), n('compaction'), n('resets'), n('burst-429'), n('refused')], [2, 1, 2, 4, 1, 3]);
    assert.deepEqual(faultPlan(counts, seededRandom(7)), plan);
    assert.notDeepEqual(faultPlan(counts, seededRandom(8)), plan);
  });

  it('refused connections: v1.15 relists after a refused watch start, the later lines back off and re-watch', () => {
    const good = refused({ 'v1.15': { relist: 1, rewatch: 0 }, 'v1.32': { relist: 0, rewatch: 2 }, 'v1.36': { relist: 0, rewatch: 1 } });
    assert.deepEqual(checkRefusals([good], PROFILES), []);
    // No refused fault in the run: nothing to check.
    assert.deepEqual(checkRefusals([], PROFILES), []);
  });

  it('refused connections: each missing path is a problem', () => {
    const none = refused({ 'v1.15': { relist: 0, rewatch: 0 }, 'v1.32': { relist: 0, rewatch: 0 }, 'v1.36': { relist: 0, rewatch: 3 } });
    const p = checkRefusals([none], PROFILES);
    assert.equal(p.length, 2, p.join('\n'));
    assert.match(p[0], /^v1\.15: no refused watch start led to a ConnectionRefused relist/);
    assert.match(p[1], /^v1\.32: no refused watch start was retried after a backoff/);
    const relisted = refused({ 'v1.15': { relist: 2, rewatch: 0 }, 'v1.32': { relist: 0, rewatch: 1 }, 'v1.36': { relist: 1, rewatch: 1 } });
    assert.deepEqual(checkRefusals([relisted], PROFILES), ['v1.36: 1 refused watch starts led to a relist (it should back off and re-watch)']);
  });
});
