/**
 * A trace read from its JSON sends its columns in blocks while the lines are decoded
 * (src/app/traceBlocks.ts, traceRead.ts): the blocks come in order and cover every row once; the
 * host puts them together into exactly the trace a read in one piece gives (columns, strings,
 * whole events, summary, findings, the companion byte for byte); a file that fails half way has
 * sent blocks and still answers "not read here" (the importer then names the problem); a block
 * that does not follow on breaks the set, and every block after it is refused.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ColumnarTrace } from '../../../src/app/traceColumns';
import { readTraceHere, readTraceInWorker } from '../../../src/app/traceRead';
import { BlockAssembler, readTraceColumnsInBlocks, type BlockMessage } from '../../../src/app/traceBlocks';
import { COLUMN_NAMES } from '../../../src/protocol/eventColumns';
import { companionPath } from '../../../src/trace/traceCompanion';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { scenarioTraces } from '../trace/scenarioTraces';
import { header, numbered, SAMPLE_EVENTS } from '../trace/fixtures';
import { traceReadWorkerBundle } from '../../support/traceReadWorker';

const EVERY = 7;

/** The blocks cover rows 0 … total - 1 once, in order, each of `every` rows but the last; their strings follow on. */
function assertInOrder(blocks: BlockMessage[], count: number, every = EVERY): void {
  let rows = 0;
  let strings = 0;
  for (const [i, b] of blocks.entries()) {
    assert.equal(b.index, i, 'blocks come in order');
    assert.equal(b.from, rows, 'each block starts where the one before ended');
    assert.equal(b.total, count);
    assert.equal(b.stringsFrom, strings, "each block's strings follow those before");
    if (i < blocks.length - 1) assert.equal(b.count, every);
    rows += b.count;
    strings += b.strings.length;
  }
  assert.equal(rows, count, 'the blocks hold every row');
}

