import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import fc from 'fast-check';
import { Chunk } from '../../../src/trace/eventChunk';
import { EventWindow } from '../../../src/trace/eventWindow';
import { exportTrace } from '../../../src/trace/traceExport';
import { computeFindings } from '../../../src/trace/findings';
import { TraceRecorder } from '../../../src/trace/recorder';
import { header } from './fixtures';

/** Events of the packed types with every optional field, and odd values each kind must carry or give up on. */
const EVENTS: TraceEvent[] = [
  { t: 0.125, type: 'watch.event', eventType: 'MODIFIED', key: 'ns/a', rv: '123456789012345', accepted: true },
  { t: 1, type: 'watch.event', eventType: 'BOOKMARK', rv: '0', accepted: false, skipped: 'no key', initialEventsEnd: true },
  { t: 2, type: 'rv', rv: '0123', source: 'event' },
  { t: 3, type: 'rv', rv: '1234567890123456', source: 'list' },
  { t: 4, type: 'rv', rv: '', source: 'bookmark' },
  { t: 5, type: 'fifo.enqueue', key: 'ns/a', delta: 'Deleted', rv: '9', depthKeys: 1, depthDeltas: 2, tombstone: 'replace-known', objects: 3 },
  { t: 6, type: 'fifo.pop', key: 'ns/a', deltas: ['Added', 'Updated', 'Bookmark', 'SyncAll'], isInInitialList: false, depthKeys: 0, depthDeltas: -1.5 },
  { t: 7, type: 'fifo.pop', key: 'ns/a', deltas: [], isInInitialList: true, depthKeys: 0, depthDeltas: 0 },
  { t: 8, type: 'fifo.pop', key: 'ns/a', deltas: ['Odd' as never], isInInitialList: true, depthKeys: 0, depthDeltas: 0 },
  { t: 9, type: 'fifo.pop', key: 'ns/b', deltas: Array.from({ length: 17 }, () => 'Sync' as const), isInInitialList: true, depthKeys: 0, depthDeltas: 0 },
  { t: 10, type: 'distribute', op: 'update', key: 'ns/a', isSync: false, delivered: 2, skipped: 0, change: 'status', diff: [{ path: 'status.x', old: [1, { b: null, a: 'é' }], new: 2 }, { path: 'metadata.labels.app' }], oldRv: '8', rv: '9' },
  { t: 11, type: 'distribute', op: 'add', key: 'ns/c', isSync: true, delivered: 1, skipped: 1, rv: 'abc' },
  { t: 12, type: 'notify', handler: 'h', op: 'delete', key: 'ns/a', rv: '9', oldRv: '8', isSync: false, initialList: true, tombstone: true, change: 'identical', pending: 3 },
  { t: 13, type: 'notify', handler: 'h', op: 'update', key: 'ns/a', rv: '9', isSync: false, pending: Number.NaN },
  { t: 14, type: 'fifo.dedup', key: 'ns/a', kept: 'newer' },
  { t: 15, type: 'resync.check', handler: 'h', due: true, nextResyncMs: 30000 },
  { t: 16, type: 'resync.timer', shouldResync: false },
  { t: 17, type: 'list.done', rv: '5', items: 1, pages: 1, paginated: false, durationMs: 3 },
  { t: 18, type: 'trace.dropped', count: 4 },
  // Does not fit its schema: an extra field, a value of another type.
  { t: 19, type: 'rv', rv: '5', source: 'event', extra: 1 } as never,
  { t: 20, type: 'notify', handler: 'h', op: 'add', key: 7, rv: '1', isSync: false, pending: 0 } as never,
  { t: '21', type: 'synced' } as never,
  { t: 22, type: 'resync.timer', shouldResync: 'yes' } as never,
];

/** What the canonical export writes of an event: the window must give back exactly that. */
function exported(events: readonly object[]): string {
  return exportTrace({ header: header({ redacted: false }), events: events as never });
}

