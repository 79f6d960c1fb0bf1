import { strict as assert } from 'node:assert';
import { binCounts, binOf, binRuns, binStepMax, nearestRow } from '../../../webview/model/binning';
import { PackedLane, lowerBound, upperBound } from '../../../webview/model/packed';

describe('webview model: packed lanes', () => {
  it('grows past its initial capacity and keeps every row', () => {
    const lane = new PackedLane({ t: Float64Array, code: Uint8Array }, 2);
    for (let i = 0; i < 1000; i++) lane.push({ t: i * 1.5, code: i % 7 });
    assert.equal(lane.length, 1000);
    assert.equal(lane.columns.t[999], 1498.5);
    assert.equal(lane.columns.code[999], 999 % 7);
    assert.ok(lane.columns.t.length >= 1000);
  });

  it('set changes one cell and refuses rows that do not exist', () => {
    const lane = new PackedLane({ t: Float64Array }, 4);
    lane.push({ t: 1 });
    lane.set(0, 't', 9);
    assert.equal(lane.columns.t[0], 9);
    assert.throws(() => lane.set(1, 't', 2), RangeError);
  });

  it('lower/upper bound find the edges of runs of equal times', () => {
    const ts = [1, 2, 2, 2, 5];
    assert.equal(lowerBound(ts, ts.length, 2), 1);
    assert.equal(upperBound(ts, ts.length, 2), 4);
    assert.equal(lowerBound(ts, ts.length, 6), 5);
    assert.equal(lowerBound(ts, ts.length, 0), 0);
  });
});

describe('webview model: binning', () => {
  const times = Float64Array.from([0, 1, 2, 5, 9, 10, 15]);
  const codes = Uint8Array.from([0, 1, 0, 2, 1, 0, 0]);

  it('binOf maps the window edges to the first and last bin', () => {
    const w = { t0: 0, t1: 10, bins: 5 };
    assert.equal(binOf(w, 0), 0);
    assert.equal(binOf(w, 10), 4);
    assert.equal(binOf(w, 4.99), 2);
    assert.equal(binOf(w, 10.01), -1);
  });

  it('counts per bin and category only inside the window', () => {
    const c = binCounts(times, codes, times.length, { t0: 0, t1: 10, bins: 2 }, 3);
    // bin 0 = [0,5): t 0,1,2 -> codes 0,1,0 ; bin 1 = [5,10]: t 5,9,10 -> codes 2,1,0
    assert.deepEqual([...c], [2, 1, 0, 1, 1, 1]);
  });

  it('ignores codes outside the categories', () => {
    const c = binCounts(times, codes, times.length, { t0: 0, t1: 20, bins: 1 }, 2);
    assert.deepEqual([...c], [4, 2]);
  });

  it('step max carries the last value into empty bins and is NaN before the first row', () => {
    const t = Float64Array.from([10, 12, 30]);
    const v = Float64Array.from([3, 1, 7]);
    const m = binStepMax(t, v, 3, { t0: 0, t1: 40, bins: 4 });
    assert.ok(Number.isNaN(m[0]));
    assert.deepEqual([...m.slice(1)], [3, 1, 7]);
  });

  it('step max starts a window with the value in force before it', () => {
    const t = Float64Array.from([0, 5]);
    const v = Float64Array.from([4, 2]);
    assert.deepEqual([...binStepMax(t, v, 2, { t0: 1, t1: 3, bins: 2 })], [4, 4]);
  });

  it('nearestRow respects the distance limit', () => {
    assert.equal(nearestRow(times, times.length, 8, 1.5), 4);
    assert.equal(nearestRow(times, times.length, 12.4, 1), -1);
    assert.equal(nearestRow(times, 0, 1, 10), -1);
  });
});

describe('webview model: bursts (binRuns)', () => {
  it('groups adjacent non-empty bins and counts their rows, so a burst of 12 reads as 12', () => {
    // 2 categories, 6 bins: [1,0] [3,2] [0,0] [12,0] [0,0] [0,1]
    const counts = [1, 0, 3, 2, 0, 0, 12, 0, 0, 0, 0, 1];
    const runs = binRuns(counts, 6, 2);
    assert.deepEqual(runs, [
      { first: 0, last: 1, total: 6 },
      { first: 3, last: 3, total: 12 },
      { first: 5, last: 5, total: 1 },
    ]);
  });
});
