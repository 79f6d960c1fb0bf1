import { strict as assert } from 'node:assert';
import { filterActive, filterText, jumpTarget, matchingKeys, objectKeys, operationOf, passes } from '../../../webview/model/filter';
import { TimelineData } from '../../../webview/model/timelineData';
import { navigableLanes } from '../../../webview/model/tracks';
import { cycleTrace, numbered } from './fixture';

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
});
