import { strict as assert } from 'node:assert';
import { COLUMN_NAMES, EVENT_COLUMNS, EXTRA, allocateColumns, decodeBatch, encodeBatch, type ColumnBatch, type ColumnName } from '../../../src/protocol/eventColumns';
import { PACKING, packColumns, unpackColumns, unpackColumnsInto, type PackedColumns } from '../../../src/protocol/columnPack';
import { SnapshotNotification } from '../../../src/protocol/timeline';
import { TimelineData } from '../../../webview/model/timelineData';
import { SAMPLE_EVENTS, numbered } from '../trace/fixtures';
import { scenarioTraces } from '../trace/scenarioTraces';

/** Every column of a batch as plain numbers (NaN kept, -0 told apart by Object.is in assertions). */
function columnsOf(b: ColumnBatch): Record<ColumnName, number[]> {
  const out = {} as Record<ColumnName, number[]>;
  for (const name of COLUMN_NAMES) out[name] = Array.from(new EVENT_COLUMNS[name](b.columns[name], 0, b.count));
  return out;
}

function assertSameColumns(got: ColumnBatch, want: ColumnBatch, what: string): void {
  assert.equal(got.count, want.count, what);
  const g = columnsOf(got);
  const w = columnsOf(want);
  for (const name of COLUMN_NAMES) {
    assert.equal(got.columns[name].byteLength, want.count * EVENT_COLUMNS[name].BYTES_PER_ELEMENT, `${what}: ${name} length`);
    for (let i = 0; i < want.count; i++) {
      const a = g[name][i];
      const b = w[name][i];
      if (!(Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)))) assert.fail(`${what}: ${name}[${i}] is ${a}, was ${b}`);
    }
  }
  assert.deepEqual(got.strings, want.strings);
  assert.deepEqual(got.extras, want.extras);
}

/** A batch with the values that are hard to pack: fractions, -0, NaN, huge and negative numbers, the extremes of each type, runs. */
function awkward(n: number): ColumnBatch {
  const cols = allocateColumns(n);
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const floats = [0, -0, 1.5, -3.25, NaN, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 60, 1e-300, Number.MAX_VALUE, -17, 99000, 99001, 99002, 1234.5678901234];
  for (let i = 0; i < n; i++) {
    const pick = rnd();
    cols.seq[i] = i < n / 2 ? i * 2 : 10 ** 15 + i; // a jump larger than a delta token holds
    cols.t[i] = pick < 0.3 ? floats[i % floats.length] : pick < 0.6 ? 1000 + Math.floor(i / 7) : rnd() * 1e6;
    cols.rv[i] = floats[Math.floor(rnd() * floats.length)];
    cols.oldRv[i] = pick < 0.5 ? NaN : -Math.floor(rnd() * 5000) - 1;
    cols.type[i] = i % 9 === 0 ? 255 : Math.floor(rnd() * 6);
    cols.key[i] = pick < 0.1 ? 0xffffffff : pick < 0.2 ? 0 : Math.floor(i / 3);
    cols.name[i] = Math.floor(rnd() * 2 ** 32);
    cols.n1[i] = i % 2 ? 0xffffffff : 0;
    cols.n2[i] = 5;
    cols.flags[i] = Math.floor(rnd() * 2 ** 15);
  }
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) columns[name] = cols[name].buffer as ArrayBuffer;
  return { count: n, columns, strings: ['a', 'b'], extras: [] };
}

/**
 * The packing as columnPack.ts's comment states it, written plainly (one token at a time, the
 * arithmetic as stated): the bytes packColumns writes must be these, so a faster packer cannot
 * change the format a webview of the same build reads.
 */
