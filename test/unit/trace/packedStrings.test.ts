import { strict as assert } from 'assert';
import { PackedStringTable, packStrings, type PackedStrings } from '../../../src/trace/packedStrings';
import { Chunk } from '../../../src/trace/eventChunk';

/** The table as the host gets it: cloned, its buffers moved (as postMessage does). */
function moved(p: PackedStrings): PackedStrings {
  return structuredClone(p, { transfer: [p.text, p.ends, p.otherAt].map((a) => a.buffer as ArrayBuffer).filter((b) => b.byteLength > 0) });
}

function roundTrip(entries: unknown[]): unknown[] {
  const t = new PackedStringTable(moved(packStrings(entries)));
  assert.equal(t.length, entries.length);
  return Array.from({ length: t.length }, (_, j) => t.entry(j));
}

describe('packed strings: a chunk string table as bytes for the host', () => {
  it('gives back every entry as it was: ASCII, beyond ASCII, empty, objects and odd values, lone surrogates', () => {
    const entries: unknown[] = [
      '', 'ns/a', 'é', 'ns/a', '日本語', '😀', 'a\u0000b', '', '\uD800', 'x\uDC00y', '😀\uD83D', { t: 1, type: 'x' }, ['Odd'], 'last',
      '[{"path":"metadata.resourceVersion","old":"41174","new":"51174"}]', '\u2028\u2029', 'ü'.repeat(70_000),
    ];
    assert.deepEqual(roundTrip(entries), entries);
    // A lone surrogate does not survive UTF-8: those entries travel as they are.
    const p = packStrings(entries);
    assert.deepEqual([...p.otherAt], [8, 9, 10, 11, 12]);
    assert.equal(p.ascii, false);
  });

  it('an ASCII table is read as one byte a character; empty tables and tables of others only', () => {
    const ascii = ['handler-0', 'update', 'team-b/web-40-7d9f8c6b5-00890', 'status', '"quoted" \\ back'];
    assert.equal(packStrings(ascii).ascii, true);
    assert.deepEqual(roundTrip(ascii), ascii);
    assert.deepEqual(roundTrip([]), []);
    const objects = [{ a: 1 }, [1, 2], 3, true, null];
    assert.deepEqual(roundTrip(objects), objects);
    assert.equal(packStrings(objects).text.byteLength, 0);
  });

  it('a string beyond ASCII at the end of an otherwise ASCII table is told apart, however little room is left', () => {
    for (const wide of ['é', '日', '😀', 'é日😀']) {
      for (let m = 1; m <= 4; m++) {
        for (const tail of ['', 'a', 'ab']) {
          const entries = ['abc', wide.repeat(m) + tail];
          assert.deepEqual(roundTrip(entries), entries, JSON.stringify(entries));
          assert.deepEqual(roundTrip([entries[1]]), [entries[1]]);
        }
      }
    }
  });

  it('whatever strings come, each comes back the same (random code units)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    for (let round = 0; round < 50; round++) {
      const entries: unknown[] = [];
      for (let j = rand(40); j > 0; j--) {
        if (rand(8) === 0) entries.push({ j });
        else {
          const units = Array.from({ length: rand(30) }, () => [rand(128), 0xe9, 0x65e5, 0xd83d, 0xde00, rand(0x10000)][rand(6)]);
          entries.push(String.fromCharCode(...units));
        }
      }
      assert.deepEqual(roundTrip(entries), entries, `round ${round}`);
    }
  });

  it('tables that do not fit together are refused, and so are the chunks that carry them', () => {
    const good = packStrings(['a', 'bc', { o: 1 }, 'd']);
    assert.ok(PackedStringTable.fits(good));
    assert.ok(!PackedStringTable.fits({ ...good, ends: new Uint32Array([1, 3, 3, 99]) }), 'an end past the text');
    assert.ok(!PackedStringTable.fits({ ...good, ends: new Uint32Array([2, 1, 1, 4]) }), 'ends going back');
    assert.ok(!PackedStringTable.fits({ ...good, otherAt: new Uint32Array([9]) }), 'an other past the table');
    assert.ok(!PackedStringTable.fits({ ...good, others: [] }), 'others without their values');
    assert.ok(!PackedStringTable.fits({ ...good, text: [1, 2] as unknown as Uint8Array }), 'text not bytes');
    const c = new Chunk(2, 8);
    c.add({ t: 1, type: 'fifo.dedup', key: 'ns/é', kept: 'newer' }, false);
    c.add({ t: 2, type: 'resync.timer', shouldResync: false, extra: 1 } as never, false);
    const p = c.parts();
    const back = Chunk.fromParts({ ...p, strings: moved(p.strings as PackedStrings) });
    assert.deepEqual(back.read(0, 0), { t: 1, type: 'fifo.dedup', key: 'ns/é', kept: 'newer', seq: 0 });
    assert.deepEqual(back.read(1, 1), { t: 2, type: 'resync.timer', shouldResync: false, extra: 1, seq: 1 });
    assert.throws(() => Chunk.fromParts({ ...p, strings: { ...(p.strings as PackedStrings), ends: new Uint32Array([99]) } }), /do not fit together/);
  });
});
