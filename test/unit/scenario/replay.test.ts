import { strict as assert } from 'node:assert';
import { isAbortError } from '../../../src/engine/clock';
import type { KubeObject } from '../../../src/engine/objects';
import { DeletedFinalStateUnknown } from '../../../src/engine/objects';
import { findProfile } from '../../../src/engine/profiles';
import type { NotifyLine } from '../../../src/scenario/notificationLog';
import { loggingHandler, replayWith, seededRand, type ReplayHandler, type ReplayInformer, type ReplayInformerOptions } from '../../../src/sources/replay';
import { validateScenario } from '../../../src/scenario/validate';
import type { Scenario } from '../../../src/scenario/types';

/** A deliberately tiny informer: list, then watch until an ERROR event, then relist. */
class TinyInformer implements ReplayInformer {
  private readonly handlers: { name: string; h: ReplayHandler }[] = [];
  private readonly store = new Map<string, KubeObject>();
  private synced = false;
  private started = false;
  constructor(private readonly o: ReplayInformerOptions) {}
  addEventHandler(name: string, h: ReplayHandler): unknown {
    this.handlers.push({ name, h });
    if (this.started) for (const obj of this.store.values()) h.onAdd(obj, true);
    return name;
  }
  hasSynced(): boolean {
    return this.synced;
  }
  isIdle(): boolean {
    return true;
  }
  private upsert(obj: KubeObject, initial: boolean): void {
    const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
    const old = this.store.get(key);
    this.store.set(key, obj);
    for (const { h } of this.handlers) {
      if (old) h.onUpdate(old, obj);
      else h.onAdd(obj, initial);
    }
  }
  async run(signal: AbortSignal): Promise<void> {
    this.started = true;
    let rv = '0';
    try {
      for (;;) {
        const list = await this.o.listerWatcher.list({ resourceVersion: rv, limit: 500 }, signal);
        for (const item of list.items) this.upsert(item, !this.synced);
        this.synced = true;
        rv = list.metadata.resourceVersion ?? '';
        for (let relist = false; !relist; ) {
          const w = await this.o.listerWatcher.watch({ resourceVersion: rv, allowWatchBookmarks: true }, signal);
          for (let e = await w.next(); e; e = await w.next()) {
            if (e.type === 'ERROR') {
              relist = true;
              break;
            }
            if (e.type === 'ADDED' || e.type === 'MODIFIED') this.upsert(e.object, false);
            rv = e.object.metadata?.resourceVersion ?? rv;
          }
          w.stop();
          if (relist) await this.o.clock.sleep(1000 + 600 * this.o.rand(), signal);
        }
      }
    } catch (e) {
      if (!isAbortError(e)) throw e;
    }
  }
}

const obj = (name: string, rv: string) => ({ metadata: { namespace: 'default', name, resourceVersion: rv } });

function scenario(raw: Record<string, unknown>): Scenario {
  const r = validateScenario({ format: 'informer-scenario/v1', name: 't', resource: { apiVersion: 'v1', kind: 'ConfigMap' }, ...raw }, 't.json');
  assert.deepEqual(r.problems, []);
  return r.scenario!;
}