function packedAsStated(b: ColumnBatch): number[] {
  const out: number[] = [];
  const varint = (x: number) => {
    for (; x >= 128; x = Math.floor(x / 128)) out.push((x % 128) | 128);
    out.push(x);
  };
  const zz = (d: number) => (d >= 0 ? 2 * d : -2 * d - 1);
  for (const name of COLUMN_NAMES) {
    const col = Array.from(new EVENT_COLUMNS[name](b.columns[name], 0, b.count));
    const float = EVENT_COLUMNS[name] === Float64Array;
    // Each value's token: [kind, x] where kind tells what a repeat of it is.
    const tokens: { x: number; raw?: number }[] = [];
    let prev = 0;
    let base = 0;
    for (const v of col) {
      if (!float) {
        tokens.push({ x: 2 * zz(v - prev) });
        prev = v;
      } else if (Number.isNaN(v)) tokens.push({ x: 1 });
      else if (Number.isSafeInteger(v) && !Object.is(v, -0) && Math.abs(v - base) < 2 ** 49) {
        tokens.push({ x: 4 * zz(v - base) });
        base = v;
      } else tokens.push({ x: 2, raw: v });
    }
    for (let i = 0; i < tokens.length; ) {
      const t = tokens[i];
      let k = 1;
      while (i + k < tokens.length && tokens[i + k].x === t.x && (t.raw === undefined || Object.is(tokens[i + k].raw, t.raw))) k++;
      varint(t.x);
      if (t.raw !== undefined) out.push(...new Uint8Array(new Float64Array([t.raw]).buffer));
      if (k > 1) varint(float ? 4 * (k - 1) + 3 : 2 * (k - 1) + 1);
      i += k;
    }
  }
  return out;
}

