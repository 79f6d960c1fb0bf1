import { strict as assert } from 'node:assert';
import type { RecordedEvent, TraceEvent } from '../../../src/format/events';
import { TraceMirror } from '../../../src/app/traceMirror';
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
