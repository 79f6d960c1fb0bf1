import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../../src/format/events';
import { replay } from '../../../src/app/sessions';
import { encodeBatch } from '../../../src/protocol/eventColumns';
import { validateScenario } from '../../../src/scenario/validate';
import { TraceRecorder } from '../../../src/trace/recorder';
import { SegmentFile } from '../../../src/trace/segments';
import { readSpilledRange } from '../../../src/trace/segmentRange';
import { TimelineData } from '../../../webview/model/timelineData';
import { lowerBound, upperBound } from '../../../webview/model/packed';
import type { PackedLane, ColumnSpec } from '../../../webview/model/packed';
import { header } from '../trace/fixtures';

const SCENARIOS = join(__dirname, '../../conformance/scenarios');

/** The events of the scenarios with the most events, replayed through the engine. */
async function bigTraces(n: number): Promise<{ name: string; events: RecordedEvent[] }[]> {
  const out: { name: string; events: RecordedEvent[] }[] = [];
  for (const f of readdirSync(SCENARIOS).filter((x) => x.endsWith('.json'))) {
    const scenario = validateScenario(JSON.parse(readFileSync(join(SCENARIOS, f), 'utf8')), f).scenario!;
    const run = await replay(scenario, { trace: true });
    out.push({ name: f, events: [...run.recorder!.events()] });
  }
  return out.sort((a, b) => b.events.length - a.events.length).slice(0, n);
}

/** The rows of a lane, column by column (optionally only those with t in [t0, t1]). */
function rows<S extends ColumnSpec>(lane: PackedLane<S> | undefined, span?: [number, number]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  if (!lane) return out;
  const t = lane.columns.t as unknown as Float64Array;
  const from = span ? lowerBound(t, lane.length, span[0]) : 0;
  const to = span ? upperBound(t, lane.length, span[1]) : lane.length;
  for (const [name, col] of Object.entries(lane.columns)) out[name] = [...(col as Float64Array).subarray(from, to)];
  return out;
}

function lanes(d: TimelineData, span?: [number, number]) {
  return {
    states: rows(d.states, span),
    marks: rows(d.marks, span),
    depth: rows(d.depth, span),
    deltas: rows(d.deltas, span),
    identical: rows(d.identical, span),
    tombstones: rows(d.tombstones, span),
    handlers: [...d.handlers].map(([name, lane]) => [name, rows(lane, span)]),
  };
}

/** A dense synthetic run: ten events per millisecond, a relist and a state change every 400 events. */
function bursts(n: number): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  for (let i = 0; i < n; i++) {
    const t = Math.floor(i / 10);
    const key = `ns/p${i % 13}`;
    const e =
      i % 400 === 0
        ? { type: 'relist', reason: 'Expired', row: 1, rv: String(i), consistent: true, text: 'expired' }
        : i % 400 === 1
          ? { type: 'reflector.state', state: i % 800 === 1 ? 'listing' : 'watching' }
          : i % 4 === 0
            ? { type: 'fifo.enqueue', key, delta: i % 3 === 0 ? 'Updated' : 'Added', rv: String(i), depthKeys: i % 17, depthDeltas: i % 23, ...(i % 97 === 0 ? { tombstone: 'replace-known' } : {}) }
            : i % 4 === 1
              ? { type: 'distribute', op: 'update', key, isSync: false, delivered: 2, skipped: 0, change: i % 3 ? 'identical' : 'status' }
              : { type: 'notify', handler: i % 4 === 2 ? 'main' : 'audit', op: i % 5 === 0 ? 'delete' : 'update', key, rv: String(i), isSync: i % 7 === 0, pending: 0, ...(i % 5 === 0 && i % 2 === 0 ? { tombstone: true } : {}) };
    out.push({ ...e, t, seq: i } as RecordedEvent);
  }
  return out;
}

const withoutDiff = (e: RecordedEvent) => {
  const { diff: _d, ...rest } = e as RecordedEvent & { diff?: unknown };
  return rest;
};