describe('the recorder’s packed window (eventWindow.ts)', () => {
  it('gives back every event as the export writes it, packed or kept, in every chunk size', () => {
    const withSeq = EVENTS.map((e, seq) => ({ ...e, seq }));
    for (const size of [2, 3, 7, 100]) {
      const w = new EventWindow(size);
      for (const e of EVENTS) w.push(e, false);
      assert.equal(w.length, EVENTS.length);
      assert.equal(exported(w.slice()), exported(withSeq), `chunks of ${size}`);
      assert.deepEqual(w.slice().map((e) => e.seq), withSeq.map((e) => e.seq));
      assert.equal(exported([w.at(10)]), exported([withSeq[10]]));
    }
  });

  it('keeps the values as they were when recorded, not as the caller changes them later', () => {
    const w = new EventWindow(4);
    const diff = [{ path: 'a', old: { x: 1 }, new: { x: 2 } }];
    const e: TraceEvent = { t: 1, type: 'distribute', op: 'update', key: 'k', isSync: false, delivered: 1, skipped: 0, diff };
    const odd = { t: 2, type: 'synced', note: 'x' } as TraceEvent & { note: string };
    w.push(e, false);
    w.push(odd, false);
    (diff[0].new as { x: number }).x = 3;
    odd.note = 'changed';
    const [a, b] = w.slice();
    assert.deepEqual(a.type === 'distribute' && a.diff, [{ path: 'a', old: { x: 1 }, new: { x: 2 } }]);
    assert.equal((b as unknown as { note: string }).note, 'x');
  });

  it('gives back every value exactly at and past the edge of its 32-bit slot (wide values in a Float64Array)', () => {
    const nums = [2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, -0, 0, 0.5, Number.NaN, Infinity, -Infinity, Number.MAX_VALUE];
    const rvs = ['2147483647', '2147483648', '4294967296', '999999999999999', '1000000000000000', '-1', '1.5'];
    const events: TraceEvent[] = [
      ...nums.map((n, i): TraceEvent => ({ t: i, type: 'fifo.enqueue', key: 'k', delta: 'Updated', rv: '1', depthKeys: n, depthDeltas: -n, objects: n })),
      ...rvs.map((rv, i): TraceEvent => ({ t: 100 + i, type: 'rv', rv, source: 'event' })),
      // Base-9 codes of 9 deltas fit an int32 (9^9 < 2^31), those of 10 do not (8·9^9 ≥ 2^31).
      ...[9, 10, 16].map((n, i): TraceEvent => ({ t: 200 + i, type: 'fifo.pop', key: 'k', deltas: Array.from({ length: n }, () => 'Bookmark' as const), isInInitialList: false, depthKeys: 0, depthDeltas: 0 })),
      // Times that are not int32.
      { t: 2 ** 40 + 0.25, type: 'resync.timer', shouldResync: true },
      { t: -0, type: 'resync.timer', shouldResync: false },
      // A wide value written, then the event kept as an object (a key of another type): the next one reads its own.
      { t: 300, type: 'notify', handler: 'h', op: 'add', rv: '99999999999', pending: 0.5, key: 7 } as never,
      { t: 301, type: 'notify', handler: 'h', op: 'add', key: 'k', rv: '99999999998', isSync: false, pending: 1.25 },
    ];
    for (const size of [1, 2, 5, 100]) {
      const w = new EventWindow(size);
      for (const e of events) w.push(e, false);
      const back = w.slice();
      assert.equal(back.length, events.length);
      back.forEach((got, i) => {
        const { seq, ...rest } = got;
        assert.equal(seq, i);
        assert.deepEqual(Object.keys(rest).sort(), Object.keys(events[i]).sort(), `keys of event ${i}, chunks of ${size}`);
        for (const [k, v] of Object.entries(events[i])) {
          const g = (rest as Record<string, unknown>)[k];
          if (typeof v === 'number') assert.ok(Object.is(g, v), `event ${i}.${k}: ${String(g)} for ${String(v)}, chunks of ${size}`);
          else assert.deepEqual(g, v, `event ${i}.${k}, chunks of ${size}`);
        }
      });
    }
  });

  it('drops from the front across chunks and numbers what is left from the new first seq', () => {
    const w = new EventWindow(3);
    for (let i = 0; i < 10; i++) w.push({ t: i, type: 'resync.timer', shouldResync: i % 2 === 0 }, true);
    w.dropFirst(4);
    assert.equal(w.length, 6);
    assert.equal(w.firstSeq, 4);
    assert.deepEqual(w.slice().map((e) => [e.seq, e.t]), [[4, 4], [5, 5], [6, 6], [7, 7], [8, 8], [9, 9]]);
    assert.deepEqual(w.slice(2, 4).map((e) => e.seq), [6, 7]);
    w.dropFirst(100);
    assert.equal(w.length, 0);
    w.push({ t: 10, type: 'synced' }, true);
    assert.deepEqual(w.slice().map((e) => e.seq), [10]);
  });

  it('by type: the same events as the objects, for the types asked only', () => {
    const w = new EventWindow(5);
    for (const e of EVENTS) w.push(e, false);
    const all = w.slice();
    const typed = w.byType();
    for (const type of ['notify', 'fifo.pop', 'trace.dropped', 'synced', 'informer.stop'] as const) {
      assert.deepEqual(typed.ofType(type), all.filter((e) => e.type === type), type);
    }
    // A distribute's diff is parsed only when a reader asks for it; its other fields are own values.
    const distributes = typed.ofType('distribute');
    const expected = all.filter((e) => e.type === 'distribute');
    assert.equal(distributes.length, 2);
    for (let i = 0; i < 2; i++) {
      const d = distributes[i] as unknown as Record<string, unknown>;
      const x = expected[i] as unknown as Record<string, unknown>;
      assert.deepEqual(d.diff, x.diff);
      assert.equal(exported([{ ...d, diff: d.diff }]), exported([x]));
    }
  });

  it('by type after drops in the middle of a chunk, and over appended chunks of uneven sizes (a host mirror)', () => {
    const types = [...new Set(EVENTS.map((e) => e.type))];
    const check = (w: EventWindow, what: string) => {
      const all = w.slice();
      const typed = w.byType();
      for (const type of types) {
        const got = typed.ofType(type);
        assert.deepEqual(got.map((e) => e.seq), all.filter((e) => e.type === type).map((e) => e.seq), `${what}: ${type}`);
        // A diff is read through its getter (forFindings), not listed: read it to compare.
        const own = got.map((e) => ('diff' in e ? { ...e, diff: (e as { diff?: unknown }).diff } : e));
        assert.equal(exported(own), exported(all.filter((e) => e.type === type)), `${what}: ${type}`);
      }
    };
    for (const drop of [0, 1, 3, 5, 7, 12]) {
      const w = new EventWindow(5);
      for (let round = 0; round < 3; round++) for (const e of EVENTS) w.push(e, false);
      w.dropFirst(drop);
      check(w, `pushed, ${drop} dropped`);
    }
    // A view is of the window when it was taken: events pushed after it (into its last chunk too) are not in it.
    const w = new EventWindow(50);
    for (const e of EVENTS) w.push(e, false);
    const before = w.slice();
    const typed = w.byType();
    for (const e of EVENTS) w.push(e, false);
    for (const type of types) assert.deepEqual(typed.ofType(type).map((e) => e.seq), before.filter((e) => e.type === type).map((e) => e.seq), `a view, then pushes: ${type}`);
    // Chunks of 1, 4, 2, 7 … events copied from a recorder's window, as batches arrive at the host.
    const source = new EventWindow(5);
    for (let round = 0; round < 3; round++) for (const e of EVENTS) source.push(e, false);
    const mirror = new EventWindow(5);
    const sizes = [1, 4, 2, 7, 3, 9, 5, 6, 8, 100];
    for (let from = 0, k = 0; from < source.length; k++) {
      const to = Math.min(source.length, from + sizes[k % sizes.length]);
      const part = new EventWindow(5);
      part.startAt(0);
      for (const e of source.slice(from, to)) part.push(e, false);
      const c = part.copyFrom(0);
      if (c) mirror.append(c);
      from = to;
    }
    for (const drop of [0, 2, 4, 7]) {
      mirror.dropFirst(drop);
      check(mirror, `appended, ${mirror.firstSeq} dropped`);
    }
  });

  it('findings from the recorder by type are those of its events as one array', () => {
    const r = new TraceRecorder(header(), 50);
    for (let i = 0; i < 120; i++) {
      r.emit({ t: i * 10, type: 'relist', reason: 'Expired', row: 1, rv: String(i), consistent: false, text: 'x' });
      r.emit({ t: i * 10 + 1, type: 'list.error', text: 'refused' });
      r.emit({ t: i * 10 + 2, type: 'notify', handler: 'h', op: 'delete', key: `k${i}`, rv: '1', isSync: false, tombstone: true, pending: 2000 });
      r.emit({ t: i * 10 + 3, type: 'distribute', op: 'update', key: `k${i}`, isSync: false, delivered: 1, skipped: 0, change: 'identical', diff: [{ path: 'a', old: 1, new: 2 }], oldRv: '1', rv: '2' });
    }
    const findings = computeFindings(r.header(), r.eventsByType());
    assert.ok(findings.length > 0);
    assert.deepEqual(findings, computeFindings(r.header(), r.events()));
  });
});

