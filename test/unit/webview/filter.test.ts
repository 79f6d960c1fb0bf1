import { strict as assert } from 'node:assert';
import { filterActive, filterText, jumpTarget, matchingKeys, objectKeys, operationOf, passes } from '../../../webview/model/filter';
import { TimelineData } from '../../../webview/model/timelineData';
import { navigableLanes } from '../../../webview/model/tracks';
import { cycleTrace, numbered } from './fixture';
import { encodeBatch } from '../../../src/protocol/eventColumns';
import type { RecordedEvent } from '../../../src/format/events';
import { scenarioTraces } from '../trace/scenarioTraces';

const rowsOf = (d: TimelineData, id: string) => {
  const lane = navigableLanes(d).find((l) => l.id === id);
  return lane ? Array.from({ length: lane.length }, (_, i) => d.bySeq(lane.seqs[i])!) : [];
};

describe('webview model: filters and search', () => {
  const events = cycleTrace();

  it('a key filter keeps only that object\'s rows in the per-object lanes; the reflector lanes stay whole', () => {
    const d = new TimelineData();
    d.append(events);
    const marksBefore = d.marks.length;
    d.setFilter({ key: 'default/b' });
    const handler = rowsOf(d, 'handler:main');
    assert.ok(handler.length > 0);
    assert.ok(handler.every((e) => 'key' in e && e.key === 'default/b'), JSON.stringify(handler));
    assert.ok(rowsOf(d, 'deltas').every((e) => 'key' in e && e.key === 'default/b'));
    assert.equal(rowsOf(d, 'identical').length, 0, 'the identical update was of default/a');
    assert.equal(d.marks.length, marksBefore, 'lists, watches and relists are not about one object');
    d.setFilter({});
    assert.equal(rowsOf(d, 'handler:main').length, events.filter((e) => e.type === 'notify').length, 'clearing restores every row');
  });

  it('operation, delta type and handler filters', () => {
    const d = new TimelineData();
    d.append([...events, ...numbered([{ t: 3000, type: 'handler.added', handler: 'late', resyncPeriodMs: 0 } as never]).map((e) => ({ ...e, seq: 1000 }))]);
    d.setFilter({ op: 'delete' });
    assert.deepEqual(rowsOf(d, 'handler:main').map((e) => operationOf(e)), ['delete']);
    d.setFilter({ delta: 'Updated' });
    assert.deepEqual(rowsOf(d, 'deltas').map((e) => (e.type === 'fifo.enqueue' ? e.delta : '')), ['Updated', 'Updated']);
    assert.equal(rowsOf(d, 'handler:main').length, 5, 'the delta type narrows the FIFO lane only');
    d.setFilter({ handler: 'late' });
    assert.deepEqual(navigableLanes(d).map((l) => l.id).filter((id) => id.startsWith('handler:')), ['handler:late']);
    assert.deepEqual(d.handlerNames, ['main', 'late'], 'the choices keep the hidden handler');
  });

  it('the filter survives a snapshot of the same data (reset + append)', () => {
    const d = new TimelineData();
    d.setFilter({ key: 'default/a' });
    d.reset();
    d.append(events);
    assert.ok(rowsOf(d, 'handler:main').every((e) => 'key' in e && e.key === 'default/a'));
  });

  it('search: keys, type-ahead, the event to jump to, the chip text', () => {
    assert.deepEqual(objectKeys(events), ['default/a', 'default/b']);
    const keys = ['team-a/doomed-config-1', 'team-a/config-2', 'team-b/other'];
    assert.deepEqual(matchingKeys(keys, 'doomed'), ['team-a/doomed-config-1']);
    assert.deepEqual(matchingKeys(keys, 'config'), ['team-a/config-2', 'team-a/doomed-config-1'], 'names that start with the text first');
    assert.deepEqual(matchingKeys(keys, 'TEAM-B'), ['team-b/other']);
    const last = [...events].reverse().find((e) => e.type === 'notify' && e.key === 'default/b')!;
    assert.equal(jumpTarget(events, 'default/b'), last.seq);
    assert.equal(jumpTarget(events, 'nope/x'), undefined);
    assert.equal(filterActive({}), false);
    assert.equal(filterText({ key: 'a/b', op: 'delete', handler: 'main' }), 'key a/b · op delete · handler main');
    assert.equal(passes({ key: 'a/b' }, events[0]), false);
  });

  it('search on the columns: the same keys and jump targets as over the rebuilt events (rows, events kept whole, snapshot and live rows)', async function () {
    this.timeout(60_000);
    const odd = numbered([
      { t: 1, type: 'notify', handler: 'h', op: 'add', key: 'odd/x', rv: '1', isSync: false, pending: 0, surprise: true },
      { t: 2, type: 'fifo.enqueue', key: 'odd/y', delta: 'Added', rv: '1', depthKeys: 1, depthDeltas: 1 },
      { t: 3, type: 'fifo.pop', key: '', deltas: ['Added'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
      { t: 4, type: 'consistency.check', ok: true, missing: [], extra: [], rvMismatch: [], key: 'odd/z' },
      { t: 5, type: 'distribute', op: 'update', key: 'odd/y', isSync: false, delivered: 1, skipped: 0 },
    ] as never) as RecordedEvent[];
    const sets = [...(await scenarioTraces()).map((x) => x.trace.events), events, odd];
    let checked = 0;
    for (const evs of sets) {
      const half = Math.floor(evs.length / 2);
      const d = new TimelineData();
      assert.ok(d.appendColumns(encodeBatch(evs.slice(0, half))));
      d.append(evs.slice(half));
      const rebuilt = d.allEvents();
      const keys = objectKeys(rebuilt);
      assert.deepEqual(d.objectKeys(), keys);
      for (const k of [...keys, 'nope/x', '']) {
        assert.equal(d.jumpTarget(k), jumpTarget(rebuilt, k), k);
        checked++;
      }
    }
    assert.ok(checked > 100, `${checked} keys checked`);
    const d = new TimelineData();
    d.append(odd);
    assert.deepEqual(d.objectKeys(), ['odd/x', 'odd/y', 'odd/z']);
    assert.equal(d.jumpTarget('odd/y'), 1, 'the FIFO entry, not the later distribute');
    assert.equal(d.jumpTarget('odd/z'), 3, 'an event kept whole with no lane row');
    assert.equal(d.jumpTarget('odd/x'), 0, 'a notification kept whole');
  });
});
