import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAULTS, faultByCliName, faultByCommand } from '../../../src/app/faults';
import { FakeClock } from '../../../src/engine/clock';
import type { ListerWatcher } from '../../../src/engine/listWatch';
import type { TraceEvent } from '../../../src/format/events';
import { FaultInjectingListerWatcher } from '../../../src/sources/faults';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { commands: { command: string; title: string; category?: string }[] };
};
const PREFIX = 'informerInspector.fault.';

describe('app: the fault catalogue', () => {
  it("package.json's fault commands are exactly the catalogue's, with the same titles, in the same order", () => {
    const contributed = pkg.contributes.commands.filter((c) => c.command.startsWith(PREFIX));
    assert.deepEqual(
      contributed.map((c) => [c.command.slice(PREFIX.length), c.title]),
      FAULTS.map((f) => [f.command, f.title]),
    );
    for (const c of contributed) assert.equal(c.category, 'Informer Inspector', c.command);
  });

  it('ids, commands and CLI names are each unique, and found by their lookups', () => {
    for (const key of ['id', 'command', 'cli'] as const) assert.equal(new Set(FAULTS.map((f) => f[key])).size, FAULTS.length, key);
    for (const f of FAULTS) {
      assert.equal(faultByCliName(f.cli), f);
      assert.equal(faultByCommand(f.command), f);
    }
    assert.equal(faultByCliName('bogus'), undefined);
  });

  it('a parameter default lies within its bounds', () => {
    for (const f of FAULTS) if (f.param) assert.ok(f.param.min <= f.param.default && f.param.default <= f.param.max, f.id);
  });

  it('apply() reaches the injector under the fault\'s own id (an event at once, or armed until its request comes)', () => {
    for (const f of FAULTS) {
      const clock = new FakeClock();
      const events: TraceEvent[] = [];
      const inner: ListerWatcher = { url: 'http://127.0.0.1:1/api/v1/pods', list: () => Promise.reject(new Error('unused')), watch: () => Promise.reject(new Error('unused')) };
      const faults = new FaultInjectingListerWatcher(inner, { clock, sink: { emit: (e) => void events.push(e) } });
      const slow: number[] = [];
      f.apply({ faults, addSlowHandler: (ms) => void slow.push(ms) });
      const emitted = events.flatMap((e) => (e.type === 'fault.injected' ? [e.fault] : []));
      const pending: string[] = faults.pendingFaults();
      if (f.id === 'slowHandler') {
        assert.deepEqual(slow, [500], 'the default value, in ms');
      } else if (f.oneShot) {
        assert.ok(pending.includes(f.id), `${f.id} armed: ${JSON.stringify(pending)}`);
      } else {
        assert.deepEqual(emitted, [f.id], `${f.id} recorded at once`);
      }
    }
  });

  it('values are passed in ms: 429 takes Retry-After seconds from them', async () => {
    const f = faultByCliName('429')!;
    const clock = new FakeClock();
    const events: TraceEvent[] = [];
    const inner: ListerWatcher = { url: 'http://127.0.0.1:1/api/v1/pods', list: () => Promise.reject(new Error('unused')), watch: () => Promise.reject(new Error('unused')) };
    const faults = new FaultInjectingListerWatcher(inner, { clock, sink: { emit: (e) => void events.push(e) } });
    f.apply({ faults, addSlowHandler: () => undefined }, 3000);
    await faults.watch({ resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 60 }, new AbortController().signal).catch(() => undefined);
    const e = events.find((x) => x.type === 'fault.injected');
    assert.ok(e && e.type === 'fault.injected');
    assert.match(e.detail ?? '', /Retry-After 3s/);
  });
});
