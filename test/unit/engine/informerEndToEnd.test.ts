/**
 * The informer with the real Reflector against a scripted ListerWatcher: list → watch events →
 * relist, and what each handler is told (the notification log of contracts §2, in spirit).
 */
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/engine/clock';
import { findProfile, withGates } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { isTombstone, type KubeObject } from '../../../src/engine/objects';
import { CaptureSink } from './informerFixtures';
import { cm, expired, errorEvent, ScriptedListerWatcher, type Step } from './reflectorHarness';

interface RunResult {
  lines: Record<string, string[]>;
  sink: CaptureSink;
  requests: string[];
  synced: boolean;
}

async function run(profileName: string, steps: Step[], handlers: { name: string; resyncPeriodMs?: number }[], resyncPeriodMs = 0): Promise<RunResult> {
  // The script consumes steps as they are answered; the run is over once a call finds none left.
  const total = steps.length;
  const base = findProfile(profileName);
  assert.ok(base);
  const profile = withGates(base, { WatchListClient: false });
  const clock = new FakeClock();
  const sink = new CaptureSink();
  const lw = new ScriptedListerWatcher(clock, steps, false);
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock, sink, rand: () => 0, resyncPeriodMs, name: 'test' });
  const lines: Record<string, string[]> = {};
  const text = (o: KubeObject) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  for (const h of handlers) {
    const out: string[] = (lines[h.name] = []);
    informer.addEventHandler(
      h.name,
      {
        onAdd: (o, initial) => void out.push(`add ${text(o)}${initial ? ' initial' : ''}`),
        onUpdate: (a, b) => void out.push(`update ${text(a)}->${b.metadata?.resourceVersion}`),
        onDelete: (o) => void out.push(isTombstone(o) ? `delete tombstone ${o.key}@${o.obj?.metadata?.resourceVersion ?? ''}` : `delete ${text(o)}`),
      },
      h.resyncPeriodMs,
    );
  }
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const outcome = await clock.runUntilIdle(() => lw.calls.length > total && informer.isIdle(), 3_600_000);
  assert.equal(outcome, 'done', `run ended ${outcome}; divergence: ${lw.divergence ?? 'none'}`);
  const synced = informer.hasSynced();
  ac.abort();
  await running;
  const requests = lw.calls.map((c) => `${c.verb} rv=${c.options.resourceVersion}`);
  return { lines, sink, requests, synced };
}

const watch410: Step = {
  on: 'watch',
  events: [{ type: 'MODIFIED', object: cm('a', '11') }, errorEvent(expired)],
  close: 'eof',
  durationMs: 1500,
};

describe('informer end to end (real Reflector, scripted server)', () => {
  for (const p of ['v1.32', 'v1.34', 'v1.36']) {
    it(`${p}: list, watch update, 410, relist without the object → add, update, tombstone delete`, async () => {
      const r = await run(p, [{ on: 'list', rv: '10', items: [cm('a', '5')] }, watch410, { on: 'list', rv: '25', items: [] }], [{ name: 'main' }]);
      assert.deepEqual(r.lines.main, ['add a@5 initial', 'update a@5->11', 'delete tombstone default/a@11']);
      assert.deepEqual(r.requests.slice(0, 3), ['list rv=0', 'watch rv=10', 'list rv=11']);
      assert.equal(r.synced, true);
      assert.equal(r.sink.of('synced').length, 1);
      assert.equal(r.sink.of('informer.stop').length, 1);
    });
  }

  it('v1.15: the same run without isInInitialList', async () => {
    const r = await run('v1.15', [{ on: 'list', rv: '10', items: [cm('a', '5')] }, watch410, { on: 'list', rv: '25', items: [] }], [{ name: 'main' }]);
    assert.deepEqual(r.lines.main, ['add a@5', 'update a@5->11', 'delete tombstone default/a@11']);
  });

  it('v1.34: a watch DELETE of an object never listed still reaches OnDelete (RealFIFO); v1.32 drops it', async () => {
    const steps = (): Step[] => [
      { on: 'list', rv: '10', items: [] },
      { on: 'watch', events: [{ type: 'DELETED', object: cm('ghost', '12') }], close: 'eof', durationMs: 1500 },
    ];
    const real = await run('v1.34', steps(), [{ name: 'main' }]);
    const delta = await run('v1.32', steps(), [{ name: 'main' }]);
    assert.deepEqual(real.lines.main, ['delete ghost@12']);
    assert.deepEqual(delta.lines.main, []);
  });

  for (const p of ['v1.32', 'v1.34', 'v1.36']) {
    it(`${p}: the reflector's resync timer asks the informer, and only the due handler gets the sync updates`, async () => {
      const r = await run(
        p,
        [
          { on: 'list', rv: '10', items: [cm('a', '5')] },
          { on: 'watch', events: [], close: 'eof', durationMs: 3500 },
        ],
        [{ name: 'main', resyncPeriodMs: 0 }, { name: 'periodic' }],
        1000,
      );
      assert.deepEqual(r.lines.main, ['add a@5 initial']);
      assert.deepEqual(r.lines.periodic, ['add a@5 initial', 'update a@5->5', 'update a@5->5', 'update a@5->5']);
      const checks = r.sink.of('resync.check').filter((e) => e.handler === 'periodic' && e.due).map((e) => e.t);
      assert.deepEqual(checks, [1000, 2000, 3000]);
      assert.ok(r.sink.of('notify').filter((e) => e.op === 'update').every((e) => e.isSync && e.change === 'identical'));
    });
  }
});
