import { strict as assert } from 'node:assert';
import { runCli } from '../../../src/cli/cli';
import { consistencySchedule, parseFaultSpec, scheduleFaults } from '../../../src/cli/faultSpecs';
import { closeResourceNames, editDistance } from '../../../src/app/resources';
import { FakeClock } from '../../../src/engine/clock';
import type { TraceEvent } from '../../../src/format/events';
import type { ListerWatcher } from '../../../src/engine/listWatch';
import type { ApiResource } from '../../../src/kube';
import { FaultInjectingListerWatcher } from '../../../src/sources/faults';
import { memoryIo } from './memoryIo';

const MIN = 60_000;

describe('cli: --fault specs and the consistency schedule', () => {
  it('parses every fault kind with its value and start time', () => {
    assert.deepEqual(parseFaultSpec('refuse=10s@20s', MIN), { text: 'refuse=10s@20s', fault: 'refuseConnections', atMs: 20_000, valueMs: 10_000 });
    assert.deepEqual(parseFaultSpec('reset-watch@15s', MIN), { text: 'reset-watch@15s', fault: 'resetWatch', atMs: 15_000 });
    assert.deepEqual(parseFaultSpec('429=2s@15s', MIN), { text: '429=2s@15s', fault: 'tooManyRequests', atMs: 15_000, valueMs: 2000 });
    assert.deepEqual(parseFaultSpec('429@1m', 2 * MIN), { text: '429@1m', fault: 'tooManyRequests', atMs: MIN });
    assert.deepEqual(parseFaultSpec('slow-handler=300ms', MIN), { text: 'slow-handler=300ms', fault: 'slowHandler', atMs: 0, valueMs: 300 });
    assert.equal(parseFaultSpec('drop-delete@0s', MIN).atMs, 0);
    for (const kind of ['expire-watch', 'toolarge-list', 'internal-error']) assert.equal(parseFaultSpec(`${kind}@1.5s`, MIN).atMs, 1500);
  });

  it('rejects a bad spec with one line naming it, and the CLI exits 2 before connecting', async () => {
    const cases: Array<[string, RegExp]> = [
      ['bogus@1s', /^invalid --fault "bogus@1s": unknown fault "bogus" \(one of: refuse=DURATION\[@AT\], reset-watch\[@AT\]/],
      ['refuse@1s', /needs a duration, e\.g\. refuse=10s$/],
      ['refuse=abc', /"abc" is not a duration above 0/],
      ['reset-watch=3s', /reset-watch takes no value$/],
      ['refuse=1s@90s', /@90s is not before the end of the recording \(--duration 60s\)$/],
      ['429=1500ms', /Retry-After is whole seconds/],
      ['expire-watch@soon', /"@soon" is not a time into the recording/],
      ['Refuse=1s', /expected NAME\[=VALUE\]\[@AT\]/],
    ];
    for (const [spec, want] of cases) {
      assert.throws(() => parseFaultSpec(spec, MIN), (e: Error) => want.test(e.message) && !e.message.includes('\n'), spec);
      const m = memoryIo();
      // A kubeconfig that does not exist: the spec must be rejected before it is even read.
      assert.equal(await runCli(['record', '--resource', 'pods', '--kubeconfig', '/nonexistent/kc', '--fault', spec], m.io), 2, spec);
      assert.match(m.err(), /^informer-inspector: invalid --fault "[^"]+": [^\n]+\n$/, spec);
    }
  });

  it('merges --check-consistency times (with or without @) and --consistency-every periods before the end', () => {
    assert.deepEqual(consistencySchedule(['@30s', '10s'], undefined, MIN), [10_000, 30_000]);
    assert.deepEqual(consistencySchedule(['@20s'], '20s', MIN), [20_000, 40_000]);
    assert.throws(() => consistencySchedule(['@60s'], undefined, MIN), /not before the end of the recording/);
    assert.throws(() => consistencySchedule([], '0s', MIN), /invalid --consistency-every "0s"/);
    assert.throws(() => consistencySchedule(['later'], undefined, MIN), /invalid --check-consistency "later"/);
  });

  it('applies each fault at its time into the recording, through the injector', async () => {
    const clock = new FakeClock();
    const events: TraceEvent[] = [];
    const inner: ListerWatcher = {
      url: 'http://127.0.0.1:1/api/v1/pods',
      list: () => Promise.reject(new Error('unused')),
      watch: () => Promise.reject(new Error('unused')),
    };
    const faults = new FaultInjectingListerWatcher(inner, { clock, sink: { emit: (e) => void events.push(e) } });
    const slow: number[] = [];
    const specs = ['refuse=10s@20s', 'drop-delete@5s', 'slow-handler=300ms', '429=3s@40s'].map((s) => parseFaultSpec(s, MIN));
    const cancel = scheduleFaults(specs, { clock, faults, addSlowHandler: (ms) => void slow.push(ms) });
    assert.deepEqual(slow, [300], 'an @0 fault applies at once, before the informer starts');
    assert.deepEqual(faults.pendingFaults(), []);
    await clock.advance(5000);
    assert.deepEqual(faults.pendingFaults(), ['dropNextDelete']);
    await clock.advance(15_000);
    assert.ok(faults.pendingFaults().includes('refuseConnections'));
    assert.deepEqual(events.map((e) => [e.t, e.type === 'fault.injected' ? e.fault : e.type]), [[20_000, 'refuseConnections']]);
    cancel();
    await clock.advance(30_000);
    assert.ok(!faults.pendingFaults().includes('tooManyRequests'), 'cancelled before 40 s');
  });
});

describe('cli: close resource names', () => {
  const res = (resource: string, kind: string, group = '', shortNames: string[] = []): ApiResource => ({
    group, version: 'v1', resource, kind, namespaced: true, shortNames, categories: [], verbs: ['list', 'watch'],
  });
  const all = [res('configmaps', 'ConfigMap', '', ['cm']), res('pods', 'Pod', '', ['po']), res('deployments', 'Deployment', 'apps', ['deploy']), res('widgets', 'Widget', 'demo.example.com')];

  it('suggests names within a small edit distance or containing what was typed', () => {
    assert.equal(editDistance('confgmaps', 'configmaps'), 1);
    assert.deepEqual(closeResourceNames(all, 'confgmaps'), ['configmaps']);
    assert.deepEqual(closeResourceNames(all, 'deploymens.apps'), ['deployments.apps']);
    assert.deepEqual(closeResourceNames(all, 'widg'), ['widgets.demo.example.com']);
    assert.deepEqual(closeResourceNames(all, 'services'), []);
  });
});
