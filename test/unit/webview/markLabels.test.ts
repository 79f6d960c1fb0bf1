import { strict as assert } from 'node:assert';
import { eventDetails, formatMs, formatTime } from '../../../webview/model/details';
import fc from 'fast-check';
import { faultLabel, labelExtent, MIN_LABEL_GAP_PX, placeLabels, relistLabel } from '../../../webview/model/markLabels';
import { cursorForSeq, cursorSeq, moveCursor } from '../../../webview/model/selection';
import { navigableLanes } from '../../../webview/model/tracks';
import { MarkKind } from '../../../webview/model/codes';
import { TimelineData } from '../../../webview/model/timelineData';
import { numbered } from './fixture';

/** A refused-connections fault and the relist it led to, on a run whose first event is at t=1. */
function faultTrace(): TimelineData {
  const d = new TimelineData();
  d.append(
    numbered([
      { t: 1, type: 'list.done', rv: '10', items: 2, pages: 1, paginated: false, durationMs: 1 },
      { t: 2, type: 'watch.start', rv: '10', timeoutSeconds: 400, watchList: false, propagateRVFromStart: false },
      { t: 100, type: 'fault.injected', fault: 'refuseConnections', detail: 'connections refused for 3000 ms; 1 open watch(es) closed' },
      { t: 1100, type: 'relist', reason: 'ConnectionRefused', row: 6, rv: '10', consistent: false, text: 'connection refused' },
    ]),
  );
  return d;
}

