import { strict as assert } from 'node:assert';
import { keyOf, MAX_HISTORY_ROWS, objectHistory } from '../../../webview/model/history';
import { TimelineData } from '../../../webview/model/timelineData';
import type { RecordedEvent } from '../../../src/format/events';
import { cycleTrace, numbered } from './fixture';

function loaded(events: RecordedEvent[]): TimelineData {
  const d = new TimelineData();
  d.append(events);
  return d;
}

describe('webview model: an object\'s history', () => {
  it('lists every event that names the key, in trace order: FIFO, distribution with its diff, each notification, the tombstone', () => {
    const events = cycleTrace();
    const { rows, total } = objectHistory(loaded(events), 'default/b');
    const expected = events.filter((e) => keyOf(e) === 'default/b');
    assert.equal(total, expected.length);
    assert.deepEqual(rows.map((r) => r.seq), expected.map((e) => e.seq));
    const types = new Set(expected.map((e) => e.type));
    for (const t of ['fifo.enqueue', 'fifo.pop', 'distribute', 'notify']) assert.ok(types.has(t as never), t);
    assert.ok(rows.some((r) => /tombstone/i.test(r.text)), rows.map((r) => r.text).join('\n'));
    assert.ok(!rows.some((r) => r.text.includes('default/a')));
  });

  it('a cache check that found the object stale is part of its history', () => {
    const events = numbered([
      { t: 1, type: 'watch.event', eventType: 'ADDED', key: 'ns/x', rv: '1', accepted: true },
      { t: 2, type: 'consistency.check', rv: '3', missing: [], extra: ['ns/x'], rvMismatch: [] },
      { t: 3, type: 'consistency.check', rv: '4', missing: [], extra: [], rvMismatch: [] },
    ]);
    assert.deepEqual(objectHistory(loaded(events), 'ns/x').rows.map((r) => r.seq), [0, 1]);
  });

  it('keeps the newest rows of a long history and says how many there are', () => {
    const events = numbered(Array.from({ length: MAX_HISTORY_ROWS + 20 }, (_, i) => ({ t: i, type: 'watch.event' as const, eventType: 'MODIFIED', key: 'ns/y', rv: String(i), accepted: true })));
    const { rows, total } = objectHistory(loaded(events), 'ns/y');
    assert.equal(total, MAX_HISTORY_ROWS + 20);
    assert.equal(rows.length, MAX_HISTORY_ROWS);
    assert.equal(rows[rows.length - 1].seq, MAX_HISTORY_ROWS + 19);
  });
});
