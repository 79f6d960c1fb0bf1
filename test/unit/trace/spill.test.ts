import { strict as assert } from 'assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent, TraceEvent } from '../../../src/format/events';
import { TraceRecorder } from '../../../src/trace/recorder';
import { readSegment, SegmentFile } from '../../../src/trace/segments';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { traceChunks, writeTraceFile } from '../../../src/trace/traceWrite';
import { TraceMirror } from '../../../src/app/traceMirror';
import { header } from './fixtures';

const ev = (t: number): TraceEvent => ({ t, type: 'resync.timer', shouldResync: t % 2 === 0 });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('the recorder spills past its memory window', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spill-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function recorder(cap: number, maxBytes: number): { r: TraceRecorder; seg: SegmentFile } {
    const { dropped: _d, ...h } = header();
    const seg = new SegmentFile({ dir, maxBytes, name: 's1' });
    return { r: new TraceRecorder(h, cap, seg), seg };
  }

  it('a tiny window spills instead of dropping: nothing is lost and every event comes back in order', async () => {
    const { r, seg } = recorder(10, 1 << 20);
    for (let i = 0; i < 1000; i++) r.emit(ev(i));
    assert.ok(r.events().length <= 10, `memory holds ${r.events().length}`);
    assert.equal(r.header().dropped, 0);
    assert.equal(r.events().filter((e) => e.type === 'trace.dropped').length, 0);
    assert.ok(seg.state().events >= 990, `spilled ${seg.state().events}`);
    assert.ok(seg.state().bytes > 0 && seg.state().bytes <= seg.maxBytes);
    const all = await collect(r.allEvents());
    assert.deepEqual(all.map((e) => e.seq), Array.from({ length: 1000 }, (_, i) => i));
    assert.deepEqual(all.map((e) => e.t), Array.from({ length: 1000 }, (_, i) => i));
  });

  it('the export streams segment and memory: the same bytes exportTrace makes of all events, and it imports again', async () => {
    const { r } = recorder(16, 1 << 20);
    for (let i = 0; i < 300; i++) r.emit(ev(i));
    const all = await collect(r.allEvents());
    const path = join(dir, 'out.informer-trace.json');
    const n = await writeTraceFile(path, r.header(), r.allEvents());
    assert.equal(n, 300);
    const text = readFileSync(path, 'utf8');
    assert.equal(text, exportTrace({ header: r.header(), events: all }));
    assert.equal(importTrace(text).events.length, 300);
    // An empty trace too.
    assert.equal((await collect(traceChunks(r.header(), []))).join(''), exportTrace({ header: r.header(), events: [] }));
  });

  it('past the disk bound it drops as before and says so (trace.dropped, header.dropped); what is kept stays in order', async () => {
    const { r, seg } = recorder(10, 600);
    for (let i = 0; i < 200; i++) r.emit(ev(i));
    assert.ok(seg.state().bytes <= 600, `segment ${seg.state().bytes} B past its 600 B bound`);
    assert.ok(seg.state().events > 0, 'something was spilled before the bound');
    assert.ok(r.header().dropped > 0, 'the bound made the recorder drop');
    const all = await collect(r.allEvents());
    const markers = all.filter((e): e is Extract<RecordedEvent, { type: 'trace.dropped' }> => e.type === 'trace.dropped');
    assert.ok(markers.length > 0, 'the drop is recorded as an event');
    assert.equal(markers[markers.length - 1].count, 2, 'a tenth of the window of 10, at least 2');
    for (let i = 1; i < all.length; i++) assert.ok(all[i].seq > all[i - 1].seq, 'seqs increase');
    // Every seq is either kept or counted as dropped.
    assert.equal(all.length + r.header().dropped, all[all.length - 1].seq + 1);
  });

  it('a segment that cannot be written stops spilling and the recorder drops instead (never throws)', () => {
    const { dropped: _d, ...h } = header();
    const seg = new SegmentFile({ dir: join(dir, 'file-not-dir', 'x'), maxBytes: 1 << 20, name: 's' });
    // The folder's parent is a file: mkdir fails.
    require('node:fs').writeFileSync(join(dir, 'file-not-dir'), 'x');
    const r = new TraceRecorder(h, 10, seg);
    for (let i = 0; i < 50; i++) r.emit(ev(i));
    assert.ok(seg.state().error, 'the error is kept for the tooltip');
    assert.ok(r.header().dropped > 0);
  });

  it('remove() deletes the segment file; reading a missing segment yields nothing', async () => {
    const { r, seg } = recorder(4, 1 << 20);
    for (let i = 0; i < 20; i++) r.emit(ev(i));
    assert.ok(existsSync(seg.path));
    seg.remove();
    assert.equal(existsSync(seg.path), false);
    assert.deepEqual(await collect(readSegment(seg.path)), []);
  });

  it("the host's mirror holds exactly the worker recorder's window, batch after batch, and reads the spilled rest back", async () => {
    const { r, seg } = recorder(20, 1 << 20);
    const mirror = new TraceMirror(r.header(), r.header().cap);
    let pending: RecordedEvent[] = [];
    r.subscribe((b) => pending.push(...b));
    for (let i = 0; i < 500; i++) {
      r.emit(ev(i));
      if (i % 7 === 0) {
        mirror.append(pending, { dropped: r.dropped, spill: seg.state() });
        pending = [];
        assert.deepEqual(mirror.events(), r.events());
      }
    }
    mirror.append(pending, { dropped: r.dropped, spill: seg.state() });
    assert.deepEqual(mirror.events(), r.events());
    assert.deepEqual((await collect(mirror.allEvents())).map((e) => e.seq), Array.from({ length: 500 }, (_, i) => i));
  });
});
