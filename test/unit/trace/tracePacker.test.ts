import { strict as assert } from 'assert';
import type { FieldChange, RecordedEvent, TraceEvent } from '../../../src/format/events';
import { packerOf, type TracePacker } from '../../../src/engine/sink';
import { TraceRecorder } from '../../../src/trace/recorder';
import { exportTrace } from '../../../src/trace/traceExport';
import { header } from './fixtures';

/**
 * One call of a TracePacker method and the event literal the engine emits for it otherwise
 * (src/engine: watchHandling, reflector, realFifo, sharedProcessor, processorListener).
 */
interface Case {
  name: string;
  pack(p: TracePacker): boolean;
  literal: TraceEvent;
}

const diff: FieldChange[] = [
  { path: 'metadata.resourceVersion', old: '10', new: '11' },
  { path: 'status.conditions[0].lastTransitionTime', old: '2026-11-24T10:00:00Z', new: '2026-11-24T10:00:01Z' },
];

function cases(key: string, rv: string, handler = 'handler-0'): Case[] {
  return [
    { name: 'watch.event', pack: (p) => p.packWatchEvent(1, 'MODIFIED', key, rv, true), literal: { t: 1, type: 'watch.event', eventType: 'MODIFIED', key, rv, accepted: true } },
    { name: 'watch.event without key', pack: (p) => p.packWatchEvent(1.5, 'ERROR', undefined, '', false), literal: { t: 1.5, type: 'watch.event', eventType: 'ERROR', key: undefined, rv: '', accepted: false } },
    { name: 'rv', pack: (p) => p.packRv(2, rv, 'event'), literal: { t: 2, type: 'rv', rv, source: 'event' } },
    { name: 'fifo.enqueue', pack: (p) => p.packEnqueue(3, key, 'Updated', rv, 1, 1), literal: { t: 3, type: 'fifo.enqueue', key, delta: 'Updated', rv, depthKeys: 1, depthDeltas: 1 } },
    { name: 'fifo.pop', pack: (p) => p.packPop(4, key, ['Updated'], false, 0, 0), literal: { t: 4, type: 'fifo.pop', key, deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 } },
    {
      name: 'distribute',
      pack: (p) => p.packDistribute(5, 'update', key, false, 2, 0, 'status', diff, '10', rv),
      literal: { t: 5, type: 'distribute', op: 'update', key, isSync: false, delivered: 2, skipped: 0, change: 'status', diff, oldRv: '10', rv },
    },
    {
      name: 'distribute without change',
      pack: (p) => p.packDistribute(5.5, 'update', key, true, 1, 1, undefined, [], '12345678901234567', rv),
      literal: { t: 5.5, type: 'distribute', op: 'update', key, isSync: true, delivered: 1, skipped: 1, change: undefined, diff: [], oldRv: '12345678901234567', rv },
    },
    {
      name: 'distribute add',
      pack: (p) => p.packDistribute(5.75, 'add', key, true, 2, 0, undefined, undefined, undefined, rv),
      literal: { t: 5.75, type: 'distribute', op: 'add', key, isSync: true, delivered: 2, skipped: 0, rv },
    },
    {
      name: 'notify update',
      pack: (p) => p.packNotify(6, handler, key, 3, 'update', rv, '10', false, undefined, undefined, 'status'),
      literal: { t: 6, type: 'notify', handler, key, pending: 3, op: 'update', rv, oldRv: '10', isSync: false, change: 'status' },
    },
    {
      name: 'notify add',
      pack: (p) => p.packNotify(7, handler, key, 0, 'add', rv, undefined, true, true, undefined, undefined),
      literal: { t: 7, type: 'notify', handler, key, pending: 0, op: 'add', rv, isSync: true, initialList: true },
    },
    {
      name: 'notify delete of a tombstone',
      pack: (p) => p.packNotify(8, handler, key, 0, 'delete', rv, undefined, false, undefined, true, undefined),
      literal: { t: 8, type: 'notify', handler, key, pending: 0, op: 'delete', rv, isSync: false, tombstone: true },
    },
  ];
}

