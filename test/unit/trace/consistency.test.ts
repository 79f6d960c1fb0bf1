import { strict as assert } from 'assert';
import { FakeClock } from '../../../src/engine/clock';
import type { TraceEvent } from '../../../src/format/events';
import type { ListerWatcher, ListOptions, ObjectList, Watcher } from '../../../src/engine/listWatch';
import type { KubeObject, StoreObject } from '../../../src/engine/objects';
import { DeletedFinalStateUnknown } from '../../../src/engine/objects';
import { checkConsistency, type ConsistencyCheckOptions, type ConsistencyResult } from '../../../src/trace/consistency';
import { computeFindings } from '../../../src/trace/findings';
import { header, numbered } from './fixtures';

const obj = (name: string, rv: string): KubeObject => ({ metadata: { namespace: 'default', name, resourceVersion: rv } });

/** A server whose state can change between lists; paginates by offset tokens. */
class FakeServer implements ListerWatcher {
  readonly url = 'https://127.0.0.1:6443/api/v1/configmaps';
  requests: ListOptions[] = [];
  constructor(
    public items: KubeObject[],
    public rv = '100',
  ) {}
  async list(o: ListOptions): Promise<ObjectList> {
    this.requests.push(o);
    const from = o.continue ? Number(o.continue) : 0;
    const to = o.limit ? from + o.limit : this.items.length;
    const page = this.items.slice(from, to);
    return { metadata: { resourceVersion: this.rv, ...(to < this.items.length ? { continue: String(to) } : {}) }, items: page };
  }
  watch(): Promise<Watcher> {
    throw new Error('the check never watches');
  }
}

async function run(o: Omit<ConsistencyCheckOptions, 'clock' | 'sink'>, clock = new FakeClock()): Promise<{ r: ConsistencyResult; events: TraceEvent[] }> {
  const events: TraceEvent[] = [];
  let r: ConsistencyResult | undefined;
  let err: unknown;
  checkConsistency({ ...o, clock, sink: { emit: (e) => events.push(e) } }).then(
    (x) => (r = x),
    (e) => (err = e),
  );
  await clock.runUntilIdle(() => r !== undefined || err !== undefined);
  if (err) throw err;
  assert.ok(r, 'the check finished');
  return { r, events };
}

const cacheOf = (objs: StoreObject[]) => ({ list: () => objs });

describe('consistency check', () => {
  it('a cache equal to the server: nothing to report, one event, one round', async () => {
    const server = new FakeServer([obj('a', '5'), obj('b', '6')]);
    const { r, events } = await run({ listerWatcher: server, cache: cacheOf([obj('b', '6'), obj('a', '5')]) });
    assert.deepEqual([r.missing, r.extra, r.rvMismatch], [[], [], []]);
    assert.equal(r.rv, '100');
    assert.equal(server.requests.length, 1);
    assert.deepEqual(events.map((e) => e.type), ['consistency.check']);
  });

  it('reads the server with a consistent, paginated LIST (RV "", limit 500, then continue)', async () => {
    const many = Array.from({ length: 1200 }, (_, i) => obj(`o${i}`, '1'));
    const server = new FakeServer(many);
    const { r } = await run({ listerWatcher: server, cache: cacheOf(many), labelSelector: 'app=x' });
    assert.deepEqual(
      server.requests.map((q) => [q.resourceVersion, q.limit, q.continue, q.labelSelector]),
      [['', 500, undefined, 'app=x'], ['', 500, '500', 'app=x'], ['', 500, '1000', 'app=x']],
    );
    assert.equal(r.serverObjects, 1200);
    assert.deepEqual(r.missing, []);
  });

  it('finds a lost delete (extra), a missing object and a stale RV when they persist', async () => {
    const server = new FakeServer([obj('a', '9'), obj('new', '7')]);
    const cache = cacheOf([obj('a', '5'), obj('gone', '3'), new DeletedFinalStateUnknown('default/tomb', undefined)]);
    const { r, events } = await run({ listerWatcher: server, cache });
    assert.deepEqual(r.extra, ['default/gone']);
    assert.deepEqual(r.missing, ['default/new']);
    assert.deepEqual(r.rvMismatch, [{ key: 'default/a', cached: '5', server: '9' }]);
    assert.equal(server.requests.length, 2, 'confirmed by a second round');
    const ev = events[0];
    assert.ok(ev.type === 'consistency.check');
    const findings = computeFindings(header(), numbered(events));
    assert.equal(findings[0].id, 'stale-cache:0');
  });

  it('a difference that resolves before the confirming round is not reported', async () => {
    const server = new FakeServer([obj('a', '9')]);
    const cached = [obj('a', '5')];
    const clock = new FakeClock();
    clock.setTimer(1000, () => (cached[0] = obj('a', '9')));
    const { r } = await run({ listerWatcher: server, cache: cacheOf(cached) }, clock);
    assert.deepEqual(r.rvMismatch, []);
    assert.equal(server.requests.length, 2);
  });

  it('a cache ahead of the list is not stale', async () => {
    const server = new FakeServer([obj('a', '9')]);
    const { r } = await run({ listerWatcher: server, cache: cacheOf([obj('a', '12')]) });
    assert.deepEqual(r.rvMismatch, []);
    assert.equal(server.requests.length, 1);
  });

  it('waits for the informer to reach the list RV before comparing', async () => {
    const server = new FakeServer([obj('a', '100')], '100');
    const cached = [obj('a', '90')];
    let informerRv = '90';
    const clock = new FakeClock();
    clock.setTimer(300, () => {
      informerRv = '100';
      cached[0] = obj('a', '100');
    });
    const { r } = await run({ listerWatcher: server, cache: cacheOf(cached), lastSyncResourceVersion: () => informerRv }, clock);
    assert.deepEqual(r.rvMismatch, []);
    assert.equal(server.requests.length, 1, 'no confirming round was needed');
    assert.ok(clock.now() >= 300);
  });

  it('a failing list rejects and emits nothing', async () => {
    const events: TraceEvent[] = [];
    const lw: ListerWatcher = { url: 'u', list: () => Promise.reject(new Error('forbidden')), watch: () => Promise.reject(new Error('no')) };
    await assert.rejects(checkConsistency({ listerWatcher: lw, cache: cacheOf([]), clock: new FakeClock(), sink: { emit: (e) => events.push(e) } }), /forbidden/);
    assert.equal(events.length, 0);
  });
});
