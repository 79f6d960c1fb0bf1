import { strict as assert } from 'assert';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent, TraceEvent } from '../../../src/format/events';
import { TraceRecorder } from '../../../src/trace/recorder';
import { readSegment, SegmentFile } from '../../../src/trace/segments';
import { chunksFor, readSpilledRange } from '../../../src/trace/segmentRange';
import { keptExact, OVERVIEW_BINS_PER_CHUNK } from '../../../src/trace/spillOverview';
import { TraceMirror } from '../../../src/app/traceMirror';
import { header } from './fixtures';

/** A storyline in miniature: a relist every 100 ms of engine time, enqueues and notifications between. */
function eventAt(i: number): TraceEvent {
  const t = i * 2;
  if (i % 50 === 0) return { t, type: 'relist', reason: 'Expired', row: 1, rv: String(i), consistent: true, text: `relist ${i}` } as TraceEvent;
  if (i % 3 === 0) return { t, type: 'fifo.enqueue', key: `ns/p${i % 7}`, delta: 'Updated', rv: String(i), depthKeys: i % 5, depthDeltas: i % 9 } as TraceEvent;
  return { t, type: 'notify', handler: i % 2 ? 'main' : 'other', op: 'update', key: `ns/p${i % 7}`, rv: String(i), isSync: false, pending: 0 } as TraceEvent;
}

