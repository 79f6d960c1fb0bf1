/**
 * The one summary model against every profile and every sandbox storyline: each number equals
 * the count taken straight from the trace, and the findings, the status bar text and the CLI
 * `summarize` say the same numbers. Tombstones count where RealFIFO makes them (at distribution)
 * as well as where DeltaFIFO queues them; a relist whose LIST was refused is counted as such.
 */
import { strict as assert } from 'node:assert';
import { summaryLines } from '../../../src/cli/summarizeCommand';
import { PROFILES } from '../../../src/engine/profiles';
import { STORYLINES, TIMINGS } from '../../../src/sources/sandbox/storylines';
import { evidenceCount } from '../../../src/trace/findings/types';
import { relistsText } from '../../../src/protocol/summary';
import { SummaryModel } from '../../../src/trace/summary';
import type { RecordedEvent } from '../../../src/format/events';
import { statusText } from '../../../src/vscode/statusText';
import { runStory } from './storyRun';

/** Long enough for each story's trouble and its repair (see storylines.findings.test.ts). */
const RUN_MS: Record<(typeof STORYLINES)[number], number> = {
  'restart-storm': TIMINGS.restartFirstAtMs + TIMINGS.restartDownMs + 5000,
  'etcd-lost-delete': TIMINGS.lostDeleteFirstAtMs + TIMINGS.lostDeleteAfterMs + TIMINGS.relistAfterLossMs + 4000,
  'watch-expiry': TIMINGS.expiryFirstAtMs + 3000,
  calm: 8000,
};

/** The counts taken straight from the events, independently of the model. */
function counted(events: readonly RecordedEvent[]) {
  const of = <T extends RecordedEvent['type']>(t: T) => events.filter((e): e is Extract<RecordedEvent, { type: T }> => e.type === t);
  const relists = of('relist');
  // A relist's LIST outcome: the first list.done / list.error / end-of-initial-events after it.
  let refused = 0;
  for (const r of relists) {
    const next = events.find((e) => e.seq > r.seq && (e.type === 'list.done' || e.type === 'list.error' || (e.type === 'watch.event' && e.initialEventsEnd)));
    if (next?.type === 'list.error') refused++;
  }
  return {
    relists: relists.length,
    refused,
    lists: of('list.done').length + of('watch.event').filter((e) => e.initialEventsEnd).length,
    watches: of('watch.start').length,
    updates: of('distribute').filter((e) => e.op === 'update').length,
    identical: of('distribute').filter((e) => e.op === 'update' && e.change === 'identical').length,
    // One handler ("main"): every tombstone made reaches it once, wherever it was made.
    tombstonesDelivered: of('notify').filter((e) => e.op === 'delete' && e.tombstone).length,
    tombstonesQueued: of('fifo.enqueue').filter((e) => e.tombstone).length,
  };
}

describe('the summary model agrees with the trace, for every profile and storyline', function () {
  this.timeout(60_000);
  for (const story of STORYLINES) {
    for (const profile of PROFILES.map((p) => p.name)) {
      it(`${story}, ${profile}`, async () => {
        const r = await runStory(story, profile, RUN_MS[story]);
        const events = r.recorder.events();
        const s = SummaryModel.of(events).snapshot();
        const c = counted(events);
        if (process.env.PRINT_SUMMARY === "1") console.log(`      ${story} ${profile}: ${JSON.stringify({ ...c, events: events.length })}`);
        assert.equal(s.events, events.length);
        // A live session's host: the events the engine packed reached it as they are here, and
        // the summary counted from their fields (no objects) is the summary of the events.
        assert.deepEqual(r.mirror.events(), events, "the host's mirror");
        assert.deepEqual(r.lastStatus?.summary, s, 'the summary the worker kept');
        assert.equal(s.relists, c.relists, 'relists');
        assert.equal(s.relistsByReason.reduce((n, [, k]) => n + k, 0), c.relists, 'relists by reason add up');
        assert.equal(s.relistsListRefused, c.refused, 'relists whose LIST was refused');
        assert.equal(s.lists, c.lists, 'lists');
        assert.equal(s.watches, c.watches, 'watches');
        assert.equal(s.updates, c.updates, 'updates');
        assert.equal(s.identicalUpdates, c.identical, 'identical updates');
        if (s.fifoKeys === 0) assert.equal(s.tombstones, c.tombstonesDelivered, 'tombstones (all delivered)');
        assert.ok(s.tombstones >= c.tombstonesQueued, 'every queued tombstone counts');

        // Stale-cache windows: the lost delete of the etcd story, every time, from the object's
        // last sighting on the server to the tombstone that repaired it; none elsewhere.
        if (story === 'etcd-lost-delete') {
          const tomb = events.find((e) => (e.type === 'notify' && e.op === 'delete' && e.tombstone) || (e.type === 'fifo.enqueue' && e.tombstone));
          assert.ok(tomb && 'key' in tomb);
          const lastSeen = events.filter((e) => e.type === 'watch.event' && e.key === tomb.key && e.seq < tomb.seq && (e.eventType === 'ADDED' || e.eventType === 'MODIFIED')).pop();
          assert.ok(lastSeen, 'the victim was seen on the server');
          assert.deepEqual(
            s.staleWindows.map((w) => [w.key, w.fromT, w.toT, w.revealedBy]),
            [[tomb.key, lastSeen.t, tomb.t, 'relist']],
          );
        } else assert.deepEqual(s.staleWindows, []);

        // The findings say the same numbers.
        const tomb = r.findings.find((f) => f.id === 'tombstones-delivered');
        if (c.tombstonesDelivered > 0) {
          assert.ok(tomb, 'tombstones delivered make a finding');
          assert.match(tomb.title, new RegExp(`^${s.tombstones} deletes? delivered`), tomb.title);
        } else assert.equal(tomb, undefined);
        for (const f of r.findings.filter((x) => x.id.startsWith('relist-storm'))) {
          if (s.relistsListRefused > 0) assert.match(f.detail, /had the LIST refused/, f.detail);
          else assert.doesNotMatch(f.detail, /refused/);
        }
        const identical = r.findings.find((f) => f.id === 'identical-updates-after-relist');
        if (identical) {
          const n = Number(/^(\d+) identical/.exec(identical.title)?.[1]);
          assert.ok(n > 0 && n <= s.identicalUpdates, identical.title);
        }
        for (const f of r.findings) assert.ok(evidenceCount(f) >= f.evidence.length);

        // The status bar and the CLI write the same relist text as the header chip.
        const bar = statusText([{ id: 'x', title: 'x', summary: () => s }]);
        assert.equal(bar.relists, c.relists);
        assert.equal(bar.tooltip, `x: relists ${relistsText(s)}`);
        assert.ok(summaryLines(s).includes(`  relists: ${relistsText(s)}`));
        assert.ok(summaryLines(s).includes(`  tombstones: ${s.tombstones}`));
      });
    }
  }
});
