import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeClock, settle } from '../../../src/engine/clock';
import type { TraceEvent } from '../../../src/format/events';
import { findProfile } from '../../../src/engine/profiles';
import { replayScenario } from '../../../src/sources/engineReplay';
import { slowedBy, type ReplayHandler } from '../../../src/sources/replay';
import { parseScenarioText } from '../../../src/scenario/validate';

const CORPUS = join(__dirname, '../../conformance/scenarios');

function notifies(events: TraceEvent[], handler: string): Extract<TraceEvent, { type: 'notify' }>[] {
  return events.filter((e): e is Extract<TraceEvent, { type: 'notify' }> => e.type === 'notify' && e.handler === handler);
}

describe('handler delayMs (scenario extension)', () => {
  it('slowedBy resolves a call only after delayMs of virtual time, after the wrapped call ran', async () => {
    const clock = new FakeClock(0);
    const calls: string[] = [];
    const inner: ReplayHandler = {
      onAdd: () => void calls.push('add'),
      onUpdate: () => void calls.push('update'),
      onDelete: () => void calls.push('delete'),
    };
    let done = false;
    void Promise.resolve(slowedBy(inner, 2000, clock).onDelete({ metadata: { name: 'x' } })).then(() => (done = true));
    await settle();
    assert.deepEqual(calls, ['delete']);
    await clock.advance(1999);
    assert.equal(done, false);
    await clock.advance(1);
    assert.equal(done, true);
    assert.equal(slowedBy(inner, 0, clock), inner, 'no delay: the handler itself');
  });

  it('a slow handler falls behind without holding back the fast one or the reflector (slow-handler-falls-behind)', async () => {
    const scenario = parseScenarioText(readFileSync(join(CORPUS, 'slow-handler-falls-behind.json'), 'utf8'), 'slow-handler-falls-behind');
    const r = await replayScenario(scenario, { profile: findProfile('v1.36')! });
    assert.equal(r.outcome, 'ended');
    const fast = notifies(r.events, 'fast');
    const slow = notifies(r.events, 'slow');
    assert.equal(fast.length, 6);
    assert.equal(slow.length, 6);
    // Every change reaches the fast handler when it happens: initial adds at 0, then watch events at +100/+300/+500
    // and the second watch's event at 700 + 100.
    assert.deepEqual(fast.map((e) => e.t), [0, 0, 100, 300, 500, 800]);
    // The slow one takes 2 s per call, one after another; its buffer had grown to 4 behind it.
    assert.deepEqual(slow.map((e) => e.t), [0, 2000, 4000, 6000, 8000, 10000]);
    assert.equal(Math.max(...slow.map((e) => e.pending)), 4);
    // Both scripted watches were used up (and a third one asked for) while the slow handler was still on its first calls.
    const watchStarts = r.log.filter((l) => l.kind === 'request' && l.verb === 'watch');
    assert.equal(watchStarts.length, 3);
    assert.ok(r.events.some((e) => e.type === 'handler.slow' && e.handler === 'slow' && e.durationMs === 2000));
    // The run ends once the slow handler has caught up.
    assert.equal(r.durationMs, 12000);
  });
});
