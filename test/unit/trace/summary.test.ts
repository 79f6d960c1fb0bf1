/** The summary model's stale-cache windows on hand-written traces (the storylines test runs it on real ones). */
import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { SummaryModel } from '../../../src/trace/summary';
import { numbered } from './fixtures';

const added = (t: number, key: string): TraceEvent => ({ t, type: 'watch.event', eventType: 'ADDED', key, rv: String(t), accepted: true });
const check = (t: number, extra: string[]): TraceEvent => ({ t, type: 'consistency.check', rv: '99', missing: [], extra, rvMismatch: [] });
const tombstone = (t: number, key: string): TraceEvent => ({ t, type: 'fifo.enqueue', key, delta: 'Deleted', rv: '5', depthKeys: 1, depthDeltas: 1, tombstone: 'replace-known' });

describe('summary model: stale-cache windows', () => {
  it('a check that finds an object in the cache only opens a window from its last sighting; the relist tombstone closes it', () => {
    const m = SummaryModel.of(numbered([added(1000, 'ns/a'), added(1500, 'ns/b'), check(5000, ['ns/a'])]));
    assert.deepEqual(m.snapshot().staleWindows, [{ key: 'ns/a', fromT: 1000, revealedBy: 'check', revealSeq: 2 }]);
    m.add({ ...tombstone(9000, 'ns/a'), seq: 3 });
    assert.deepEqual(m.snapshot().staleWindows, [{ key: 'ns/a', fromT: 1000, toT: 9000, revealedBy: 'check', revealSeq: 2 }]);
  });

  it('a relist tombstone with no check before it makes a closed window; an object never seen makes none', () => {
    const s = SummaryModel.of(numbered([added(1000, 'ns/a'), tombstone(4000, 'ns/a'), tombstone(4000, 'ns/never-seen')])).snapshot();
    assert.deepEqual(s.staleWindows, [{ key: 'ns/a', fromT: 1000, toT: 4000, revealedBy: 'relist', revealSeq: 1 }]);
  });

  it('an object the server shows again ends the window the check opened', () => {
    const s = SummaryModel.of(numbered([added(1000, 'ns/a'), check(2000, ['ns/a']), added(3000, 'ns/a'), check(4000, [])])).snapshot();
    assert.deepEqual(s.staleWindows, [{ key: 'ns/a', fromT: 1000, toT: 3000, revealedBy: 'check', revealSeq: 1 }]);
  });
});