describe('an update diff in the packed window (eventChunk.ts)', () => {
  // Values an update diff may carry: any JSON; strings that look like integers (as resource versions do), near and past int32; characters JSON escapes.
  const edgy = fc.constantFrom('0', '00', '007', '1', '999999999', '1000000000', '2147483648', '-1', '1e3', '', '"', '\\', '\u0000', 'a"b\\c', 'é', '\ud800');
  const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), edgy, fc.string({ unit: 'binary', maxLength: 12 }));
  const change = fc.record({ path: fc.oneof(fc.string({ maxLength: 20 }), edgy), old: value, new: value }, { requiredKeys: ['path'] });
  const diffs = fc.array(fc.array(change, { maxLength: 5 }), { minLength: 1, maxLength: 30 });

  it('gives back each diff exactly, written and copied and moved to another thread as parts, in every chunk size', () => {
    fc.assert(
      fc.property(diffs, fc.constantFrom(1, 2, 3, 7, 64), (all, size) => {
        const events: TraceEvent[] = all.map((diff, i) => ({ t: i, type: 'distribute', op: 'update', key: `ns/p${i % 3}`, isSync: false, delivered: 2, skipped: 0, change: 'status', diff, oldRv: String(i), rv: String(i + 1) }));
        const withSeq = events.map((e, seq) => ({ ...e, seq }));
        const w = new EventWindow(size);
        for (const e of events) w.push(e, false);
        const want = exported(withSeq);
        assert.equal(exported(w.slice()), want, 'written');
        // Copied slot by slot (what a batch to the host is), then as parts through a structured clone.
        const copy = w.copyFrom(0);
        assert.ok(copy);
        const mirror = new EventWindow(size);
        mirror.startAt(0);
        mirror.append(Chunk.fromParts(structuredClone(copy.parts())));
        assert.equal(exported(mirror.slice()), want, 'copied, as parts');
        // What findings read: the same diff through the getter.
        const typed = w.byType().ofType('distribute');
        assert.deepEqual(typed.map((e) => JSON.stringify((e as { diff?: unknown }).diff)), withSeq.map((e) => JSON.stringify((e as { diff?: unknown }).diff)));
      }),
      { numRuns: 200 },
    );
  });
});