describe('app: a trace read from its JSON sends its columns in blocks while it is decoded (traceBlocks)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trace-blocks-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('every conformance trace (one in 25 through the worker): blocks in order, put together into the same trace as one piece — columns, strings, whole events, summary, findings — and the same companion, byte for byte', async function () {
    this.timeout(240_000);
    const traces = (await scenarioTraces()).map((x) => x.trace);
    let blocked = 0;
    for (const [n, trace] of traces.entries()) {
      const path = join(dir, `t${n}.informer-trace.json`);
      writeFileSync(path, exportTrace(trace));
      const whole = await readTraceHere(path, 0);
      assert.ok(whole instanceof ColumnarTrace);
      await whole.checked;
      const companion = readFileSync(companionPath(path));
      rmSync(companionPath(path));
      const blocks: BlockMessage[] = [];
      const viaWorker = n % 25 === 0;
      const c = viaWorker
        ? await readTraceInWorker(path, { workerFile: traceReadWorkerBundle(), companionMinEvents: 0, checkAfterMs: 0, blockLines: EVERY, onBlock: (b) => blocks.push(b) })
        : await readTraceHere(path, 0, undefined, { lines: EVERY, onBlock: (b) => blocks.push(b) });
      assert.ok(c instanceof ColumnarTrace, `trace ${n}: ${JSON.stringify(c)}`);
      if (whole.count > EVERY) {
        blocked++;
        assertInOrder(blocks, whole.count);
      } else {
        assert.equal(blocks.length, 0, 'a trace of one block goes in one piece');
      }
      for (const name of COLUMN_NAMES) assert.deepEqual(Buffer.from(c.batch.columns[name]), Buffer.from(whole.batch.columns[name]), `trace ${n}: column ${name}`);
      assert.deepEqual(c.batch.strings, whole.batch.strings);
      assert.deepEqual(c.batch.extras, whole.batch.extras);
      assert.deepEqual(c.summary, whole.summary, `trace ${n}: the summary counted from the blocks`);
      assert.deepEqual(await c.findingsReady, await whole.findingsReady);
      const check = await c.checked;
      assert.ok(check.companion, `trace ${n}: a companion was written`);
      assert.ok(readFileSync(companionPath(path)).equals(companion), `trace ${n}: the companion is the one a read in one piece writes`);
    }
    assert.ok(blocked > traces.length / 2, `most traces came in blocks (${blocked} of ${traces.length})`);
  });

  it('a file that fails half way: blocks were sent, then the answer is "not read here" and the importer names the problem in one line; nothing is a trace', async function () {
    this.timeout(60_000);
    const trace = (await scenarioTraces()).map((x) => x.trace).find((t) => t.events.length > 10 * EVERY);
    assert.ok(trace);
    const lines = exportTrace(trace).split('\n');
    // A line of the second half becomes an event of no known type.
    const bad = lines.findIndex((l, i) => i > lines.length / 2 && l.trimStart().startsWith('{"seq":'));
    assert.ok(bad > 0);
    const seq = (JSON.parse(lines[bad].trim().replace(/,$/, '')) as { seq: number }).seq;
    lines[bad] = lines[bad].replace(/\{.*\}/, `{"seq":${seq},"t":1,"type":"no.such.type"}`);
    const text = lines.join('\n');
    const path = join(dir, 'half.informer-trace.json');
    writeFileSync(path, text);
    for (const viaWorker of [false, true]) {
      const blocks: BlockMessage[] = [];
      const r = viaWorker
        ? await readTraceInWorker(path, { workerFile: traceReadWorkerBundle(), blockLines: EVERY, onBlock: (b) => blocks.push(b) })
        : await readTraceHere(path, 0, undefined, { lines: EVERY, onBlock: (b) => blocks.push(b) });
      assert.ok(blocks.length >= 2, `blocks were sent before the bad line (${blocks.length})`);
      assert.ok(blocks.at(-1)!.from + blocks.at(-1)!.count < blocks[0].total, 'but not every row');
      assert.ok(!(r instanceof ColumnarTrace), 'the open is not a trace');
      assert.equal(r.reason, undefined, 'the caller reads the text, and the importer names the problem');
    }
    assert.throws(
      () => importTrace(text),
      (e: Error) => !e.message.includes('\n') && /no\.such\.type|type/.test(e.message),
    );
  });

  it('the blocks name the columns the rows are decoded into (shared, not copied): the trace read is those buffers; a shared block of another size is refused', async function () {
    this.timeout(60_000);
    const trace = { header: header(), events: numbered(Array.from({ length: 40 }, (_, i) => ({ ...SAMPLE_EVENTS.rv, t: i, rv: String(100 + i) }))) };
    const bytes = new Uint8Array(Buffer.from(exportTrace(trace)));
    const blocks: BlockMessage[] = [];
    const read = readTraceColumnsInBlocks(bytes, 10, (b) => blocks.push(b));
    assert.ok(read);
    for (const b of blocks) for (const c of COLUMN_NAMES) assert.equal(b.columns[c], read.lines.batch.columns[c], `block ${b.index}: ${c} is the decoded column's buffer`);
    assert.ok(read.lines.batch.columns.seq instanceof SharedArrayBuffer);
    // Through the worker: the trace the host builds holds the worker's shared buffers.
    const path = join(dir, 'shared.informer-trace.json');
    writeFileSync(path, bytes);
    const got: BlockMessage[] = [];
    const c = await readTraceInWorker(path, { workerFile: traceReadWorkerBundle(), blockLines: 10, onBlock: (b) => got.push(b) });
    assert.ok(c instanceof ColumnarTrace);
    assert.equal(got.length, 4);
    for (const name of COLUMN_NAMES) {
      assert.ok(c.batch.columns[name] instanceof SharedArrayBuffer, `${name} is shared`);
      assert.deepEqual(Buffer.from(c.batch.columns[name]), Buffer.from(read.lines.batch.columns[name]));
    }
    // A later block whose shared buffer is not the size of the trace's columns breaks the set.
    const asm = new BlockAssembler();
    assert.ok(asm.add(blocks[0]));
    assert.equal(asm.add({ ...blocks[1], columns: { ...blocks[1].columns, t: new SharedArrayBuffer(8) } }), false);
    assert.match(String(asm.finish(4, 40)), /block 1 has a malformed t column/);
  });

  it('a block that does not follow on breaks the set: it and every block after it are refused, and the end says why in one line', () => {
    const bytes = new Uint8Array(Buffer.from(exportTrace({ header: header(), events: numbered(Array.from({ length: 40 }, (_, i) => ({ ...SAMPLE_EVENTS.rv, t: i, rv: String(100 + i) }))) })));
    const blocks: BlockMessage[] = [];
    const read = readTraceColumnsInBlocks(bytes, 10, (b) => blocks.push(b));
    assert.ok(read);
    assert.equal(read.blocks, 4);
    assertInOrder(blocks, 40, 10);
    // In order: the whole.
    const inOrder = new BlockAssembler();
    for (const b of blocks) assert.ok(inOrder.add(b));
    const all = inOrder.finish(4, 40);
    assert.ok(typeof all !== 'string', String(all));
    for (const name of COLUMN_NAMES) assert.deepEqual(Buffer.from(all.columns.get(name)!), Buffer.from(read.lines.batch.columns[name]));
    // Block 1 missing: block 2 is refused, and so is every block after, block 1 included.
    const gap = new BlockAssembler();
    assert.ok(gap.add(blocks[0]));
    assert.equal(gap.add(blocks[2]), false, 'a block after a gap');
    assert.equal(gap.add(blocks[1]), false, 'a block after a failure');
    assert.equal(gap.add(blocks[3]), false);
    const why = gap.finish(4, 40);
    assert.equal(typeof why, 'string');
    assert.ok(!(why as string).includes('\n'));
    // Too few blocks at the end.
    const short = new BlockAssembler();
    for (const b of blocks.slice(0, 3)) assert.ok(short.add(b));
    assert.match(short.finish(4, 40) as string, /3 of 4 blocks/);
    // A block whose strings do not follow on.
    const strings = new BlockAssembler();
    assert.ok(strings.add(blocks[0]));
    assert.equal(strings.add({ ...blocks[1], stringsFrom: blocks[1].stringsFrom + 1 }), false);
  });
});
