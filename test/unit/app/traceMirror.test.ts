import { strict as assert } from 'node:assert';
import type { RecordedEvent } from '../../../src/format/events';
import { chunksAfter, concatBatches, heardEvents, lastSeqOf, sliceBatch } from '../../../src/protocol/columnChunks';
import { decodeBatch, encodeBatch, type ColumnBatch } from '../../../src/protocol/eventColumns';
import { MAX_CHUNKS, TraceMirror } from '../../../src/app/traceMirror';
import { contactFailure, serverAnswered } from '../../../src/vscode/reachabilityAlert';
import { header, numbered } from '../trace/fixtures';
import { scenarioTraces } from '../trace/scenarioTraces';

/** The event as the columns carry it: a distribute's diff stays with the worker. */
function withoutDiff(e: RecordedEvent): RecordedEvent {
  if (e.type !== 'distribute' || e.diff === undefined) return e;
  const { diff: _diff, ...rest } = e;
  return rest as RecordedEvent;
}

/** A busy watch with an outage in the middle: rows (watch events, notifications) around whole events (failures, logs). */
function busyTrace(n: number): RecordedEvent[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const key = `ns/pod-${i % 37}`;
    if (i % 97 === 50) out.push({ t: i, type: 'watch.end', row: 3, outcome: 'retry', durationMs: 1, eventCount: 0, how: 'open-failed', error: 'connect ECONNREFUSED', watchList: false });
    else if (i % 97 === 51) out.push({ t: i, type: 'log', level: 'info', msg: `line ${i}` });
    else if (i % 3 === 0) out.push({ t: i, type: 'watch.event', eventType: 'MODIFIED', key, rv: String(1000 + i), accepted: true });
    else if (i % 3 === 1) out.push({ t: i, type: 'distribute', op: 'update', key, isSync: false, delivered: 1, skipped: 0, change: 'status', diff: [{ path: 'status.x', old: 'a', new: 'b' }], oldRv: String(999 + i), rv: String(1000 + i) });
    else out.push({ t: i, type: 'notify', handler: 'main', op: 'update', key, rv: i % 11 === 0 ? `x-${i}` : String(1000 + i), isSync: false, pending: 0, change: 'status' });
  }
  return numbered(out as never);
}

/** Splits events into chunks of the given sizes (cycled), as the worker's batches would be. */
function chunked(events: readonly RecordedEvent[], sizes: number[]): ColumnBatch[] {
  const out: ColumnBatch[] = [];
  for (let i = 0, k = 0; i < events.length; k++) {
    const n = sizes[k % sizes.length];
    out.push(encodeBatch(events.slice(i, i + n)));
    i += n;
  }
  return out;
}

const decodeAll = (chunks: readonly ColumnBatch[]) => chunks.flatMap((c) => decodeBatch(c)!);

describe('app: the host keeps a worker trace as column chunks', () => {
  it('slices, seq cuts and merges give back exactly the events (diffs left out), across every scenario trace', async function () {
    this.timeout(60_000);
    const sets = [...(await scenarioTraces()).map((x) => x.trace.events), busyTrace(1000)];
    for (const events of sets) {
      const expected = events.map(withoutDiff);
      const chunks = chunked(events, [1, 7, 64, 3]);
      assert.deepEqual(decodeAll(chunks), expected);
      assert.deepEqual(decodeBatch(concatBatches(chunks)), expected, 'one merged chunk');
      for (const cut of [-1, 0, 5, Math.floor(events.length / 2), events.length - 1, events.length + 3]) {
        assert.deepEqual(decodeAll(chunksAfter(chunks, cut)), expected.filter((e) => e.seq > cut), `after seq ${cut}`);
      }
      const big = chunks.find((c) => c.count > 10);
      if (big) assert.deepEqual(decodeBatch(sliceBatch(big, 4)), decodeBatch(big)!.slice(4));
    }
  });

  it('what host listeners hear holds every whole event and, after each, the first of each row type: the reachability verdicts come out the same', () => {
    const events = busyTrace(3000);
    const heard = chunked(events, [500, 33]).flatMap((c) => heardEvents(c, (i) => decodeBatch(c)![i]));
    const wholes = events.filter((e) => e.type === 'watch.end' || e.type === 'log');
    assert.deepEqual(
      heard.filter((e) => e.type === 'watch.end' || e.type === 'log').map((e) => e.seq),
      wholes.map((e) => e.seq),
    );
    assert.ok(heard.length < events.length / 5, `heard ${heard.length} of ${events.length}`);
    // The state changes a listener like reachabilityAlert derives: failing / answered, in order.
    const verdicts = (list: RecordedEvent[]) => {
      const out: string[] = [];
      let failing = false;
      for (const e of list) {
        if (contactFailure(e) !== undefined && !failing) out.push(`fail@${e.seq}`), (failing = true);
        else if (serverAnswered(e) && failing) out.push(`back@${e.seq}`), (failing = false);
      }
      return out;
    };
    assert.ok(verdicts(events).length > 10);
    assert.deepEqual(verdicts(heard), verdicts(events));
  });

  it("the mirror holds the worker recorder's window: trimmed by the oldest seq, small chunks merged, subscribers told", () => {
    const events = busyTrace(5000);
    const mirror = new TraceMirror(header());
    const counts: number[] = [];
    let heard = 0;
    mirror.subscribeColumns((c) => counts.push(c.count));
    mirror.subscribe((b) => (heard += b.length));
    const chunks = chunked(events, [3, 1, 5]);
    const cap = 2000;
    let sent = 0;
    for (const c of chunks) {
      sent += c.count;
      const first = Math.max(0, sent - cap);
      mirror.append(c, { dropped: 0, memoryEvents: sent - first, firstSeq: first });
      assert.ok(mirror.chunkCount <= MAX_CHUNKS + 1, `${mirror.chunkCount} chunks`);
    }
    assert.equal(counts.length, chunks.length);
    assert.ok(heard > 0 && heard < events.length);
    const window = events.slice(events.length - cap).map(withoutDiff);
    assert.deepEqual(mirror.events(), window);
    assert.deepEqual(decodeAll(mirror.columnsSince(4000)), window.filter((e) => e.seq > 4000));
    assert.equal(lastSeqOf(mirror.columnsSince(-1).at(-1)!), 4999);
    assert.equal(mirror.memoryCount(), cap);
  });
});