describe('protocol: packed columns (a snapshot on its way to the webview)', () => {
  it('every conformance scenario trace and the samples unpack to exactly the columns they were packed from, and fewer bytes', async function () {
    this.timeout(60_000);
    const sets = [...(await scenarioTraces()).map((x) => x.trace.events), numbered(Object.values(SAMPLE_EVENTS))];
    let rows = 0;
    let plain = 0;
    let packed = 0;
    for (const events of sets) {
      const batch = encodeBatch(events);
      const p = packColumns(batch);
      assertSameColumns(unpackColumns(p)!, batch, `${events.length} events`);
      assert.deepEqual(decodeBatch(unpackColumns(p)!), decodeBatch(batch));
      rows += batch.count;
      plain += COLUMN_NAMES.reduce((s, n) => s + batch.columns[n].byteLength, 0);
      packed += p.packed.byteLength;
    }
    assert.ok(rows > 1000, `${rows} rows`);
    // 53 bytes per row unpacked; the scenarios' replays (virtual time, small numbers) pack well under a third of that.
    assert.ok(packed * 3 < plain, `packed ${packed} bytes of ${plain}`);
  });

  it('packs exactly the bytes the format states, for the scenario traces and awkward values', async function () {
    this.timeout(60_000);
    const batches = [...(await scenarioTraces()).slice(0, 40).map((x) => encodeBatch(x.trace.events)), ...[0, 1, 2, 3, 17, 5000].map(awkward)];
    for (const b of batches) assert.deepEqual([...new Uint8Array(packColumns(b).packed)], packedAsStated(b), `${b.count} rows`);
  });

  it('awkward values come back exactly: fractions, -0, NaN, beyond 2^53, each type at its extremes, long runs', () => {
    for (const n of [0, 1, 2, 3, 17, 5000]) {
      const b = awkward(n);
      assertSameColumns(unpackColumns(packColumns(b))!, b, `${n} rows`);
    }
  });

  it('a run of consecutive seqs and equal times costs a few bytes, however long', () => {
    const n = 100_000;
    const cols = allocateColumns(n);
    for (let i = 0; i < n; i++) {
      cols.seq[i] = i + 1;
      cols.t[i] = 42;
      cols.rv[i] = cols.oldRv[i] = NaN;
    }
    const columns = {} as Record<ColumnName, ArrayBuffer>;
    for (const name of COLUMN_NAMES) columns[name] = cols[name].buffer as ArrayBuffer;
    const b: ColumnBatch = { count: n, columns, strings: [], extras: [] };
    const p = packColumns(b);
    assert.ok(p.packed.byteLength < 60, `${p.packed.byteLength} bytes`);
    assertSameColumns(unpackColumns(p)!, b, 'runs');
  });

  it('packing the same batch again gives the same packed object (a re-shown view does not pack again)', () => {
    const b = encodeBatch(numbered(Object.values(SAMPLE_EVENTS)));
    assert.equal(packColumns(b), packColumns(b));
  });

  it('bytes that do not decode to exactly count values per column are refused, never thrown on', () => {
    const b = awkward(300);
    const p = packColumns(b);
    const bytes = new Uint8Array(p.packed);
    const variants: [string, PackedColumns][] = [
      ['cut short', { ...p, packed: p.packed.slice(0, p.packed.byteLength - 3) }],
      ['a byte too many', { ...p, packed: new Uint8Array([...bytes, 0]).buffer }],
      ['count one more', { ...p, count: p.count + 1 }],
      ['count one less', { ...p, count: p.count - 1 }],
      ['another packing', { ...p, packing: PACKING + 1 }],
      ['negative count', { ...p, count: -1 }],
      ['not a buffer', { ...p, packed: bytes as unknown as ArrayBuffer }],
      ['empty', { ...p, packed: new ArrayBuffer(0) }],
      ['a repeat before any value', { ...p, count: 1, packed: new Uint8Array([3]).buffer }],
      ['a varint that never ends', { ...p, count: 1, packed: new Uint8Array(12).fill(0xff).buffer }],
      ['a type code past 255', { count: 1, packing: PACKING, packed: new Uint8Array([0, 0, 0x80, 0x04]).buffer, strings: [], extras: [] }],
    ];
    for (const [what, v] of variants) assert.equal(unpackColumns(v), undefined, what);
    // Flipping bytes anywhere never throws: it unpacks to something or is refused.
    for (let i = 0; i < bytes.length; i += 7) {
      const garbled = bytes.slice();
      garbled[i] ^= 0x5a;
      assert.doesNotThrow(() => unpackColumns({ ...p, packed: garbled.buffer }));
    }
  });

  it('a run that carries a value out of its column\'s range is refused', () => {
    const varint = (x: number): number[] => {
      const out: number[] = [];
      for (; x >= 128; x = Math.floor(x / 128)) out.push((x % 128) | 128);
      return [...out, x];
    };
    const zz = (d: number) => (d >= 0 ? 2 * d : -2 * d - 1);
    // Three rows: seq 1, 2, 3; every other column 0 three times but `type` (Uint8), whose tokens are given.
    const packedOf = (type: number[]): PackedColumns => {
      const tokens: number[] = [];
      for (const name of COLUMN_NAMES) {
        const float = EVENT_COLUMNS[name] === Float64Array;
        if (name === 'type') tokens.push(...type);
        else if (float) tokens.push(...varint(4 * zz(name === 'seq' ? 1 : 0)), ...varint(4 * 2 + 3));
        else tokens.push(...varint(0), ...varint(2 * 2 + 1));
      }
      return { count: 3, packing: PACKING, packed: new Uint8Array(tokens).buffer, strings: [], extras: [] };
    };
    const value = (d: number) => varint(2 * zz(d));
    const repeat = (k: number) => varint(2 * k + 1);
    const ok = unpackColumns(packedOf([...value(200), ...value(25), ...repeat(1)]));
    assert.ok(ok, 'the run in range: 200, 225, 250');
    assert.deepEqual([...new Uint8Array(ok.columns.type)], [200, 225, 250]);
    assert.equal(unpackColumns(packedOf([...value(200), ...value(50), ...repeat(1)])), undefined, '200, 250, then 300');
    assert.equal(unpackColumns(packedOf([...value(5), ...value(-3), ...repeat(1)])), undefined, '5, 2, then -1');
    assert.equal(unpackColumns(packedOf([...value(250), ...repeat(2)])), undefined, 'a run of 250s: 250, 500, 750');
  });

  it('blocks unpacked straight into the store make the model the whole batch makes; a malformed block is refused', async () => {
    const events = (await scenarioTraces()).map((x) => x.trace.events).reduce((a, b) => (b.length > a.length ? b : a));
    const batch = encodeBatch(events);
    const whole = new TimelineData();
    assert.ok(whole.appendColumns(batch));
    const blocksOf = (size: number) => {
      const out: { from: number; total: number; stringsFrom: number; columns: PackedColumns }[] = [];
      let extrasFrom = 0;
      const type = new Uint8Array(batch.columns.type);
      for (let from = 0; from < batch.count; from += size) {
        const to = Math.min(batch.count, from + size);
        const columns = {} as Record<ColumnName, ArrayBuffer>;
        for (const name of COLUMN_NAMES) columns[name] = batch.columns[name].slice(from * EVENT_COLUMNS[name].BYTES_PER_ELEMENT, to * EVENT_COLUMNS[name].BYTES_PER_ELEMENT);
        let extras = 0;
        for (let i = from; i < to; i++) if (type[i] === EXTRA) extras++;
        const block: ColumnBatch = { count: to - from, columns, strings: from === 0 ? batch.strings : [], extras: batch.extras.slice(extrasFrom, extrasFrom + extras) };
        extrasFrom += extras;
        out.push({ from, total: batch.count, stringsFrom: from === 0 ? 0 : batch.strings.length, columns: packColumns(block) });
      }
      return out;
    };
    const parts = blocksOf(Math.ceil(events.length / 5));
    assert.ok(parts.length >= 5, `${events.length} events`);
    const inParts = new TimelineData();
    for (const p of parts) assert.ok(inParts.appendPart(p), `part from ${p.from}`);
    assert.deepEqual(inParts.allEvents(), whole.allEvents());
    for (const lane of ['marks', 'depth', 'deltas', 'identical', 'tombstones', 'states'] as const) {
      assert.equal(inParts[lane].length, whole[lane].length, lane);
      assert.deepEqual(inParts[lane].columns.t.slice(0, inParts[lane].length), whole[lane].columns.t.slice(0, whole[lane].length), lane);
    }
    const bad: [string, (p: (typeof parts)[0]) => (typeof parts)[0]][] = [
      ['bytes cut short', (p) => ({ ...p, columns: { ...p.columns, packed: p.columns.packed.slice(0, p.columns.packed.byteLength - 2) } })],
      ['rows past the total', (p) => ({ ...p, total: p.from + 1 })],
      ['not where the rows held end', (p) => ({ ...p, from: p.from + 1 })],
      ['strings that do not follow on', (p) => ({ ...p, stringsFrom: p.stringsFrom + 1 })],
      ['a whole event too many', (p) => ({ ...p, columns: { ...p.columns, extras: [...p.columns.extras, events[0]] } })],
    ];
    for (const [what, change] of bad) {
      const d = new TimelineData();
      assert.ok(d.appendPart(parts[0]));
      assert.equal(d.appendPart(change(parts[1])), false, what);
      assert.equal(d.eventCount, parts[0].columns.count, `${what}: the rows held stay`);
    }
    // No room in the arrays given: refused, not written past them.
    const small = allocateColumns(1);
    assert.equal(unpackColumnsInto(parts[0].columns, small), false);
  });

  it('the snapshot guard admits packed columns, and the webview model shows them as the plain ones', async () => {
    const events = (await scenarioTraces())[0].trace.events;
    const batch = encodeBatch(events);
    const plain = new TimelineData();
    assert.ok(plain.appendColumns(batch));
    const fromPacked = new TimelineData();
    assert.ok(fromPacked.appendColumns(packColumns(batch)));
    assert.deepEqual(fromPacked.allEvents(), plain.allEvents());
    assert.deepEqual(fromPacked.marks.columns.t.slice(0, fromPacked.marks.length), plain.marks.columns.t.slice(0, plain.marks.length));
    const msg = SnapshotNotification.create({ session: { id: 's', title: 's', live: false, simulated: false }, header: { format: 'informer-trace/v1', profile: 'v1.36', resource: { resource: 'pods' }, startedAt: 'x', source: 'import' } as never, events: [], columns: packColumns(batch), findings: [], sessions: [] });
    assert.ok(SnapshotNotification.is(msg));
    assert.ok(!SnapshotNotification.is({ ...msg, params: { ...msg.params, columns: { ...packColumns(batch), packed: 'bytes' } } }));
  });
});
