/**
 * The cost of showing spilled events (issue 12, "Long sessions lose nothing"): a real engine trace
 * of 300,000 events goes through a recorder with the default 200,000-event window and a spill
 * segment, so 100,000 events (5 chunks of 20,000) are on disk. Measured, 5 rounds each:
 * - the host's range read of all 100,000 spilled events (trace/segmentRange.ts: read the chunks'
 *   bytes, parse, check against the index) and their encoding as columns (what is sent);
 * - the webview's loading of them (TimelineData.loadSpilled: merge with the 200,000 memory rows
 *   and rebuild every lane);
 * - the overview's size: rows, JSON bytes, and the JS heap it takes (built again from the
 *   spilled events, heap measured after a full GC before and after).
 * - the extension host's event-loop delay while those 100,000 events load, by where they are read
 *   (spillLag.ts: on the host as before, in slices, in a reader worker, in a running worker).
 * Run: node --expose-gc --import tsx bench/spillRange.ts   (--only lag: the delay alone)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../src/format/events';
import { encodeBatch } from '../src/protocol/eventColumns';
import { TraceRecorder } from '../src/trace/recorder';
import { SegmentFile, DEFAULT_SPILL_LIMIT_BYTES } from '../src/trace/segments';
import { readSpilledRange } from '../src/trace/segmentRange';
import { SpillOverviewBuilder } from '../src/trace/spillOverview';
import { TimelineData } from '../webview/model/timelineData';
import { fmt, hasGc, heapUsed, startTiming, summarize, table, thousands } from './stats';
import { recordEngineTrace } from './traceSource';
import { spillLoadLag } from './spillLag';

const TOTAL = 300_000;
const CAP = 200_000;
const ROUNDS = 5;

async function main(): Promise<void> {
  const trace = await recordEngineTrace(TOTAL);
  const dir = mkdtempSync(join(tmpdir(), 'bench-spill-'));
  try {
    const { dropped: _d, ...h } = trace.header;
    const seg = new SegmentFile({ dir, maxBytes: DEFAULT_SPILL_LIMIT_BYTES, name: 'bench' });
    const r = new TraceRecorder({ ...h, cap: CAP }, CAP, seg);
    for (const { seq: _s, ...e } of trace.events) r.emit(e as never);
    const st = seg.state();
    const memory = [...r.events()];
    console.log(`spilled ${thousands(st.events)} events in ${st.chunks.length} chunks, ${(st.bytes / 1048576).toFixed(1)} MB; ${thousands(memory.length)} in memory`);

    if (process.argv.includes('--only') && process.argv.includes('lag')) {
      await spillLoadLag(st, ROUNDS);
      return;
    }
    const read: number[] = [];
    const encode: number[] = [];
    const load: number[] = [];
    let events: RecordedEvent[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let stop = startTiming();
      const range = await readSpilledRange(st, st.chunks[0].t0, st.chunks[st.chunks.length - 1].t1);
      read.push(stop().wallMs);
      events = range.events;
      stop = startTiming();
      const batch = encodeBatch(range.events);
      encode.push(stop().wallMs);
      const data = new TimelineData();
      data.setSpill(r.spillOverview());
      data.appendColumns(encodeBatch(memory));
      stop = startTiming();
      data.loadSpilled({ batch, t0: range.t0, t1: range.t1, complete: range.complete });
      load.push(stop().wallMs);
      if (data.eventCount !== TOTAL) throw new Error(`the view holds ${data.eventCount} events, not ${TOTAL}`);
    }
    if (events.length !== st.events) throw new Error(`read ${events.length} of ${st.events}`);

    const before = heapUsed();
    const builder = new SpillOverviewBuilder();
    let from = 0;
    for (const c of st.chunks) {
      builder.add(c, events.slice(from, from + c.count));
      from += c.count;
    }
    const overview = builder.overview();
    events = [];
    const after = heapUsed();
    const json = JSON.stringify(overview).length;
    console.log(
      table(
        ['measure (100,000 spilled events)', 'median ms (range, spread)'],
        [
          ['host: range read (read chunks, parse, check)', fmt(summarize(read))],
          ['host: encode as columns', fmt(summarize(encode))],
          ['webview: loadSpilled (merge with 200,000 memory rows, rebuild lanes)', fmt(summarize(load))],
        ],
      ),
    );
    console.log(
      `overview of ${thousands(st.events)} spilled events: ${overview.chunks.length} chunks, ${thousands(overview.exact.length)} exact events, ${thousands(overview.dense.length)} counted rows; ` +
        `${(json / 1024).toFixed(0)} KB as JSON; heap ${hasGc() ? `${((after - before) / 1024).toFixed(0)} KB` : 'not measured (run with --expose-gc)'}` +
        `; segment ${(st.bytes / 1048576).toFixed(1)} MB, so a full 1 GB segment (~${Math.round(1024 / (st.bytes / 1048576))}× more) would have an overview of about ${((json * 1024) / (st.bytes / 1048576) / 1048576).toFixed(1)} MB of JSON`,
    );
    void overview;
    await spillLoadLag(st, ROUNDS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
