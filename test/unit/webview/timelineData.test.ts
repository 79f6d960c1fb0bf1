import { strict as assert } from 'node:assert';
import { DELTA_TYPES, MarkKind, NotifyKind, REFLECTOR_STATES, RELIST_REASONS } from '../../../webview/model/codes';
import { TimelineData } from '../../../webview/model/timelineData';
import { SummaryModel as TimelineSummary } from '../../../src/trace/summary';
import { cycleTrace } from './fixture';
import type { RecordedEvent } from '../../../src/format/events';
import { COLUMN_NAMES, encodeBatch } from '../../../src/protocol/eventColumns';
import { packColumns } from '../../../src/protocol/columnPack';

describe('webview model: timeline data', () => {
  it('sorts events into the lanes they belong to', () => {
    const d = new TimelineData();
    d.append(cycleTrace());
    assert.equal(d.states.length, 3);
    assert.deepEqual([...d.states.columns.code.slice(0, 3)], [0, 2, 0].map((i) => REFLECTOR_STATES.indexOf(REFLECTOR_STATES[i])));
    const kinds = [...d.marks.columns.kind.slice(0, d.marks.length)];
    assert.deepEqual(kinds, [MarkKind.List, MarkKind.WatchStart, MarkKind.Synced, MarkKind.WatchEnd, MarkKind.Relist, MarkKind.List]);
    const relistRow = kinds.indexOf(MarkKind.Relist);
    assert.equal(RELIST_REASONS[d.marks.columns.reason[relistRow]], 'Expired');
    assert.equal(d.identical.length, 1);
    assert.equal(d.identical.columns.t[0], 501);
    assert.equal(d.tombstones.length, 2, 'one tombstone entering the FIFO, one handed to the handler');
    assert.deepEqual([...d.handlers.keys()], ['main']);
    const main = d.handlers.get('main')!;
    assert.deepEqual([...main.columns.code.slice(0, main.length)], [
      NotifyKind.Add, NotifyKind.Add, NotifyKind.Identical, NotifyKind.Update, NotifyKind.Tombstone,
    ]);
    assert.equal(d.deltas.length, 5);
    assert.equal(DELTA_TYPES[d.deltas.columns.code[4]], 'Deleted');
  });

  it('closes the open watch span when the watch ends', () => {
    const d = new TimelineData();
    const events = cycleTrace();
    const endIndex = events.findIndex((e) => e.type === 'watch.end');
    d.append(events.slice(0, endIndex));
    const start = d.openWatchMark;
    assert.ok(start >= 0);
    assert.equal(d.marks.columns.duration[start], 0);
    d.append(events.slice(endIndex));
    assert.equal(d.openWatchMark, -1);
    assert.equal(d.marks.columns.duration[start], 1979);
  });

  it('skips events it already has, so an overlapping delta does not duplicate rows', () => {
    const d = new TimelineData();
    const events = cycleTrace();
    d.append(events.slice(0, 10));
    d.append(events.slice(5));
    assert.equal(d.eventCount, events.length);
    assert.equal(d.lastSeq, events.length - 1);
    assert.equal(d.bySeq(3)?.type, 'list.done');
    assert.equal(d.bySeq(999), undefined);
  });

  it('reset forgets everything', () => {
    const d = new TimelineData();
    d.append(cycleTrace());
    d.reset();
    assert.equal(d.eventCount, 0);
    assert.equal(d.marks.length, 0);
    assert.equal(d.handlers.size, 0);
    assert.equal(d.lastSeq, -1);
  });
});

describe('webview model: summary', () => {
  it('counts relists by reason, identical updates and their share, tombstones, RV, sync', () => {
    const s = new TimelineSummary();
    for (const e of cycleTrace()) s.add(e);
    const snap = s.snapshot();
    assert.equal(snap.relists, 1);
    assert.deepEqual(snap.relistsByReason, [['Expired', 1]]);
    assert.equal(snap.updates, 2);
    assert.equal(snap.identicalUpdates, 1);
    assert.equal(snap.identicalShare, 0.5);
    assert.equal(snap.tombstones, 1);
    assert.equal(snap.currentRv, '20');
    assert.equal(snap.synced, true);
    assert.equal(snap.state, 'listing');
    assert.equal(snap.fifoKeys, 0);
    assert.equal(snap.lists, 2);
    assert.equal(snap.watches, 1);
  });

  it('share is 0 with no updates', () => {
    const s = new TimelineSummary();
    assert.equal(s.snapshot().identicalShare, 0);
    assert.equal(s.snapshot().state, 'idle');
  });
});

describe('webview model: summary of a watch-list sync', () => {
  it('counts the bookmark that ends the initial events as a list', () => {
    const s = new TimelineSummary();
    s.add({ t: 0, seq: 0, type: 'watch.event', eventType: 'BOOKMARK', rv: '10', accepted: true, initialEventsEnd: true });
    s.add({ t: 1, seq: 1, type: 'watch.event', eventType: 'BOOKMARK', rv: '11', accepted: true });
    assert.equal(s.snapshot().lists, 1);
  });
});