const podsHeader = () => ({ ...header(), resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } });

/** The trace of these cases recorded the engine's way: each pack call, else its literal adopted. */
function viaPacker(r: TraceRecorder, cs: Case[]): boolean[] {
  const packer = packerOf(r);
  assert.ok(packer, 'the recorder is a TracePacker');
  return cs.map((c) => {
    const took = c.pack(packer);
    if (!took) r.adopt(structuredClone(c.literal));
    return took;
  });
}

function viaLiterals(r: TraceRecorder, cs: Case[]): void {
  for (const c of cs) r.adopt(structuredClone(c.literal));
}

/** The recorder's events as it holds them (the export would redact again), and its export. */
const exported = (r: TraceRecorder) => JSON.stringify(r.events()) + exportTrace({ header: { ...r.header(), startedAt: 'x' }, events: r.events() });

describe('TracePacker: the recorder takes the hot events as their fields', () => {
  it('records exactly what adopting the literal records, for every packed call', () => {
    for (const cap of [200_000, 5]) {
      const cs = [...cases('ns/a', '11'), ...cases('ns/b', '0012'), ...cases('ns/c', '99', 'handler-1')];
      const a = new TraceRecorder(podsHeader(), cap);
      const b = new TraceRecorder(podsHeader(), cap);
      const took = viaPacker(a, cs);
      viaLiterals(b, cs);
      assert.ok(took.every(Boolean), `every case packed (cap ${cap})`);
      assert.equal(exported(a), exported(b), `cap ${cap}`);
      assert.equal(a.dropped, b.dropped);
    }
  });

  it('declines what redaction may change and a Secret diff: the literal then records it the same', () => {
    const secretish = 'ns/token=abc';
    const flagged = cases(secretish, '11');
    const r = new TraceRecorder(podsHeader());
    const took = viaPacker(r, flagged);
    assert.ok(!took[0] && !took[3] && !took[8], 'a key redaction may change is not packed');
    assert.ok(took[1], 'the watch.event without the key is');
    const literals = new TraceRecorder(podsHeader());
    viaLiterals(literals, flagged);
    assert.equal(exported(r), exported(literals));
    assert.ok(JSON.stringify(r.events()).includes('[redacted]') && !JSON.stringify(r.events()).includes('abc'));

    const secrets = new TraceRecorder({ ...header(), resource: { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true } });
    assert.equal(packerOf(secrets)!.packDistribute(1, 'update', 'ns/s', false, 1, 0, 'status', [{ path: 'data.password', old: 'a', new: 'b' }], '1', '2'), false);

  });

  it('hands a subscriber each packed event as the literal it stands for, with the drop markers in the same batches', () => {
    for (const cap of [200_000, 4]) {
      const cs = [...cases('ns/a', '11'), ...cases('ns/token=abc', '12'), ...cases('ns/b', '13', 'handler-1')];
      const packed = new TraceRecorder(podsHeader(), cap);
      const literal = new TraceRecorder(podsHeader(), cap);
      const seenPacked: RecordedEvent[][] = [];
      const seenLiteral: RecordedEvent[][] = [];
      packed.subscribe((batch) => seenPacked.push(batch));
      literal.subscribe((batch) => seenLiteral.push(batch));
      const took = viaPacker(packed, cs);
      viaLiterals(literal, cs);
      assert.equal(took.filter(Boolean).length, cs.length - 9, 'a subscribed recorder packs all but the nine events with the key redaction changes');
      // The same batches, fields, values and key order (JSON.stringify keeps the order).
      assert.deepStrictEqual(seenPacked, seenLiteral, `cap ${cap}`);
      assert.equal(JSON.stringify(seenPacked), JSON.stringify(seenLiteral), `cap ${cap}`);
      assert.equal(exported(packed), exported(literal), `cap ${cap}`);
    }
  });

  it('packs without redaction when the trace is not redacted', () => {
    const r = new TraceRecorder({ ...podsHeader(), redacted: false });
    assert.ok(viaPacker(r, cases('ns/token=abc', '11')).every(Boolean));
    assert.ok(exported(r).includes('token=abc'));
  });
});
