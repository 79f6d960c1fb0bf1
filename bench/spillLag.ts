/**
 * The extension host's event-loop delay while a range of spilled events loads (issue 12: p99 ≤ 20 ms
 * on the host). Each variant produces what the host sends the webview for the range — the columns
 * (SpilledColumns) — and the host "forwards" them (JSON.stringify of the message without its
 * buffers, as postMessage serialises it). Measured on this thread for each load, side by side in
 * interleaved rounds: `perf_hooks.monitorEventLoopDelay` (resolution 1 ms) p99 and max, the
 * thread's busy time (eventLoopUtilization().active) and the wall time until the columns are here.
 *
 * - host, a chunk per turn (before): segmentRange.ts read with a turn after each 20,000-event
 *   chunk only, then encodeBatch in one go — what the host did before the read moved to a worker;
 * - host, ≤ 8 ms slices: the same read yielding every PARSE_SLICE_MS, and the encoding in slices;
 * - reader worker, started for the read: workerSession.ts readSpillInWorker with no reader
 *   waiting, what a session whose engine worker has ended does first (the worker's start included);
 * - reader worker already waiting: the next read, taken by the reader the previous one left
 *   waiting; the host's part is what a running session's engine-worker call costs too (post the
 *   call, take the reply with its transferred columns; the worker's own work is not on this thread);
 * - idle: nothing loads (the floor of this machine at this moment).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { asColumns, answerSpillCall, encodeInSlices, type SpillCall, type SpilledColumns } from '../src/app/spillRead';
import { endIdleSpillReaders, readSpillInWorker } from '../src/app/workerSession';
import { encodeBatch } from '../src/protocol/eventColumns';
import { MAX_RANGE_EVENTS, readSpilledRange } from '../src/trace/segmentRange';
import type { SpillState } from '../src/trace/segments';
import { engineWorkerBundle } from '../test/support/engineWorker';
import { summarize, table, type Summary } from './stats';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Variant {
  name: string;
  /** The variant in the per-round line. */
  short: string;
  /** Set-up not measured (a worker that is already running). */
  prepare?: () => Promise<unknown>;
  load: (prepared: unknown) => Promise<SpilledColumns | undefined>;
}

interface Sample {
  p99: number;
  max: number;
  busy: number;
  wall: number;
}

/** Forwarding as postMessage would serialise it (the buffers aside). */
function forward(r: SpilledColumns): number {
  const { columns, ...rest } = r;
  return JSON.stringify({ ...rest, columns: { ...columns, columns: Object.keys(columns.columns) } }).length;
}

async function measure(v: Variant): Promise<{ sample: Sample; result?: SpilledColumns }> {
  const prepared = await v.prepare?.();
  await turn();
  const h = monitorEventLoopDelay({ resolution: 1 });
  const elu = performance.eventLoopUtilization();
  const start = performance.now();
  h.enable();
  const result = await v.load(prepared);
  if (result) forward(result);
  const wall = performance.now() - start;
  // One more turn so a last long task is in the histogram.
  await new Promise((resolve) => setTimeout(resolve, 5));
  h.disable();
  const busy = performance.eventLoopUtilization(elu).active;
  return { sample: { p99: h.percentile(99) / 1e6, max: h.max / 1e6, busy, wall }, ...(result ? { result } : {}) };
}

function seqsOf(r: SpilledColumns): Float64Array {
  return new Float64Array(r.columns.columns.seq);
}

/** Runs every variant `rounds` times, interleaved, and prints the table; throws when a variant's columns differ from the host's. */
export async function spillLoadLag(st: SpillState, rounds: number): Promise<void> {
  const t0 = st.chunks[0].t0;
  const t1 = st.chunks[st.chunks.length - 1].t1;
  const call: SpillCall = { op: 'spilledRange', t0, t1 };
  const bundle = engineWorkerBundle();
  const variants: Variant[] = [
    {
      name: 'host, a chunk per turn (before)',
      short: 'before',
      load: async () => {
        const r = await readSpilledRange(st, t0, t1, MAX_RANGE_EVENTS, Number.POSITIVE_INFINITY);
        return { columns: encodeBatch(r.events), t0: r.t0, t1: r.t1, complete: r.complete };
      },
    },
    {
      name: 'host, ≤ 8 ms slices',
      short: 'slices',
      load: async () => {
        const r = await readSpilledRange(st, t0, t1, MAX_RANGE_EVENTS, 8);
        return { columns: await encodeInSlices(r.events, 8), t0: r.t0, t1: r.t1, complete: r.complete };
      },
    },
    {
      name: 'reader worker, started for the read (after: ended session, first read)',
      short: 'reader',
      prepare: async () => endIdleSpillReaders(),
      load: async () => asColumns(await readSpillInWorker(st, call, bundle)),
    },
    {
      name: 'reader worker already waiting (after: ended session, next read)',
      short: 'waiting',
      // A read of nothing leaves a reader waiting, as a previous zoom would.
      prepare: async () => readSpillInWorker({ ...st, chunks: [] }, call, bundle),
      load: async () => asColumns(await readSpillInWorker(st, call, bundle)),
    },
    { name: 'idle (nothing loads, 1 s)', short: 'idle', load: async () => (await new Promise((r) => setTimeout(r, 1000)), undefined) },
  ];
  const expected = seqsOf(asColumns(await answerSpillCall(st, call)));
  const samples = variants.map(() => [] as Sample[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (k + round) % variants.length;
      const { sample, result } = await measure(variants[i]);
      if (result) {
        const got = seqsOf(result);
        if (got.length !== expected.length || got.some((x, j) => x !== expected[j])) throw new Error(`${variants[i].name}: ${got.length} events, not the ${expected.length} expected`);
      }
      samples[i].push(sample);
    }
  }
  const cell = (s: Summary, d = 1) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;
  const pick = (i: number, f: (s: Sample) => number) => summarize(samples[i].map(f));
  console.log(`\nHost event-loop delay while ${expected.length.toLocaleString('en')} spilled events load (${rounds} interleaved rounds; median (range) ms):`);
  console.log(
    table(
      ['variant', 'delay p99', 'delay max', 'host thread busy', 'wall until columns'],
      variants.map((v, i) => [v.name, cell(pick(i, (s) => s.p99)), cell(pick(i, (s) => s.max)), cell(pick(i, (s) => s.busy), 0), cell(pick(i, (s) => s.wall), 0)]),
    ),
  );
  console.log('Per round (p99 ms): ' + samples[0].map((_, r) => `round ${r + 1}: ` + variants.map((v, i) => `${v.short} ${samples[i][r].p99.toFixed(1)}`).join(' / ')).join('; '));
}