describe('webview model: end of the timeline (endT)', () => {
  const watching = () => cycleTrace().filter((e) => e.t <= 23); // initial sync done, watch open, then quiet

  it('a live session ends at now, which keeps growing while nothing happens', () => {
    const d = new TimelineData();
    d.append(watching());
    d.setLive(true);
    assert.equal(d.endT, 23, 'nothing heard yet: the last event');
    d.advanceNow(5_000);
    assert.equal(d.endT, 5_000);
    assert.equal(d.nowT, 5_000);
    assert.ok(d.openWatchMark >= 0, 'the watch is still open and runs to endT');
    d.advanceNow(6_000);
    assert.equal(d.endT, 6_000);
    d.advanceNow(5_500);
    assert.equal(d.endT, 6_000, 'now never goes back');
    d.advanceNow(Number.NaN);
    assert.equal(d.endT, 6_000);
    assert.equal(d.lastEventT, 23);
  });

  it('now is never behind the last event', () => {
    const d = new TimelineData();
    d.setLive(true);
    d.advanceNow(10);
    d.append(watching());
    assert.equal(d.nowT, 23);
    assert.equal(d.endT, 23);
  });

  it('an ended or imported session ends at its last event', () => {
    const d = new TimelineData();
    d.append(watching());
    d.advanceNow(5_000);
    assert.equal(d.endT, 23, 'imported (never live): the last event');
    d.setLive(true);
    assert.equal(d.endT, 5_000);
    d.setLive(false);
    assert.equal(d.endT, 23, 'ended: the last event again');
  });

  it('a snapshot (reset) forgets now and liveness', () => {
    const d = new TimelineData();
    d.append(watching());
    d.setLive(true);
    d.advanceNow(5_000);
    d.reset();
    assert.equal(d.live, false);
    assert.equal(d.nowT, 0);
    d.append(watching());
    assert.equal(d.endT, 23);
  });
});

describe('webview model: a large snapshot is taken without a copy', () => {
  it('the store holds the snapshot arrays; deltas and a reset never write into them, and every event reads as it was', () => {
    const base = cycleTrace();
    const events = Array.from({ length: 2000 }, (_, i) => ({ ...base[i % base.length], seq: i, t: i }));
    const batch = encodeBatch(events.slice(0, 1500));
    const before = COLUMN_NAMES.map((n) => new Uint8Array(batch.columns[n]).slice());
    for (const columns of [batch, packColumns(batch)]) {
      const d = new TimelineData();
      assert.ok(d.appendColumns(columns));
      d.append(events.slice(1500));
      assert.equal(d.eventCount, 2000);
      assert.deepEqual(d.allEvents().map((e) => [e.seq, e.type, (e as { key?: string }).key]), events.map((e) => [e.seq, e.type, (e as { key?: string }).key]));
      d.reset();
      d.append(events.slice(0, 10));
      assert.equal(d.eventCount, 10);
    }
    COLUMN_NAMES.forEach((n, i) => assert.deepEqual(new Uint8Array(batch.columns[n]), before[i], `${n} unchanged`));
  });
});

describe('webview model: a large snapshot read from its columns', () => {
  /** Every lane's rows as plain numbers, and the handler lanes in order. */
  const lanesOf = (d: TimelineData) => {
    const rows = (lane: { length: number; columns: Record<string, ArrayLike<number>> }) =>
      Object.fromEntries(Object.entries(lane.columns).map(([k, col]) => [k, Array.from({ length: lane.length }, (_, i) => col[i])]));
    return {
      states: rows(d.states), marks: rows(d.marks), depth: rows(d.depth), deltas: rows(d.deltas), identical: rows(d.identical), tombstones: rows(d.tombstones),
      handlers: [...d.handlers].map(([name, lane]) => [name, rows(lane)]),
    };
  };

  it('makes the lanes the events make, each handler lane where its handler was added, however many rows it reserves ahead', () => {
    const base = cycleTrace();
    // handler "first" is added before "second", but "second" is notified first; thousands of rows so the lanes are reserved ahead.
    const events: RecordedEvent[] = [
      { seq: 0, t: 0, type: 'handler.added', handler: 'first', requestedResyncMs: 0, effectiveResyncMs: 0, afterStart: false, syntheticAdds: 0 },
      { seq: 1, t: 0, type: 'handler.added', handler: 'second', requestedResyncMs: 0, effectiveResyncMs: 0, afterStart: false, syntheticAdds: 0 },
    ];
    for (let i = 0; events.length < 6000; i++) {
      const e = base[i % base.length];
      const handler = i < 3000 ? 'second' : i % 2 ? 'first' : 'third';
      events.push({ ...e, ...(e.type === 'notify' ? { handler } : {}), seq: events.length, t: 10 + Math.floor(i / 3) } as RecordedEvent);
    }
    const fromEvents = new TimelineData();
    fromEvents.append(events);
    for (const columns of [encodeBatch(events), packColumns(encodeBatch(events))]) {
      const fromColumns = new TimelineData();
      assert.ok(fromColumns.appendColumns(columns));
      assert.deepEqual(lanesOf(fromColumns), lanesOf(fromEvents));
      assert.deepEqual([...fromColumns.handlers.keys()], ['first', 'second', 'third']);
      assert.ok(fromColumns.depth.length > 1000 && fromColumns.handlers.get('third')!.length > 100, 'the lanes hold thousands of rows');
    }
  });
});
