import { strict as assert } from 'node:assert';
import { ROW_VIEW_FIELDS, RowView } from '../../../src/protocol/rowView';
import { StringTable, batchArrays, decodeBatch, decodeRow, diffForSeq, encodeBatch, EXTRA, ROW_TYPES, type ColumnBatch } from '../../../src/protocol/eventColumns';
import { SummaryModel } from '../../../src/trace/summary';
import type { RecordedEvent } from '../../../src/format/events';
import { TimelineData } from '../../../webview/model/timelineData';
import { SAMPLE_EVENTS, numbered } from '../trace/fixtures';
import { scenarioTraces } from '../trace/scenarioTraces';

/** The event as a snapshot's columns carry it: a distribute's diff stays with the host. */
function withoutDiff(e: RecordedEvent): RecordedEvent {
  if (e.type !== 'distribute' || e.diff === undefined) return e;
  const { diff: _diff, ...rest } = e;
  return rest as RecordedEvent;
}

/** Events whose fields the row layout does not hold: they must travel whole. */
function unusual(): RecordedEvent[] {
  const odd: Record<string, unknown>[] = [
    { type: 'notify', t: 1, handler: 'h', op: 'update', key: 'a', rv: '01', oldRv: 'x-7', isSync: false, pending: 3, change: 'status' },
    { type: 'notify', t: 1, handler: 'h', op: 'frobnicate', key: 'a', rv: '1', isSync: false, pending: 0 },
    { type: 'notify', t: 1, handler: 'h', op: 'add', key: 'a', rv: '1', isSync: false, pending: -1 },
    { type: 'notify', t: 1, handler: 'h', op: 'add', key: 'a', rv: '1', isSync: false, pending: 0, surprise: true },
    { type: 'fifo.enqueue', t: 2, key: 'k', delta: 'Added', rv: '99999999999999999999', depthKeys: 1, depthDeltas: 1, objects: 3 },
    { type: 'fifo.enqueue', t: 2, key: 'k', delta: 'Deleted', rv: '', depthKeys: 1, depthDeltas: 1, tombstone: 'replace-known' },
    { type: 'fifo.pop', t: 3, key: 'k', deltas: ['Added', 'Up,dated'], isInInitialList: true, depthKeys: 0, depthDeltas: 0 },
    { type: 'fifo.pop', t: 3, key: 'k', deltas: [], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
    { type: 'distribute', t: 4, op: 'update', key: 'k', isSync: true, delivered: 1, skipped: 0, diff: [] },
    { type: 'watch.event', t: 5, eventType: 'BOOKMARK', rv: '5', accepted: true, initialEventsEnd: false },
    { type: 'watch.event', t: 5, eventType: 'ERROR', rv: '5', accepted: false, skipped: 'verbatim text' },
    { type: 'rv', t: 6, rv: '7', source: 'bookmark' },
  ];
  return numbered(odd as never);
}

describe('protocol: events as columns', () => {
  it('a RowView answers every field as decodeRow\'s event has it, on every row of the scenario traces and the samples; the summary reads no other field', async function () {
    this.timeout(60_000);
    const sets = [...(await scenarioTraces()).map((x) => x.trace.events), numbered(Object.values(SAMPLE_EVENTS)), numbered(unusual())];
    assert.ok(ROW_VIEW_FIELDS.length >= 14, ROW_VIEW_FIELDS.join());
    const read = new Set<string>();
    let rows = 0;
    for (const events of sets) {
      const batch = encodeBatch(events);
      const cols = batchArrays(batch)!;
      const strings = new StringTable(batch.strings);
      const view = new RowView(cols, strings);
      const viewModel = new SummaryModel();
      const eventModel = new SummaryModel();
      for (let i = 0, next = 0; i < batch.count; i++) {
        if (cols.type[i] === EXTRA) {
          const e = batch.extras[next++];
          viewModel.add(e);
          eventModel.add(e);
          continue;
        }
        const e = decodeRow(cols, i, strings) as unknown as Record<string, unknown>;
        view.at(i);
        for (const f of ROW_VIEW_FIELDS) assert.deepEqual((view as unknown as Record<string, unknown>)[f], e[f], `row ${i} (${String(e.type)}): ${f}`);
        // Every field the summary reads of a row must be one the view answers.
        eventModel.add(new Proxy(e, { get: (o, k) => (typeof k === 'string' && read.add(k), Reflect.get(o, k)) }) as unknown as RecordedEvent);
        viewModel.add(view as unknown as RecordedEvent);
        rows++;
      }
      assert.deepEqual(viewModel.snapshot(), eventModel.snapshot());
    }
    assert.ok(rows > 1000, `${rows} rows`);
    const unanswered = [...read].filter((f) => !ROW_VIEW_FIELDS.includes(f));
    assert.deepEqual(unanswered, [], 'the summary reads fields of rows a RowView does not answer');
  });

  it('every event of every conformance scenario, the samples and unusual events come back as they were, diffs left out', async function () {
    this.timeout(60_000);
    const sets = [...(await scenarioTraces()).map((x) => x.trace.events), numbered(Object.values(SAMPLE_EVENTS)), unusual()];
    const rowsOf = new Map<number, number>();
    let total = 0;
    for (const events of sets) {
      const batch = encodeBatch(events);
      assert.deepStrictEqual(decodeBatch(batch), events.map(withoutDiff));
      for (const c of new Uint8Array(batch.columns.type)) rowsOf.set(c, (rowsOf.get(c) ?? 0) + 1);
      total += events.length;
    }
    assert.ok(total > 5000, `only ${total} events`);
    ROW_TYPES.forEach((type, code) => assert.ok((rowsOf.get(code) ?? 0) > 10, `${type}: ${rowsOf.get(code) ?? 0} rows`));
    assert.ok((rowsOf.get(EXTRA) ?? 0) > 100, 'whole events too');
  });

  it('a snapshot through columns gives the webview model the same lanes and events as the objects did', async function () {
    this.timeout(60_000);
    for (const { name, trace } of await scenarioTraces()) {
      const viaObjects = new TimelineData();
      viaObjects.append(trace.events);
      const viaColumns = new TimelineData();
      assert.ok(viaColumns.appendColumns(encodeBatch(trace.events)), name);
      assert.equal(viaColumns.eventCount, viaObjects.eventCount, name);
      for (const lane of ['states', 'marks', 'depth', 'deltas', 'identical', 'tombstones'] as const) {
        assert.deepStrictEqual(viaColumns[lane].columns, viaObjects[lane].columns, `${name}: ${lane}`);
      }
      assert.deepStrictEqual([...viaColumns.handlers.keys()], [...viaObjects.handlers.keys()], name);
      for (const [h, lane] of viaObjects.handlers) assert.deepStrictEqual(viaColumns.handlers.get(h)!.columns, lane.columns, `${name}: ${h}`);
      assert.deepStrictEqual(viaColumns.allEvents(), trace.events.map(withoutDiff), name);
      for (const e of trace.events) {
        if (e.type === 'distribute' && e.diff !== undefined) assert.ok(viaColumns.diffDeferred(e.seq) && !viaObjects.diffDeferred(e.seq), name);
      }
    }
  });

  it('the host finds the diff a notification stands for, as the details pane does', () => {
    const events = numbered([
      { t: 1, type: 'fifo.pop', key: 'k', deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
      { t: 1, type: 'distribute', op: 'update', key: 'k', isSync: false, delivered: 1, skipped: 0, change: 'other', diff: [{ path: 'data.x', old: '1', new: '2' }] },
      { t: 1, type: 'notify', handler: 'h', op: 'update', key: 'k', rv: '2', isSync: false, pending: 0 },
      { t: 2, type: 'fifo.pop', key: 'j', deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
      { t: 2, type: 'notify', handler: 'h', op: 'update', key: 'k', rv: '3', isSync: false, pending: 0 },
    ]);
    assert.deepEqual(diffForSeq(events, 1), [{ path: 'data.x', old: '1', new: '2' }]);
    assert.deepEqual(diffForSeq(events, 2), [{ path: 'data.x', old: '1', new: '2' }]);
    assert.equal(diffForSeq(events, 4), undefined, 'not across a FIFO pop');
    assert.equal(diffForSeq(events, 0), undefined);
    assert.equal(diffForSeq(events, 99), undefined);
  });

  it('a malformed batch is refused whole, never half applied', () => {
    const good = encodeBatch(unusual());
    assert.ok(batchArrays(good));
    const broken: [string, (b: ColumnBatch) => void][] = [
      ['a short column', (b) => (b.columns.seq = new ArrayBuffer(8))],
      ['a column that is no ArrayBuffer', (b) => ((b.columns as Record<string, unknown>).t = [1, 2])],
      ['an unknown type code', (b) => (new Uint8Array(b.columns.type)[0] = ROW_TYPES.length)],
      ['seqs going back', (b) => (new Float64Array(b.columns.seq)[3] = 0)],
      ['a missing whole event', (b) => b.extras.pop()],
      ['a whole event of another seq', (b) => (b.extras[0] = { ...b.extras[0], seq: 1234 })],
      ['a count that is not an integer', (b) => (b.count = 1.5)],
    ];
    for (const [what, breakIt] of broken) {
      const b = encodeBatch(unusual());
      breakIt(b);
      assert.equal(batchArrays(b), undefined, what);
      const d = new TimelineData();
      d.append(numbered([{ t: 0, type: 'synced' }]));
      assert.equal(d.appendColumns(b), false, what);
      assert.equal(d.eventCount, 1, what);
    }
  });
});
