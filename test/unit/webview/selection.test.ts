import { strict as assert } from 'node:assert';
import { cursorForSeq, cursorSeq, moveCursor } from '../../../webview/model/selection';
import { navigableLanes } from '../../../webview/model/tracks';
import { describeRequest, eventDetails, findRequest } from '../../../webview/model/details';
import { TimelineData } from '../../../webview/model/timelineData';
import { cycleTrace } from './fixture';

function loaded(): TimelineData {
  const d = new TimelineData();
  d.append(cycleTrace());
  return d;
}

describe('webview model: keyboard selection', () => {
  it('right from nothing selects the first row, left from nothing the last', () => {
    const lanes = navigableLanes(loaded());
    const marks = lanes.findIndex((l) => l.id === 'marks');
    assert.equal(moveCursor(lanes, { lane: marks, row: -1 }, 'ArrowRight').row, 0);
    assert.equal(moveCursor(lanes, { lane: marks, row: -1 }, 'ArrowLeft').row, lanes[marks].length - 1);
  });

  it('stops at the ends of a lane', () => {
    const lanes = navigableLanes(loaded());
    const marks = lanes.findIndex((l) => l.id === 'marks');
    const last = lanes[marks].length - 1;
    assert.equal(moveCursor(lanes, { lane: marks, row: last }, 'ArrowRight').row, last);
    assert.equal(moveCursor(lanes, { lane: marks, row: 0 }, 'ArrowLeft').row, 0);
    assert.equal(moveCursor(lanes, { lane: marks, row: 2 }, 'Home').row, 0);
    assert.equal(moveCursor(lanes, { lane: marks, row: 2 }, 'End').row, last);
  });

  it('up/down lands on the nearest row in time of the neighbouring lane', () => {
    const d = loaded();
    const lanes = navigableLanes(d);
    const identical = lanes.findIndex((l) => l.id === 'identical');
    const deltas = lanes.findIndex((l) => l.id === 'deltas');
    assert.equal(identical, deltas + 1);
    const c = moveCursor(lanes, { lane: identical, row: 0 }, 'ArrowUp');
    assert.equal(c.lane, deltas);
    assert.equal(lanes[deltas].times[c.row], 500, 'the Updated enqueue at t=500 is nearest to t=501');
    assert.equal(moveCursor(lanes, { lane: 0, row: 0 }, 'ArrowUp').lane, 0, 'no lane above the first');
  });

  it('maps cursor and seq both ways', () => {
    const lanes = navigableLanes(loaded());
    const c = cursorForSeq(lanes, 25)!;
    assert.equal(lanes[c.lane].id, 'marks');
    assert.equal(cursorSeq(lanes, c), 25);
    assert.equal(cursorForSeq(lanes, 1), undefined, 'a request is in no lane');
  });
});

describe('webview model: event details', () => {
  it('a relist shows the reason text verbatim and the list request it led to', () => {
    const d = loaded();
    const relist = d.allEvents().find((e) => e.type === 'relist')!;
    const det = eventDetails(d, relist);
    assert.equal(det.reasonText, 'watch of *unstructured.Unstructured ended with: The resourceVersion for the provided watch is too old.');
    assert.equal(det.request, 'GET list ?resourceVersion=12&resourceVersionMatch=NotOlderThan&limit=500');
    assert.match(det.title, /RELIST \(Expired\)/);
  });

  it('a watch end shows the watch request that opened it', () => {
    const d = loaded();
    const end = d.allEvents().find((e) => e.type === 'watch.end')!;
    const det = eventDetails(d, end);
    assert.equal(det.request, 'GET watch ?resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=400&watch=true');
    assert.deepEqual(det.rows.find((r) => r[0] === 'outcome'), ['outcome', 'relist']);
  });

  it('an update notification borrows the diff of its distribute event', () => {
    const d = loaded();
    const n = d.allEvents().find((e) => e.type === 'notify' && e.key === 'default/b' && e.op === 'update')!;
    assert.deepEqual(eventDetails(d, n).diff, [{ path: 'data.x', old: '1', new: '2' }]);
  });

  it('the list after a relist shows the relist request, not the first list request', () => {
    const d = loaded();
    const lists = d.allEvents().filter((e) => e.type === 'list.done');
    assert.equal(findRequest(d, lists[0].seq, 'backward', 'list')?.rv, '0');
    assert.equal(findRequest(d, lists[1].seq, 'backward', 'list')?.rv, '12');
    assert.equal(describeRequest(undefined), undefined);
  });

  it('forward search stops at the next relist', () => {
    const d = loaded();
    const firstList = d.allEvents().find((e) => e.type === 'list.done')!;
    assert.equal(findRequest(d, firstList.seq, 'forward', 'list'), undefined);
  });
});
