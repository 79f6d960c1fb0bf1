/**
 * The engine hands its trace events over to a sink that can adopt them (EventSink.adopt): the
 * recorder then keeps them without a copy. Every event of a run comes that way but the reflector's
 * log lines.
 */
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/engine/clock';
import { findProfile, withGates } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import type { EventSink, TraceEvent } from '../../../src/format/events';
import { cm, errorEvent, expired, ScriptedListerWatcher, type Step } from './reflectorHarness';

class AdoptingSink implements EventSink {
  readonly adopted: TraceEvent[] = [];
  readonly emitted: TraceEvent[] = [];
  emit(e: TraceEvent): void {
    this.emitted.push(e);
  }
  adopt(e: TraceEvent): void {
    this.adopted.push(e);
  }
}

/** The events recorded per watch event: the ones whose copy the hand-over saves. */
const HOT = ['watch.event', 'fifo.enqueue', 'fifo.pop', 'distribute', 'notify', 'rv'] as const;

describe('the engine hands its events over', () => {
  for (const name of ['v1.15', 'v1.36']) {
    it(`${name}: list, watch events and 410 come through adopt, each event a distinct object`, async () => {
      const steps: Step[] = [
        { on: 'list', rv: '10', items: [cm('a', '1'), cm('b', '2')] },
        { on: 'watch', events: [{ type: 'MODIFIED', object: cm('a', '11', { data: { k: 'v' } }) }, { type: 'DELETED', object: cm('b', '12') }, errorEvent(expired)], close: 'eof', durationMs: 1500 },
        { on: 'list', rv: '20', items: [cm('a', '11', { data: { k: 'v' } })] },
      ];
      const base = findProfile(name);
      assert.ok(base);
      const clock = new FakeClock();
      const sink = new AdoptingSink();
      const lw = new ScriptedListerWatcher(clock, steps, false);
      const informer = new SharedIndexInformer({ listerWatcher: lw, profile: withGates(base, { WatchListClient: false }), clock, sink, rand: () => 0, name: 'test' });
      informer.addEventHandler('h', {});
      const ac = new AbortController();
      const running = informer.run(ac.signal);
      await clock.runUntilIdle(() => lw.calls.length > steps.length && informer.isIdle(), 3_600_000);
      ac.abort();
      await running;
      const types = new Set(sink.adopted.map((e) => e.type));
      for (const t of HOT) assert.ok(types.has(t), `${t} adopted`);
      for (const t of ['list.done', 'watch.end', 'fifo.replace', 'synced'] as const) assert.ok(types.has(t), `${t} adopted`);
      // The reflector's log lines are the one kind still emitted (to be copied); none of the per-event kinds is.
      assert.deepEqual([...new Set(sink.emitted.map((e) => e.type))], ['log']);
      assert.equal(new Set(sink.adopted).size, sink.adopted.length, 'no event object handed over twice');
    });
  }
});
