/**
 * The webview's model (webview/model/) on event batches that pass the protocol guard
 * (isRecordedEvent: an object with a string type and finite t and seq) but are otherwise anything:
 * unknown types, known types with fields missing or of the wrong type, out-of-order seqs. The
 * lanes, the summary, keyboard navigation and the details pane must not throw on them.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { RecordedEvent } from '../../../src/format/events';
import { isRecordedEvent } from '../../../src/protocol/timeline';
import { binCounts, binStepMax } from '../../../webview/model/binning';
import { describeEvent, eventDetails } from '../../../webview/model/details';
import { cursorForSeq, cursorSeq, moveCursor, type NavKey } from '../../../webview/model/selection';
import { navigableLanes } from '../../../webview/model/tracks';
import { SummaryModel as TimelineSummary } from '../../../src/trace/summary';
import { TimelineData } from '../../../webview/model/timelineData';
import { SAMPLE_EVENTS } from '../trace/fixtures';
import { check, jsonValue } from './support';

const SAMPLES = Object.values(SAMPLE_EVENTS) as unknown as Record<string, unknown>[];
const TYPES = [...SAMPLES.map((e) => e.type as string), 'future.event', '', 'notify ', 'constructor', '__proto__'];

/** A sample event of a known (or unknown) type with some fields dropped or replaced by anything. */
const recordedEvent = fc
  .record({
    base: fc.nat(SAMPLES.length - 1),
    type: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...TYPES) }),
    drop: fc.array(fc.nat(), { maxLength: 4 }),
    replace: fc.array(fc.tuple(fc.nat(), jsonValue), { maxLength: 3 }),
    t: fc.double({ min: -1e6, max: 1e9, noNaN: true }),
    seq: fc.integer({ min: -5, max: 400 }),
  })
  .map(({ base, type, drop, replace, t, seq }) => {
    const e: Record<string, unknown> = structuredClone(SAMPLES[base]);
    const keys = Object.keys(e).filter((k) => k !== 'type' && k !== 't');
    for (const d of drop) if (keys.length) delete e[keys[d % keys.length]];
    for (const [k, v] of replace) if (keys.length) e[keys[k % keys.length]] = v;
    return { ...e, type: type ?? e.type, t, seq };
  });

const batches = fc.array(fc.array(recordedEvent, { maxLength: 25 }), { minLength: 1, maxLength: 4 });
const keys = fc.array(fc.constantFrom<NavKey>('ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'), { maxLength: 12 });

/** Everything main.ts does with a batch that passed the guard, and with what the user does next. */
function ingest(batchList: Record<string, unknown>[][], navigation: NavKey[]): void {
  const data = new TimelineData();
  const summary = new TimelineSummary();
  for (const raw of batchList) {
    const batch: RecordedEvent[] = (raw as unknown[]).filter(isRecordedEvent);
    assert.equal(batch.length, raw.length, 'the generator only makes events that pass the guard');
    data.append(batch);
    for (const e of batch) summary.add(e);
  }
  summary.snapshot();
  const lanes = navigableLanes(data);
  let cursor = { lane: 0, row: -1 };
  for (const k of navigation) {
    cursor = moveCursor(lanes, cursor, k);
    const seq = cursorSeq(lanes, cursor);
    if (seq !== undefined) cursorForSeq(lanes, seq);
  }
  for (const e of data.allEvents()) {
    assert.equal(typeof describeEvent(e), 'string');
    eventDetails(data, e);
  }
  const w = { t0: data.firstT, t1: data.endT + 1, bins: 16 };
  binCounts(data.marks.columns.t, data.marks.columns.kind, data.marks.length, w, 10);
  binStepMax(data.depth.columns.t, data.depth.columns.deltas, data.depth.length, w);
}

describe('robustness: webview model', () => {
  it('batches of events with unknown types or missing/odd fields never make the model throw', async () => {
    await check(fc.property(batches, keys, (b, k) => ingest(b as Record<string, unknown>[][], k)), { numRuns: 200 });
  });

  it('the fields the details pane lists, when missing, do not throw (consistency.check, relist, notify)', () => {
    const bare = ['consistency.check', 'relist', 'notify', 'distribute', 'watch.end', 'list.done', 'fifo.enqueue', 'request'].map((type, seq) => ({ type, t: seq, seq }));
    ingest([bare], ['Home', 'ArrowRight', 'ArrowDown', 'End']);
  });

  it('two relist reasons that are not strings, tied in count, still give a summary', () => {
    const summary = new TimelineSummary();
    for (const [seq, reason] of [7, null, 'Expired'].entries()) summary.add({ type: 'relist', t: seq, seq, reason } as unknown as RecordedEvent);
    assert.equal(summary.snapshot().relists, 3);
  });
});
