import { strict as assert } from 'node:assert';
import type { RecordedEvent, TraceEvent } from '../../../src/format/events';
import { TraceMirror } from '../../../src/app/traceMirror';
import { EventBatches } from '../../../src/app/eventBatches';
import { Chunk } from '../../../src/trace/eventChunk';
import { TraceRecorder } from '../../../src/trace/recorder';
import { diffForSeq, diffForSeqIn } from '../../../src/protocol/eventColumns';
import { SAMPLE_EVENTS, header } from '../trace/fixtures';

/** Every sample event type, and updates with diffs for one key after another (distribute, then notify). */
function workload(n: number): TraceEvent[] {
  const samples = Object.values(SAMPLE_EVENTS) as TraceEvent[];
  const out: TraceEvent[] = [];
  for (let i = 0; i < n; i++) {
    const key = `ns/pod-${i % 13}`;
    if (i % 5 === 0) out.push({ ...samples[i % samples.length], t: i });
    else if (i % 5 === 1)
      out.push({ t: i, type: 'distribute', op: 'update', key, isSync: false, delivered: 1, skipped: 0, change: 'status', diff: [{ path: 'metadata.resourceVersion', old: String(i), new: String(i + 1) }, { path: 'status.phase', old: 'Pending', new: i % 2 ? 'Running' : null }], oldRv: String(i), rv: String(i + 1) });
    else if (i % 5 === 2) out.push({ t: i, type: 'notify', handler: 'main', op: 'update', key: `ns/pod-${(i - 1) % 13}`, rv: String(i), oldRv: String(i - 1), isSync: false, change: 'status', pending: i % 3 });
    else if (i % 5 === 3) out.push({ t: i, type: 'fifo.pop', key, deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 });
    else out.push({ t: i, type: 'watch.event', eventType: 'MODIFIED', key, rv: String(i), accepted: true });
  }
  return out;
}

describe("the host's trace mirror (packed as the worker's recorder packs)", () => {
  it('holds what the recorder holds, batch after batch through a structured clone, across evictions', () => {
    const r = new TraceRecorder({ ...header(), cap: 1000 }, 1000);
    const mirror = new TraceMirror(r.header(), r.header().cap);
    let pending: RecordedEvent[] = [];
    r.subscribe((b) => pending.push(...b));
    const events = workload(3500);
    for (let i = 0; i < events.length; i++) {
      r.emit(events[i]);
      if (i % 97 === 0 || i === events.length - 1) {
        mirror.append(structuredClone(pending), { dropped: r.dropped });
        pending = [];
        assert.deepEqual(mirror.events(), r.events(), `after event ${i}`);
        assert.equal(mirror.held, r.held);
        assert.equal(mirror.firstHeldSeq, r.firstHeldSeq);
      }
    }
    assert.ok(r.dropped > 0, 'the window was full more than once');
    const held = r.events();
    assert.deepEqual(mirror.since(held[500].seq), held.slice(501));
    assert.deepEqual(mirror.since(-1), held);
    assert.deepEqual(mirror.at(7), held[7]);
    assert.deepEqual(mirror.eventsByType().ofType('distribute').map((e) => e.seq), held.filter((e) => e.type === 'distribute').map((e) => e.seq));
    // The details pane's lookup reads the packed window one event at a time and answers as over the objects.
    for (const e of held.slice(0, 60)) assert.deepEqual(diffForSeqIn(mirror.held, (i) => mirror.at(i), e.seq), diffForSeq(held, e.seq), `seq ${e.seq}`);
    assert.ok(held.slice(0, 60).some((e) => e.type === 'notify' && diffForSeq(held, e.seq) !== undefined), 'a notification found its diff');
  });

  it('a copy that begins after seq 0 starts there; one that skips starts over where the batch is', () => {
    const mirror = new TraceMirror({ ...header(), cap: 1000, dropped: 0 }, 1000);
    const events = workload(30).map((e, i) => ({ ...e, seq: i })) as RecordedEvent[];
    mirror.append(events.slice(10, 20), { dropped: 10 });
    assert.equal(mirror.firstHeldSeq, 10);
    assert.deepEqual(mirror.events().map((e) => e.seq), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    mirror.append(events.slice(25), { dropped: 15 });
    assert.deepEqual(mirror.events().map((e) => e.seq), [25, 26, 27, 28, 29]);
  });
});

describe('packed batches from the worker to the host (EventBatches → TraceMirror.appendPacked)', () => {
  for (const [cap, every] of [[1000, 97], [100, 450]] as const) {
    it(`the host's mirror holds what the worker's recorder holds, its subscribers get every event once (cap ${cap}, a batch every ${every} events)`, () => {
      const r = new TraceRecorder({ ...header(), cap }, cap);
      const mirror = new TraceMirror(r.header(), r.header().cap);
      const told: RecordedEvent[] = [];
      mirror.subscribe((b) => told.push(...b));
      const announced: RecordedEvent[] = [];
      r.subscribe((b) => announced.push(...structuredClone(b)));
      let messages = 0;
      const batches = new EventBatches((m, moved) => {
        // The message as the host gets it: a structured clone that moves the typed arrays.
        const got = structuredClone(m, { transfer: moved });
        assert.equal(got.type, 'batch');
        if (got.type !== 'batch') return;
        assert.ok(moved.length > 0 && moved.every((b) => b.byteLength === 0), 'the arrays were moved, not copied');
        mirror.appendPacked(Chunk.fromParts(got.packed), got.firstSeq, got.status);
        messages++;
      }, 1_000_000, 1_000_000);
      batches.attach(r);
      const events = workload(3000);
      for (let i = 0; i < events.length; i++) {
        r.emit(events[i]);
        if (i % every === every - 1 || i === events.length - 1) {
          batches.flush();
          assert.deepEqual(mirror.events(), r.events(), `after event ${i}`);
          assert.equal(mirror.firstHeldSeq, r.firstHeldSeq);
        }
      }
      assert.ok(messages > 3 && r.dropped > 0);
      // Every recorded event once, in order, as the export writes it (fields whose value is undefined left out).
      assert.ok(announced.length > 3000, 'the drop markers are events too');
      assert.deepEqual(told, JSON.parse(JSON.stringify(announced)));
      assert.deepEqual(told.map((e) => e.seq), Array.from({ length: announced.length }, (_, i) => i));
    });
  }

  it('parts that do not fit together are refused with a message', () => {
    const c = new Chunk(2, 8);
    c.add({ t: 1, type: 'resync.timer', shouldResync: true }, false);
    c.add({ t: 2, type: 'resync.timer', shouldResync: false }, false);
    const p = c.parts();
    assert.equal(Chunk.fromParts(p).read(1, 7).t, 2);
    assert.throws(() => Chunk.fromParts({ ...p, count: 3 }), /do not fit together/);
    assert.throws(() => Chunk.fromParts({ ...p, starts: new Uint32Array([0, 99]) }), /do not fit together/);
  });
});
