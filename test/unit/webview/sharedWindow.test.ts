/** The compare view's one window (webview/model/sharedWindow.ts): what it shows as the axis grows, shrinks and is moved. */
import { strict as assert } from 'node:assert';
import { SharedWindow } from '../../../webview/model/sharedWindow';

describe('webview model: the compare view\'s shared window', () => {
  it('following live, a zoom keeps its share of the axis and slides with the axis\'s end', () => {
    const w = new SharedWindow();
    assert.deepEqual(w.window([0, 10_000]), [0, 10_000], 'the whole axis at first');
    w.moveTo(4000, 9000, [0, 10_000]);
    assert.equal(w.follow, true);
    assert.deepEqual(w.window([0, 10_000]), [5000, 10_000], 'half of the axis, ending at its end');
    assert.deepEqual(w.window([0, 20_000]), [10_000, 20_000], 'the axis grew: still half of it, ending at now');
  });

  it('not following, the window stays where it was put whatever the axis does, unless the axis is shorter', () => {
    const w = new SharedWindow();
    assert.equal(w.setFollow(false, [0, 10_000]), true);
    assert.equal(w.setFollow(false, [0, 10_000]), false, 'no change, said so');
    w.moveTo(3000, 1000, [0, 10_000]);
    assert.deepEqual(w.window([0, 10_000]), [1000, 3000]);
    assert.deepEqual(w.window([0, 60_000]), [1000, 3000], 'the live end moved on: the window stays');
    assert.deepEqual(w.window([0, 1500]), [0, 1500], 'an axis shorter than the window is shown whole');
  });

  it('following on or off keeps the window shown on the axis of that moment; reset shows the whole axis, following', () => {
    const w = new SharedWindow();
    w.moveTo(0, 2500, [0, 10_000]);
    w.setFollow(false, [0, 20_000]);
    assert.deepEqual(w.window([0, 30_000]), [15_000, 20_000], 'stopped where it was on the axis of that moment');
    w.setFollow(true, [0, 40_000]);
    assert.deepEqual(w.window([0, 40_000]), [35_000, 40_000], 'following again: as wide as it was, ending at the end');
    w.reset();
    assert.equal(w.follow, true);
    assert.deepEqual(w.window([0, 40_000]), [0, 40_000]);
  });

  it('a window of no width or not a number is not taken', () => {
    const w = new SharedWindow();
    w.setFollow(false, [0, 10_000]);
    w.moveTo(2000, 2000, [0, 10_000]);
    w.moveTo(Number.NaN, 3000, [0, 10_000]);
    w.moveTo(0, Number.POSITIVE_INFINITY, [0, 10_000]);
    assert.deepEqual(w.window([0, 10_000]), [0, 10_000]);
  });
});