describe('webview model: fault and relist labels', () => {
  it('a fault reads as its name in words and its main parameter', () => {
    assert.equal(faultLabel('refuseConnections', 'connections refused for 3000 ms; 2 open watch(es) closed'), 'FAULT refuse connections 3s');
    assert.equal(faultLabel('refuseConnections', 'connections refused for 1500 ms'), 'FAULT refuse connections 1.5s');
    assert.equal(faultLabel('slowHandler', 'main takes 500 ms per notification'), 'FAULT slow handler main 500 ms');
    assert.equal(faultLabel('tooManyRequests', 'watch answered 429 TooManyRequests (Retry-After 1s): x'), 'FAULT too many requests (Retry-After 1s)');
    assert.equal(faultLabel('expireNextWatch', 'watch from RV "10" gets ERROR 410 Expired: gone'), 'FAULT expire next watch');
    assert.equal(faultLabel('resetWatch'), 'FAULT reset watch');
    assert.equal(relistLabel('ConnectionRefused'), 'RELIST ConnectionRefused');
  });

  it('labels in one row never overlap, and go left of their mark at the right edge', () => {
    const text = 'RELIST Expired'; // 14 chars ≈ 98 px + 8 px pad
    const placed = placeLabels(
      [
        { px: 10, text },
        { px: 60, text }, // would start inside the first label
        { px: 200, text },
        { px: 580, text }, // does not fit right of the mark in 600 px
      ],
      600,
    );
    assert.deepEqual(placed.map((p) => p.showText), [false, true, true, true], 'the cluster of the first two is labelled after its last mark');
    assert.deepEqual(placed.map((p) => p.leftOfMark), [false, false, false, true]);
    assert.deepEqual(placed.map((p) => p.more), [0, 1, 0, 0], 'the hidden label is counted on its cluster\'s label');
  });

  it('a "RELIST … +N" label never covers the relist marks that follow it (a storm of close relists)', () => {
    const text = 'RELIST ConnectionRefused';
    const items = [0, 1, 2, 3, 4, 5].map((k) => ({ px: 100 + k * 30, text }));
    const placed = placeLabels(items, 1200);
    const shown = placed.map((p, i) => ({ p, i })).filter((x) => x.p.showText);
    assert.equal(shown.length, 1);
    const [a, b] = labelExtent(items[shown[0].i].px, text, shown[0].p);
    assert.deepEqual(items.filter((it) => it.px > a && it.px < b), [], `marks under the label ${a}..${b}`);
    assert.equal(shown[0].p.more, 5);
  });

  it('property: shown labels never overlap or leave the row, and every label is shown or counted in one "+N"', () => {
    const row = fc
      .record({
        width: fc.integer({ min: 120, max: 1600 }),
        marks: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), len: fc.integer({ min: 4, max: 40 }) }), { maxLength: 60 }),
      })
      .map(({ width, marks }) => ({
        width,
        items: marks.map((m) => ({ px: m.at * width, text: 'R'.repeat(m.len) })).sort((a, b) => a.px - b.px),
      }));
    fc.assert(
      fc.property(row, ({ width, items }) => {
        const placed = placeLabels(items, width);
        const shown = items.map((it, i) => ({ it, p: placed[i] })).filter((x) => x.p.showText);
        const boxes = shown.map(({ it, p }) => labelExtent(it.px, it.text, p));
        for (const [a, b] of boxes) assert.ok(a >= 0 && b <= width + 1e-9, `inside the row: ${a}..${b} of ${width}`);
        for (let i = 1; i < boxes.length; i++) assert.ok(boxes[i][0] - boxes[i - 1][1] >= MIN_LABEL_GAP_PX, `overlap: ${JSON.stringify(boxes)}`);
        for (const p of placed) if (!p.showText) assert.equal(p.more, 0);
        // No label covers a mark of the row (its own mark is at the box's edge).
        for (const [a, b] of boxes) for (const it of items) assert.ok(!(it.px > a + 1e-9 && it.px < b - 1e-9), `mark at ${it.px} under label ${a}..${b}`);
        if (shown.length > 0) assert.equal(shown.length + placed.reduce((n, p) => n + p.more, 0), items.length);
        // A label alone in a row wide enough for it is always shown.
        if (items.length === 1 && items[0].text.length * 7 + 60 < width / 2) assert.equal(shown.length, 1);
      }),
      { numRuns: 300 },
    );
  });

  it('a fault is a mark of the marks lane, reachable with the arrow keys', () => {
    const d = faultTrace();
    const kinds = [...d.marks.columns.kind.slice(0, d.marks.length)];
    assert.deepEqual(kinds, [MarkKind.List, MarkKind.WatchStart, MarkKind.Fault, MarkKind.Relist]);
    const lanes = navigableLanes(d);
    const marks = lanes.findIndex((l) => l.id === 'marks');
    assert.match(lanes[marks].label, /faults/);
    let c = moveCursor(lanes, { lane: marks, row: -1 }, 'ArrowRight');
    c = moveCursor(lanes, c, 'ArrowRight');
    c = moveCursor(lanes, c, 'ArrowRight');
    assert.equal(d.bySeq(cursorSeq(lanes, c)!)?.type, 'fault.injected');
    assert.equal(d.bySeq(cursorSeq(lanes, moveCursor(lanes, c, 'ArrowRight'))!)?.type, 'relist', 'the relist it caused is the next mark');
    assert.deepEqual(cursorForSeq(lanes, 2), c);
  });

  it('a selected fault shows what was injected in the details pane', () => {
    const d = faultTrace();
    const det = eventDetails(d, d.bySeq(2)!);
    assert.equal(det.title, 'fault injected: refuseConnections (connections refused for 3000 ms; 1 open watch(es) closed)');
    assert.deepEqual(det.rows, [
      ['time', '+100 ms'],
      ['seq', '2'],
      ['fault', 'refuseConnections'],
      ['detail', 'connections refused for 3000 ms; 1 open watch(es) closed'],
    ]);
  });
});

describe('webview model: time origin', () => {
  it('the details time and the axis labels count from the session start, so they agree and round ticks read round', () => {
    const d = faultTrace(); // first event at t=1: the old origin (firstT) made the 100 ms tick read "+99 ms"
    assert.equal(eventDetails(d, d.bySeq(2)!).rows[0][1], formatTime(100));
    assert.equal(formatTime(100), '+100 ms');
    assert.deepEqual([0, 500, 1000, 1500, 2000, 12_000].map(formatTime), ['+0 ms', '+500 ms', '+1 s', '+1.5 s', '+2 s', '+12 s']);
    assert.equal(formatMs(1234), '1.23 s');
    assert.equal(formatMs(90_000), '1 min 30 s');
  });
});
