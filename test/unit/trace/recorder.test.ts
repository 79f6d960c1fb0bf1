import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { TraceRecorder } from '../../../src/trace/recorder';
import type { RecordedEvent } from '../../../src/format/events';
import { header } from './fixtures';

function rec(cap?: number, over = {}): TraceRecorder {
  const { dropped: _dropped, ...h } = header(over);
  return new TraceRecorder(h, cap);
}

const ev = (t: number): TraceEvent => ({ t, type: 'resync.timer', shouldResync: false });

describe('TraceRecorder', () => {
  it('numbers events 0,1,2,... in emission order', () => {
    const r = rec();
    for (let i = 0; i < 5; i++) r.emit(ev(i));
    assert.deepEqual(r.events().map((e) => e.seq), [0, 1, 2, 3, 4]);
    assert.deepEqual(r.events().map((e) => e.t), [0, 1, 2, 3, 4]);
    assert.equal(r.header().dropped, 0);
  });

  it('since(seq) returns exactly the newer events', () => {
    const r = rec();
    for (let i = 0; i < 5; i++) r.emit(ev(i));
    assert.deepEqual(r.since(2).map((e) => e.seq), [3, 4]);
    assert.deepEqual(r.since(-1).map((e) => e.seq), [0, 1, 2, 3, 4]);
    assert.deepEqual(r.since(4), []);
  });

  it('drops the oldest events at the cap, records the drop and never reuses a seq', () => {
    const r = rec(10);
    for (let i = 0; i < 25; i++) r.emit(ev(i));
    const events = r.events();
    assert.ok(events.length <= 10, `holds ${events.length} > cap`);
    const seqs = events.map((e) => e.seq);
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, 'held seqs are contiguous');
    const markers = events.filter((e) => e.type === 'trace.dropped');
    assert.ok(markers.length >= 1, 'the drop is recorded as an event');
    // every emitted event is either held or counted as dropped
    const lastSeq = seqs[seqs.length - 1];
    assert.equal(r.dropped + events.length, lastSeq + 1);
    assert.equal(r.header().dropped, r.dropped);
    assert.equal(events[events.length - 1].t, 24, 'the newest event is kept');
    assert.deepEqual(r.since(0).map((e) => e.seq), seqs, 'since() before the window returns all held');
  });

  it('a drop marker carries how many events it removed', () => {
    const r = rec(4);
    for (let i = 0; i < 4; i++) r.emit(ev(i));
    r.emit(ev(4));
    const marker = r.events().find((e) => e.type === 'trace.dropped') as RecordedEvent & { count: number };
    assert.equal(marker.count, 2);
    assert.equal(r.dropped, 2);
    assert.deepEqual(r.events().map((e) => e.type), ['resync.timer', 'resync.timer', 'trace.dropped', 'resync.timer']);
  });

  it('raises a cap below the minimum and reports the effective cap in the header', () => {
    const r = rec(1);
    assert.equal(r.header().cap, 2);
    for (let i = 0; i < 5; i++) r.emit(ev(i));
    assert.ok(r.events().length <= 2);
    assert.equal(r.events()[r.events().length - 1].t, 4);
  });

  it('subscribers get each emit synchronously, with the drop marker in the same batch', () => {
    const r = rec(2);
    const batches: string[][] = [];
    const off = r.subscribe((b) => batches.push(b.map((e) => `${e.seq}:${e.type}`)));
    r.emit(ev(0));
    r.emit(ev(1));
    r.emit(ev(2));
    assert.deepEqual(batches, [['0:resync.timer'], ['1:resync.timer'], ['2:trace.dropped', '3:resync.timer']]);
    off();
    r.emit(ev(3));
    assert.equal(batches.length, 3);
  });

  it('a throwing subscriber does not break emit', () => {
    const r = rec();
    r.subscribe(() => {
      throw new Error('consumer bug');
    });
    assert.doesNotThrow(() => r.emit(ev(0)));
    assert.equal(r.events().length, 1);
  });

  it('redacts on emit unless the header says redacted:false', () => {
    const secretText = 'Authorization: Bearer abc.def.ghi';
    const on = rec(undefined, { redacted: true });
    on.emit({ t: 0, type: 'log', level: 'info', msg: secretText });
    assert.ok(!JSON.stringify(on.events()).includes('abc.def.ghi'));
    const off = rec(undefined, { redacted: false });
    off.emit({ t: 0, type: 'log', level: 'info', msg: secretText });
    assert.ok(JSON.stringify(off.events()).includes('abc.def.ghi'));
  });
});