describe('replay', () => {
  const v136 = findProfile('v1.36')!;
  const v115 = findProfile('v1.15')!;

  it('logs requests, notifications, synced and end; a late handler gets synthetic adds', async () => {
    const s = scenario({
      informer: { handlers: [{ name: 'main' }] },
      steps: [
        { on: 'list', resourceVersion: '10', items: [obj('a', '5')] },
        { on: 'watch', events: [{ type: 'MODIFIED', object: obj('a', '11') }], close: 'error', error: { code: 410, reason: 'Expired', message: 'too old' } },
        { addHandler: { name: 'late' } },
        { on: 'list', resourceVersion: '25', items: [obj('a', '11')] },
      ],
    });
    const r = await replayWith((o) => new TinyInformer(o), s, { profile: v136 });
    assert.equal(r.outcome, 'ended');
    assert.equal(r.diverged, false);
    const lines = r.log.map((l) => {
      const { timeoutSeconds: _t, ...rest } = l as { timeoutSeconds?: number };
      return rest;
    });
    assert.deepEqual(lines, [
      { kind: 'request', verb: 'list', rv: '0', limit: 500 },
      { kind: 'notify', handler: 'main', op: 'add', key: 'default/a', rv: '5', initialList: true },
      { kind: 'synced' },
      { kind: 'request', verb: 'watch', rv: '10', allowWatchBookmarks: true },
      { kind: 'notify', handler: 'main', op: 'update', key: 'default/a', oldRv: '5', rv: '11' },
      { kind: 'request', verb: 'list', rv: '11', limit: 500 },
      { kind: 'notify', handler: 'late', op: 'add', key: 'default/a', rv: '11', initialList: true },
      { kind: 'notify', handler: 'main', op: 'update', key: 'default/a', oldRv: '11', rv: '11' },
      { kind: 'notify', handler: 'late', op: 'update', key: 'default/a', oldRv: '11', rv: '11' },
      { kind: 'request', verb: 'watch', rv: '25', allowWatchBookmarks: true },
      { kind: 'end' },
    ]);
    assert.ok(r.durationMs >= 1500 + 1000, `virtual time ${r.durationMs}`);
  });

  it('records a divergence, stops the informer and ends the log', async () => {
    const s = scenario({ informer: { handlers: [] }, steps: [{ on: 'watch', events: [], close: 'eof' }] });
    const r = await replayWith((o) => new TinyInformer(o), s, { profile: v136 });
    assert.equal(r.diverged, true);
    assert.deepEqual(r.log.slice(1), [{ kind: 'divergence', expected: 'watch', got: { verb: 'list', rv: '0' } }, { kind: 'end' }]);
  });

  it('is deterministic for one seed', async () => {
    const s = scenario({
      informer: { handlers: [{ name: 'main' }] },
      steps: [
        { on: 'list', resourceVersion: '1', items: [] },
        { on: 'watch', events: [], close: 'error', error: { code: 410, reason: 'Expired', message: 'x' } },
        { on: 'list', resourceVersion: '2', items: [] },
      ],
    });
    const a = await replayWith((o) => new TinyInformer(o), s, { profile: v136, seed: 7 });
    const b = await replayWith((o) => new TinyInformer(o), s, { profile: v136, seed: 7 });
    assert.equal(a.durationMs, b.durationMs);
    assert.deepEqual(a.log, b.log);
  });

  it('reports an informer that rejects as outcome error and still ends the log', async () => {
    const s = scenario({ informer: { handlers: [] }, steps: [{ on: 'list', resourceVersion: '1', items: [] }] });
    const failing: ReplayInformer = { addEventHandler: () => undefined, run: () => Promise.reject(new Error('boom')), hasSynced: () => false, isIdle: () => true };
    const r = await replayWith(() => failing, s, { profile: v136 });
    assert.equal(r.outcome, 'error');
    assert.equal(r.error, 'boom');
    assert.deepEqual(r.log, [{ kind: 'end' }]);
  });

  it('formats tombstones, oldRv and initialList per the profile', () => {
    const lines: NotifyLine[] = [];
    const h36 = loggingHandler('h', v136, (l) => lines.push(l));
    const h15 = loggingHandler('h', v115, (l) => lines.push(l));
    h36.onDelete(new DeletedFinalStateUnknown('default/gone', obj('gone', '7')));
    h36.onDelete(new DeletedFinalStateUnknown('default/none', undefined));
    h15.onAdd(obj('a', '3'), true);
    h36.onAdd({ metadata: { name: 'cluster-scoped', resourceVersion: '4' } }, false);
    assert.deepEqual(lines, [
      { kind: 'notify', handler: 'h', op: 'delete', key: 'default/gone', rv: '7', tombstone: true },
      { kind: 'notify', handler: 'h', op: 'delete', key: 'default/none', rv: '', tombstone: true },
      { kind: 'notify', handler: 'h', op: 'add', key: 'default/a', rv: '3' },
      { kind: 'notify', handler: 'h', op: 'add', key: 'cluster-scoped', rv: '4', initialList: false },
    ]);
  });

  it('seededRand is reproducible and in [0, 1)', () => {
    const a = seededRand(42);
    const b = seededRand(42);
    const xs = Array.from({ length: 100 }, () => a());
    assert.deepEqual(xs, Array.from({ length: 100 }, () => b()));
    assert.ok(xs.every((x) => x >= 0 && x < 1));
    assert.ok(new Set(xs).size > 90);
  });
});