async function all(it: AsyncIterable<RecordedEvent>): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('range reads of the spill segment', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spill-range-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function recorder(cap: number, maxBytes: number): { r: TraceRecorder; seg: SegmentFile } {
    const { dropped: _d, ...h } = header();
    const seg = new SegmentFile({ dir, maxBytes, name: 'range' });
    return { r: new TraceRecorder(h, cap, seg), seg };
  }

  it('the chunk index covers every spilled event once, in seq order, with its bytes', async () => {
    const { r, seg } = recorder(100, 1 << 24);
    for (let i = 0; i < 2000; i++) r.emit(eventAt(i));
    const st = seg.state();
    assert.ok(st.chunks.length >= 10, `chunks ${st.chunks.length}`);
    let next = 0;
    let offset = 0;
    for (const c of st.chunks) {
      assert.equal(c.firstSeq, next);
      assert.equal(c.lastSeq - c.firstSeq + 1, c.count);
      assert.equal(c.offset, offset);
      next = c.lastSeq + 1;
      offset += c.bytes;
    }
    assert.equal(offset, st.bytes);
    assert.equal(next, r.events()[0].seq);
  });

  it('a window inside one chunk reads that chunk whole; a window across a chunk boundary reads both; the events equal the segment', async () => {
    const { r, seg } = recorder(100, 1 << 24);
    for (let i = 0; i < 2000; i++) r.emit(eventAt(i));
    const st = seg.state();
    const segment = await all(readSegment(st.path));
    const c3 = st.chunks[3];
    const inner = await readSpilledRange(st, c3.t0 + 1, c3.t1 - 1);
    assert.deepEqual(inner.events, segment.slice(c3.firstSeq, c3.lastSeq + 1));
    assert.equal(inner.complete, true);
    // Straddling the edge between chunk 3 and 4: both come whole, so events before and after the window's edges are there too.
    const c4 = st.chunks[4];
    const across = await readSpilledRange(st, c3.t1 - 4, c4.t0 + 4);
    assert.deepEqual(across.events.map((e) => e.seq), segment.slice(c3.firstSeq, c4.lastSeq + 1).map((e) => e.seq));
    assert.deepEqual(across.events, segment.slice(c3.firstSeq, c4.lastSeq + 1));
    assert.ok(across.events[0].t < c3.t1 - 4 && across.events[across.events.length - 1].t > c4.t0 + 4, 'rows beyond both edges');
    assert.deepEqual([across.t0, across.t1], [c3.t0, c4.t1]);
    // The whole spilled span, and a window before the recording: nothing.
    const whole = await readSpilledRange(st, -Infinity, Infinity);
    assert.deepEqual(whole.events, segment);
    assert.deepEqual((await readSpilledRange(st, -100, -50)).events, []);
  });

  it('after more evictions the earlier chunks read the same (the file only grows), and the cap on events keeps the middle', async () => {
    const { r, seg } = recorder(100, 1 << 24);
    for (let i = 0; i < 1000; i++) r.emit(eventAt(i));
    const before = seg.state();
    const first = await readSpilledRange(before, before.chunks[1].t0, before.chunks[2].t1);
    for (let i = 1000; i < 3000; i++) r.emit(eventAt(i));
    const after = seg.state();
    assert.ok(after.chunks.length > before.chunks.length);
    assert.deepEqual(await readSpilledRange(after, before.chunks[1].t0, before.chunks[2].t1), first);
    const capped = await readSpilledRange(after, after.chunks[0].t0, after.chunks[after.chunks.length - 1].t1, 15);
    assert.equal(capped.complete, false);
    assert.equal(capped.events.length, after.chunks[0].count, 'one chunk: the cap is below two');
    const mid = (after.chunks[0].t0 + after.chunks[after.chunks.length - 1].t1) / 2;
    assert.ok(capped.t0 <= mid + 20 && capped.t1 >= mid - 20, `the chunk read [${capped.t0}, ${capped.t1}] is at the middle ${mid}`);
  });

  it('past the disk bound nothing more is indexed: the range has a gap the trace.dropped event names, and no chunk claims dropped events', async () => {
    const { r, seg } = recorder(100, 9000);
    for (let i = 0; i < 3000; i++) r.emit(eventAt(i));
    const st = seg.state();
    assert.ok(r.header().dropped > 0, 'the bound was hit');
    const whole = await readSpilledRange(st, -Infinity, Infinity);
    assert.deepEqual(whole.events, await all(readSegment(st.path)));
    assert.equal(whole.events.length, st.events);
    const memoryFirst = r.events()[0].seq;
    assert.ok(whole.events[whole.events.length - 1].seq < memoryFirst);
    assert.ok(st.bytes <= 9000);
    const drops = (await all(r.allEvents())).filter((e) => e.type === 'trace.dropped');
    assert.ok(drops.length > 0);
  });

  it('a chunk selection is contiguous and says when it is partial', () => {
    const chunks = [0, 1, 2, 3, 4].map((i) => ({ firstSeq: i * 10, lastSeq: i * 10 + 9, t0: i * 100, t1: i * 100 + 90, count: 10, offset: i * 50, bytes: 50 }));
    assert.deepEqual(chunksFor(chunks, 150, 250, 100).chunks.map((c) => c.firstSeq), [10, 20]);
    assert.equal(chunksFor(chunks, 150, 250, 100).complete, true);
    const part = chunksFor(chunks, 0, 490, 30);
    assert.deepEqual(part.chunks.map((c) => c.firstSeq), [10, 20, 30]);
    assert.equal(part.complete, false);
    assert.deepEqual(chunksFor(chunks, 91, 99, 100).chunks, []);
  });

  it('a damaged segment is one clear error, not a crash or a wrong range', async () => {
    const { r, seg } = recorder(100, 1 << 24);
    for (let i = 0; i < 500; i++) r.emit(eventAt(i));
    const st = seg.state();
    const text = readFileSync(st.path, 'utf8');
    writeFileSync(st.path, text.replace('"type":"relist"', '"type":"relist!'));
    await assert.rejects(readSpilledRange(st, -Infinity, Infinity), /is damaged/);
    writeFileSync(st.path, text.slice(0, 100));
    await assert.rejects(readSpilledRange(st, -Infinity, Infinity), /shorter than its index/);
  });

  it('the overview keeps every sparse event whole and counts the rest exactly; the mirror builds the same one', async () => {
    const { r, seg } = recorder(100, 1 << 24);
    const { dropped: _d, ...h } = header();
    const mirror = new TraceMirror({ ...h, cap: 100, dropped: 0 }, 100);
    r.subscribe((batch) => mirror.append(batch, { dropped: r.dropped, spill: seg.state() }));
    for (let i = 0; i < 2000; i++) r.emit(eventAt(i));
    const o = r.spillOverview()!;
    const spilled = await all(readSegment(seg.state().path));
    assert.deepEqual(o.exact, spilled.filter(keptExact));
    assert.equal(o.exact.filter((e) => e.type === 'relist').length, spilled.filter((e) => e.type === 'relist').length);
    const counted = o.dense.reduce((n, d) => n + d.count, 0);
    assert.equal(counted, spilled.filter((e) => e.type === 'fifo.enqueue' || e.type === 'notify').length);
    assert.equal(o.dense.filter((d) => d.type === 'notify' && d.handler === 'other').reduce((n, d) => n + d.count, 0), spilled.filter((e) => e.type === 'notify' && e.handler === 'other').length);
    assert.ok(o.dense.length <= o.chunks.length * OVERVIEW_BINS_PER_CHUNK * 3, `dense rows ${o.dense.length}`);
    assert.deepEqual(mirror.spillOverview(), o);
  });
});
