/**
 * A live session's batches (EventBatches attached to the recorder, no objects made) on traces of
 * real engine runs: every conformance scenario replayed through the engine into a recorder, the
 * batches moved to a host mirror as a worker's messages are. The host must hold what the
 * recorder holds, and the summary counted from the packed fields must be the summary of the
 * events (SummaryModel.of), tombstones, stale windows and identical updates included.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceMirror } from '../../../src/app/traceMirror';
import { hostMirror } from './hostMirror';
import type { RecorderStatus } from '../../../src/app/workerProtocol';
import { PROFILES } from '../../../src/engine/profiles';
import { packerOf } from '../../../src/engine/sink';
import { replayProfile } from '../../../src/app/profiles';
import type { RecordedEvent } from '../../../src/format/events';
import { parseScenarioText } from '../../../src/scenario/validate';
import { replayScenario } from '../../../src/sources/engineReplay';
import { TraceRecorder } from '../../../src/trace/recorder';
import { SummaryModel } from '../../../src/trace/summary';
import { header } from '../trace/fixtures';

const DIR = join(__dirname, '../../conformance/scenarios');

interface Run {
  recorder: TraceRecorder;
  mirror: TraceMirror;
  announced: RecordedEvent[];
  told: RecordedEvent[];
  last: RecorderStatus | undefined;
}

/** Each scenario under each profile it is meant for in turn (the i-th run takes the (i mod n)-th). */
async function run(file: string, i: number, cap?: number): Promise<Run & { profile: string }> {
  const scenario = parseScenarioText(readFileSync(join(DIR, file), 'utf8'), file);
  const meant = scenario.profiles && scenario.profiles.length > 0 ? scenario.profiles : PROFILES.map((p) => p.name);
  const { profile } = replayProfile(scenario, meant[i % meant.length]);
  const { dropped: _d, ...h } = header({ profile: profile.name });
  const recorder = new TraceRecorder(h, cap);
  // The recorder's objects, as a subscriber in the same thread gets them: what the batches must carry.
  const announced: RecordedEvent[] = [];
  recorder.subscribe((b) => announced.push(...structuredClone(b)));
  const host = hostMirror(recorder, 1_000_000, 64);
  const told: RecordedEvent[] = [];
  host.mirror.subscribe((b) => told.push(...b));
  const result = await replayScenario(scenario, { profile, sink: recorder });
  assert.equal(result.outcome, 'ended', `${file} under ${profile.name}: ${result.error ?? result.outcome}`);
  host.batches.flush();
  return { recorder, mirror: host.mirror, announced, told, last: host.lastStatus(), profile: profile.name };
}

describe("the summary a tapped recorder counts from packed fields", () => {
  it('is the summary of the events, field by field, at distinct times', () => {
    const r = new TraceRecorder({ ...header(), resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } });
    let told = 0;
    r.tap({ recorded: () => told++, leaving: () => undefined });
    const p = packerOf(r)!;
    const took = [
      p.packWatchEvent(1, 'ADDED', 'ns/a', '10', true),
      p.packEnqueue(2, 'ns/a', 'Added', '10', 1, 1),
      p.packPop(3, 'ns/a', ['Added'], true, 0, 0),
      p.packDistribute(4, 'add', 'ns/a', false, 1, 0, undefined, undefined, undefined, '10'),
      p.packNotify(5, 'main', 'ns/a', 0, 'add', '10', undefined, false, true, undefined, undefined),
      p.packRv(6, '11', 'event'),
      p.packWatchEvent(7, 'MODIFIED', 'ns/b', '12', true),
      p.packWatchEvent(8, 'MODIFIED', 'ns/c', '13', false),
      p.packDistribute(9, 'update', 'ns/a', false, 1, 0, 'identical', [], '10', '10'),
      p.packDistribute(10, 'update', 'ns/a', false, 1, 0, 'status', [{ path: 'status.phase', old: 'a', new: 'b' }], '10', '14'),
      p.packEnqueue(11, 'ns/d', 'Replaced', '15', 2, 3),
    ];
    assert.ok(took.every(Boolean), 'every call packed');
    // A check finds b and c in the cache only; a tombstone for b later repairs its window, c's stays open.
    r.emit({ t: 12, type: 'consistency.check', rv: '15', missing: [], extra: ['ns/b', 'ns/c', 'ns/d'], rvMismatch: [] });
    assert.ok(p.packNotify(13, 'main', 'ns/b', 0, 'delete', '12', undefined, false, undefined, true, undefined));
    r.emit({ t: 14, type: 'relist', reason: 'watch-expired' } as never);
    const s = r.tapSummary()!.snapshot();
    assert.deepEqual(s, SummaryModel.of(r.events()).snapshot());
    assert.equal(told, r.events().length, 'the tap was told of every event');
    // What the comparison covers: b's window from its watch event, d's from its enqueue, an identical update, a tombstone.
    assert.deepEqual(s.staleWindows.map((w) => [w.key, w.fromT, w.toT]), [['ns/b', 7, 13], ['ns/d', 11, undefined]]);
    assert.equal(s.identicalUpdates, 1);
    assert.equal(s.tombstones, 1);
    assert.equal(s.currentRv, '11');
    assert.deepEqual([s.fifoKeys, s.fifoDeltas], [2, 3]);
  });
});

describe("a live session's batches on replayed conformance scenarios (EventBatches.attach)", function () {
  this.timeout(120_000);
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

  it('the host holds what the recorder holds, and the summary counted from packed fields is the events\' summary', async () => {
    let tombstones = 0;
    let stale = 0;
    let identical = 0;
    for (let i = 0; i < files.length; i++) {
      const { recorder, mirror, announced, told, last, profile } = await run(files[i], i);
      const what = `${files[i]} (${profile})`;
      assert.deepEqual(mirror.events(), recorder.events(), what);
      assert.deepEqual(told, JSON.parse(JSON.stringify(announced)), what);
      const expected = SummaryModel.of(announced).snapshot();
      assert.deepEqual(last?.summary, expected, what);
      tombstones += expected.tombstones;
      stale += expected.staleWindows.length;
      identical += expected.identicalUpdates;
    }
    // The corpus exercises what the packed counts must get right.
    assert.ok(tombstones > 0 && stale > 0 && identical > 0, `tombstones ${tombstones}, stale windows ${stale}, identical updates ${identical}`);
  });

  it('with a small window, events that leave it are sent first: the host got every event once, in order', async () => {
    const chosen = files.filter((_, i) => i % 9 === 0);
    let evicted = 0;
    for (let i = 0; i < chosen.length; i++) {
      const { recorder, mirror, announced, told, last } = await run(chosen[i], i, 40);
      assert.deepEqual(mirror.events(), recorder.events(), chosen[i]);
      assert.deepEqual(told.map((e) => e.seq), Array.from({ length: announced.length }, (_, k) => k), chosen[i]);
      assert.deepEqual(told, JSON.parse(JSON.stringify(announced)), chosen[i]);
      assert.deepEqual(last?.summary, SummaryModel.of(announced).snapshot(), chosen[i]);
      evicted += recorder.dropped;
    }
    assert.ok(evicted > 0, 'some windows were full');
  });
});
