import { strict as assert } from 'node:assert';
import { depthColumns, depthHeight, peakLabel, widenPeaks } from '../../../webview/model/depthLane';

describe('webview model: FIFO depth lane', () => {
  it('widens a one-column spike to the minimum width, centred on it', () => {
    const v = Float64Array.from([0, 0, 0, 5, 0, 0, 0]);
    assert.deepEqual([...widenPeaks(v, 3)], [0, 0, 5, 5, 5, 0, 0]);
    assert.deepEqual([...widenPeaks(v, 1)], [...v]);
  });

  it('never lets a spike hide a taller neighbour', () => {
    const v = Float64Array.from([1, 9, 2, 0]);
    assert.deepEqual([...widenPeaks(v, 3)], [9, 9, 9, 2]);
  });

  it('a queue that fills and drains inside one column is still drawn and is the window peak', () => {
    // 100 columns over 0..1000 ms; 12 deltas (4 keys) arrive at 501 ms and are gone at 502 ms.
    const t = Float64Array.from([0, 501, 502]);
    const keys = Float64Array.from([0, 4, 0]);
    const deltas = Float64Array.from([0, 12, 0]);
    const c = depthColumns(t, keys, deltas, 3, { t0: 0, t1: 1000, bins: 100 }, 3);
    assert.equal(c.peakDeltas, 12);
    assert.equal(c.peakKeys, 4);
    assert.equal(c.peakBin, 50);
    assert.deepEqual([...c.deltas.slice(48, 53)], [0, 12, 12, 12, 0]);
    assert.equal(peakLabel(c), 'peak 12 deltas · 4 keys');
  });

  it('reports the peak of the visible window only, counting the depth in force at its left edge', () => {
    const t = Float64Array.from([0, 10, 20, 500]);
    const keys = Float64Array.from([50, 3, 2, 0]);
    const deltas = Float64Array.from([90, 7, 2, 0]);
    const later = depthColumns(t, keys, deltas, 4, { t0: 15, t1: 400, bins: 10 }, 3);
    assert.equal(later.peakDeltas, 7);
    assert.equal(later.peakKeys, 3);
    assert.equal(later.peakBin, 0);
    const all = depthColumns(t, keys, deltas, 4, { t0: 0, t1: 600, bins: 10 }, 3);
    assert.equal(all.peakDeltas, 90);
  });

  it('an empty queue (or no data yet) has no peak and says so', () => {
    const none = depthColumns(new Float64Array(0), new Float64Array(0), new Float64Array(0), 0, { t0: 0, t1: 10, bins: 5 }, 3);
    assert.equal(none.peakDeltas, 0);
    assert.equal(none.peakBin, -1);
    assert.deepEqual([...none.deltas], [0, 0, 0, 0, 0]);
    assert.equal(peakLabel(none), 'empty in view');
    assert.equal(peakLabel({ peakDeltas: 1, peakKeys: 1 }), 'peak 1 delta · 1 key');
  });

  it('gives any non-zero depth a minimum height and never exceeds the lane', () => {
    assert.equal(depthHeight(1, 1000, 28, 3), 3);
    assert.equal(depthHeight(500, 1000, 28, 3), 14);
    assert.equal(depthHeight(1000, 1000, 28, 3), 28);
    assert.equal(depthHeight(0, 1000, 28, 3), 0);
    assert.equal(depthHeight(5, 0, 28, 3), 0);
  });
});