describe('webview model: lanes of spilled events', function () {
  this.timeout(60_000);
  let dir: string;
  let traces: { name: string; events: RecordedEvent[] }[];
  before(async () => {
    traces = await bigTraces(4);
    // One longer run: the four one after the other, each repeated three times, later in time.
    const long: RecordedEvent[] = [];
    let offset = 0;
    for (let round = 0; round < 3; round++) {
      for (const t of traces) {
        for (const e of t.events) long.push({ ...e, t: e.t + offset, seq: long.length });
        offset = long[long.length - 1].t + 1000;
      }
    }
    traces.push({ name: 'four scenarios, three times', events: long });
    traces.push({ name: 'bursts', events: bursts(3000) });
  });
  after(() => console.log(`      (events per trace: ${traces.map((t) => t.events.length).join(', ')})`));
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spilled-lanes-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Records the events again through a recorder with a tiny window and a segment: most of them spill. */
  function spillAll(events: readonly RecordedEvent[], cap: number) {
    const { dropped: _d, ...h } = header({ redacted: false } as never);
    const seg = new SegmentFile({ dir, maxBytes: 1 << 26, name: 'lanes' });
    const r = new TraceRecorder({ ...h, redacted: false }, cap, seg);
    for (const { seq: _s, ...e } of events) r.emit(e as never);
    return { r, seg };
  }

  it('the scenarios spill (the test has something to compare)', () => {
    for (const t of traces) assert.ok(t.events.length >= 60, `${t.name}: ${t.events.length} events`);
  });

  it('lanes built from a range read of the whole spilled span equal the lanes of the same events in memory', async () => {
    for (const t of traces) {
      const { r, seg } = spillAll(t.events, 20);
      const memory = r.since(-1);
      assert.ok(seg.state().events > 0, `${t.name} spilled`);
      const inMemory = new TimelineData();
      inMemory.append(t.events);
      const range = await readSpilledRange(seg.state(), -Infinity, Infinity);
      const spilled = new TimelineData();
      spilled.setSpill(r.spillOverview());
      assert.ok(spilled.loadSpilled({ batch: encodeBatch(range.events), t0: range.t0, t1: range.t1, complete: range.complete }));
      assert.ok(spilled.appendColumns(encodeBatch(memory)));
      assert.deepEqual(lanes(spilled), lanes(inMemory), t.name);
      assert.equal(spilled.eventCount, t.events.length);
      assert.equal(spilled.firstT, inMemory.firstT);
      for (const i of [0, 7, Math.floor(t.events.length / 2)]) assert.deepEqual(spilled.eventAt(i), withoutDiff(t.events[i]), `${t.name} event ${i}`);
      assert.equal(spilled.overview!.events, 0, 'nothing is left to the overview once everything is loaded');
    }
  });

  it('unloaded, the overview draws every mark and state exactly and counts the rest', async () => {
    let grouped = 0;
    for (const t of traces) {
      // Chunks of a tenth of the window: large enough that overview rows count several events.
      const { r } = spillAll(t.events, Math.max(20, Math.floor(t.events.length / 3)));
      grouped += r.spillOverview()!.dense.filter((row) => row.count > 1).length;
      const inMemory = new TimelineData();
      inMemory.append(t.events);
      const d = new TimelineData();
      d.setSpill(r.spillOverview());
      d.appendColumns(encodeBatch(r.since(-1)));
      assert.deepEqual(rows(d.marks), rows(inMemory.marks), `${t.name} marks`);
      assert.deepEqual(rows(d.states), rows(inMemory.states), `${t.name} states`);
      const firstHeld = r.since(-1)[0].seq;
      const o = d.overview!;
      const weight = (lane: { length: number; columns: { w: Float64Array } }) => lane.columns.w.subarray(0, lane.length).reduce((a, b) => a + b, 0);
      const before = (lane: { length: number; columns: { seq: Float64Array } }) => lane.columns.seq.subarray(0, lane.length).filter((s) => s < firstHeld).length;
      assert.equal(weight(o.deltas), before(inMemory.deltas), `${t.name} deltas`);
      assert.equal(weight(o.identical), before(inMemory.identical), `${t.name} identical`);
      assert.equal(weight(o.tombstones), before(inMemory.tombstones), `${t.name} tombstones`);
      for (const [name, lane] of inMemory.handlers) assert.equal(o.handlers.has(name) ? weight(o.handlers.get(name)!) : 0, before(lane), `${t.name} handler ${name}`);
      assert.deepEqual([...d.handlers.keys()].sort(), [...inMemory.handlers.keys()].sort());
    }
    assert.ok(grouped > 0, 'some overview rows count more than one event');
  });

  it('a range loaded in the middle is drawn as in memory there, and the overview covers only the rest', async () => {
    const t = traces[0];
    const { r, seg } = spillAll(t.events, 20);
    const chunks = seg.state().chunks;
    assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
    const a = chunks[1];
    const b = chunks[2];
    const range = await readSpilledRange(seg.state(), a.t0, b.t1);
    const inMemory = new TimelineData();
    inMemory.append(t.events);
    const d = new TimelineData();
    d.setSpill(r.spillOverview());
    d.appendColumns(encodeBatch(r.since(-1)));
    d.loadSpilled({ batch: encodeBatch(range.events), t0: range.t0, t1: range.t1, complete: range.complete });
    // Strictly inside the loaded span (its edges may hold events of the neighbouring chunks at the same time).
    const inner: [number, number] = [range.t0 + 1e-6, range.t1 - 1e-6];
    const picked = lanes(d, inner);
    const expected = lanes(inMemory, inner);
    assert.deepEqual(picked.deltas, expected.deltas);
    const byName = (h: typeof picked.handlers) => Object.fromEntries(h.map(([n, l]) => [n as string, l]));
    assert.deepEqual(byName(picked.handlers), byName(expected.handlers));
    assert.deepEqual(picked.marks, expected.marks);
    assert.ok(d.indexOfSeq(a.firstSeq) >= 0 && d.indexOfSeq(b.lastSeq) >= 0, 'the loaded events are there');
    assert.equal(d.indexOfSeq(chunks[0].firstSeq + 1) >= 0, t.events[chunks[0].firstSeq + 1] !== undefined && ['reflector.state', 'list.done', 'watch.start', 'relist', 'synced', 'handler.added', 'informer.start', 'list.start'].includes(t.events[chunks[0].firstSeq + 1].type));
    // Loading nothing again brings the overview back whole.
    d.loadSpilled(undefined);
    assert.equal(d.eventCount, r.spillOverview()!.exact.length + r.since(-1).length);
  });
});
