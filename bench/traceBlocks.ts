/**
 * Where a block's cost goes when a JSON-only trace's columns travel in blocks while the file is
 * decoded (src/app/traceBlocks.ts, docs/BENCHMARKS.md "A JSON-only open with its columns sent while
 * decoding"), in one Node process, per round, alternating the two ways:
 *
 *   - worker: the lines decoded into columns whole (readTraceColumns) against in blocks
 *     (readTraceColumnsInBlocks: the same decode plus each block's copies);
 *   - host: the blocks put together and their summary counted (BlockAssembler; against
 *     summaryOfBatch of the whole, as the worker counted it before) and each packed for the webview (packColumns),
 *     against packing the whole columns once;
 *   - webview model: each block unpacked and taken in (TimelineData.appendPart: store and lanes),
 *     against the whole snapshot unpacked and taken in (appendColumns);
 *   - the file's read (readFile) for scale: what reading while decoding could hide at most.
 *
 * CPU ms of this thread per step (sum over the blocks, and the largest block).
 *
 * Run: node --import tsx bench/traceBlocks.ts FILE [--rounds R] [--block N]
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BlockAssembler, blockStart, readTraceColumnsInBlocks, type BlockMessage } from '../src/app/traceBlocks';
import type { ColumnBatch } from '../src/protocol/eventColumns';
import { readTraceColumns } from '../src/app/traceRows';
import { summaryOfBatch } from '../src/app/traceColumns';
import { packColumns } from '../src/protocol/columnPack';
import { TimelineData } from '../webview/model/timelineData';

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

async function main(): Promise<void> {
  const file = process.argv[2];
  const rounds = Number(arg('rounds', '3'));
  const every = Number(arg('block', '131072'));
  const bytes = readFileSync(file);
  for (let r = 0; r < rounds; r++) {
    let t = cpu();
    let w = Date.now();
    await readFile(file);
    const readMs = [cpu() - t, Date.now() - w];

    t = cpu();
    const whole = readTraceColumns(bytes)!;
    const decodeWhole = cpu() - t;
    t = cpu();
    const packWhole = packColumns(whole.batch);
    const packWholeMs = cpu() - t;
    t = cpu();
    const dw = new TimelineData();
    dw.appendColumns(packWhole);
    const applyWhole = cpu() - t;

    const blocks: BlockMessage[] = [];
    t = cpu();
    const inBlocks = readTraceColumnsInBlocks(bytes, every, (b) => blocks.push(b))!;
    const decodeBlocks = cpu() - t;
    const asm = new BlockAssembler();
    // Put together and the summary counted from each block (the host's part of the summary).
    let assemble = 0;
    let pack = 0;
    let packMax = 0;
    let apply = 0;
    let applyMax = 0;
    const db = new TimelineData();
    let stringsFrom = 0;
    for (const b of blocks) {
      t = cpu();
      asm.add(b);
      assemble += cpu() - t;
      t = cpu();
      const p = packColumns({ count: b.count, columns: b.columns as ColumnBatch['columns'], strings: b.strings, extras: b.extras }, blockStart(b));
      const pk = cpu() - t;
      pack += pk;
      packMax = Math.max(packMax, pk);
      t = cpu();
      if (!db.appendPart({ from: b.from, total: b.total, stringsFrom, columns: p })) throw new Error(`block ${b.index} not taken`);
      const ap = cpu() - t;
      stringsFrom += b.strings.length;
      apply += ap;
      applyMax = Math.max(applyMax, ap);
    }
    const done = asm.finish(blocks.length, inBlocks.lines.batch.count);
    if (typeof done === 'string') throw new Error(done);
    t = cpu();
    const summary = summaryOfBatch(whole.batch);
    const summaryWhole = cpu() - t;
    if (JSON.stringify(summary) !== JSON.stringify(done.summary)) throw new Error('the blocks made another summary');
    if (db.eventCount !== dw.eventCount || db.marks.length !== dw.marks.length || db.lastEventT !== dw.lastEventT) throw new Error('the blocks made other data');
    const f = (x: number) => x.toFixed(0);
    console.log(
      `round ${r + 1}: read ${f(readMs[0])} CPU / ${f(readMs[1])} wall; decode whole ${f(decodeWhole)} (then its summary ${f(summaryWhole)}), in ${blocks.length} blocks ${f(decodeBlocks)}; ` +
        `host: pack whole ${f(packWholeMs)}, blocks assembled + summary ${f(assemble)} + packed ${f(pack)} (largest ${f(packMax)}); ` +
        `webview model: whole ${f(applyWhole)}, blocks ${f(apply)} (largest ${f(applyMax)}); packed MB whole ${(packWhole.packed.byteLength / 1e6).toFixed(1)}`,
    );
  }
}

void main();
