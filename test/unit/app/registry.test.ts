import { strict as assert } from 'node:assert';
import { Disposable, Emitter, toDisposable } from '../../../src/app/disposable';
import { SessionRegistry } from '../../../src/app/registry';
import { InformerSession } from '../../../src/app/session';

function session(id: string, live: boolean, onStop?: () => void): InformerSession {
  return new InformerSession({
    id,
    kind: live ? 'cluster' : 'import',
    title: id,
    simulated: false,
    ...(live ? { stop: async () => onStop?.() } : {}),
  });
}

describe('app: the session registry', () => {
  it('is bounded: past the limit the oldest ended session is forgotten, running ones stay', () => {
    const r = new SessionRegistry(3);
    r.add(session('run1', true));
    r.add(session('imp1', false));
    r.add(session('run2', true));
    r.add(session('imp2', false));
    assert.deepEqual(r.all().map((s) => s.id), ['run1', 'run2', 'imp2']);
    r.add(session('imp3', false));
    assert.deepEqual(r.all().map((s) => s.id), ['run1', 'run2', 'imp3']);
    assert.equal(r.active?.id, 'imp3');
    r.dispose();
  });

  it('when every session runs, the oldest is stopped and forgotten', async () => {
    const stopped: string[] = [];
    const r = new SessionRegistry(2);
    for (const id of ['a', 'b', 'c']) r.add(session(id, true, () => stopped.push(id)));
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(r.all().map((s) => s.id), ['b', 'c']);
    assert.deepEqual(stopped, ['a']);
    assert.equal(r.size, 2);
    r.dispose();
  });

  it('forgets an imported trace when it is closed, and the active session falls back to the one before', () => {
    const r = new SessionRegistry();
    const changes: number[] = [];
    r.onDidChange(() => changes.push(r.size));
    r.add(session('live', true));
    r.add(session('trace', false));
    r.remove('trace');
    assert.equal(r.get('trace'), undefined);
    assert.equal(r.active?.id, 'live');
    assert.deepEqual(changes, [1, 2, 1]);
    r.remove('unknown');
    assert.deepEqual(changes, [1, 2, 1], 'nothing to forget, no change');
    r.dispose();
  });

  it('a forgotten session no longer reaches the registry when it ends; dispose stops the running ones and drops listeners', async () => {
    const stopped: string[] = [];
    const r = new SessionRegistry();
    let changes = 0;
    r.onDidChange(() => changes++);
    const a = session('a', true, () => stopped.push('a'));
    const b = session('b', true, () => stopped.push('b'));
    r.add(a);
    r.add(b);
    r.remove('a');
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(stopped, ['a']);
    const before = changes;
    r.dispose();
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(stopped, ['a', 'b']);
    assert.equal(changes, before, 'no change events after dispose');
  });

  it('refuses a limit below 1', () => {
    assert.throws(() => new SessionRegistry(0), RangeError);
  });
});

describe('app: Disposable and Emitter', () => {
  class Owner extends Disposable {
    readonly log: string[] = [];
    add(name: string, fail = false) {
      return this.track(
        toDisposable(() => {
          this.log.push(name);
          if (fail) throw new Error(`${name} failed`);
        }),
      );
    }
    protected override onDispose() {
      this.log.push('onDispose');
    }
  }

  it('releases what it tracks once, last first, after onDispose, each even when one throws', () => {
    const o = new Owner();
    o.add('a');
    o.add('b', true);
    o.add('c');
    assert.throws(() => o.dispose(), /b failed/);
    assert.deepEqual(o.log, ['onDispose', 'c', 'b', 'a']);
    o.dispose();
    assert.deepEqual(o.log, ['onDispose', 'c', 'b', 'a'], 'once');
    assert.equal(o.isDisposed, true);
    o.add('late');
    assert.deepEqual(o.log.at(-1), 'late', 'tracked after dispose: released at once');
  });

  it('an emitter subscription is a disposable; a disposed emitter has no listeners and takes none', () => {
    const e = new Emitter<number>();
    const got: number[] = [];
    const sub = e.event((v) => got.push(v));
    e.fire(1);
    sub.dispose();
    e.fire(2);
    e.event((v) => got.push(v * 10));
    e.dispose();
    e.fire(3);
    e.event((v) => got.push(v));
    e.fire(4);
    assert.deepEqual(got, [1]);
    assert.equal(e.listenerCount, 0);
  });
});
