import assert from 'node:assert/strict';
import { FakeClock, settle } from '../../../src/engine/clock';
import { DeletedFinalStateUnknown, type KubeObject, type StoreObject } from '../../../src/engine/objects';
import {
  INITIAL_BUFFER_SIZE,
  ProcessorListener,
  SyncTracker,
  type Notification,
  type ResourceEventHandler,
} from '../../../src/engine/processorListener';
import { CaptureSink, cm } from './informerFixtures';

function listener(handler: ResourceEventHandler, upstream = () => true, hasInitialListFlag = true) {
  const clock = new FakeClock();
  const sink = new CaptureSink();
  const l = new ProcessorListener({
    name: 'h',
    handler,
    clock,
    emit: (e) => sink.emit(e),
    requestedResyncMs: 0,
    resyncPeriodMs: 0,
    hasInitialListFlag,
    tracker: new SyncTracker(upstream),
  });
  return { l, clock, sink };
}

const add = (o: KubeObject, initial = false): Notification => ({ op: 'add', key: `default/${o.metadata?.name}`, obj: o, isInInitialList: initial, isSync: false });

describe('processorListener', () => {
  it('buffers without bound: the ring starts at 1024 and doubles, delivering in order', async () => {
    const seen: string[] = [];
    const { l } = listener({ onAdd: (o) => void seen.push(o.metadata?.resourceVersion ?? '') });
    assert.equal(l.bufferCapacity(), INITIAL_BUFFER_SIZE);
    for (let i = 0; i < 1500; i++) l.add(add(cm('a', String(i))));
    assert.equal(l.pending(), 1500);
    assert.equal(l.bufferCapacity(), 2048);
    const run = l.run();
    await settle();
    assert.equal(seen.length, 1500);
    assert.deepEqual(seen.slice(0, 3), ['0', '1', '2']);
    assert.equal(seen[1499], '1499');
    assert.equal(l.bufferCapacity(), 2048, 'never shrinks');
    l.stop();
    await run;
  });

  it('awaits a slow handler before the next notification, reports it, and counts what waits in the buffer', async () => {
    const calls: string[] = [];
    const { l, clock, sink } = listener({
      onAdd: async (o) => {
        calls.push(`start ${o.metadata?.name}`);
        await clock.sleep(150);
        calls.push(`end ${o.metadata?.name}`);
      },
    });
    const run = l.run();
    l.add(add(cm('a', '1')));
    l.add(add(cm('b', '1')));
    await settle();
    assert.deepEqual(calls, ['start a']);
    assert.equal(l.isIdle(), false);
    await clock.advance(150);
    assert.deepEqual(calls, ['start a', 'end a', 'start b']);
    await clock.advance(150);
    assert.equal(l.isIdle(), true);
    assert.deepEqual(sink.of('notify').map((e) => [e.key, e.pending, e.t]), [['default/a', 1, 0], ['default/b', 0, 150]]);
    assert.deepEqual(sink.of('handler.slow').map((e) => e.durationMs), [150, 150]);
    l.stop();
    await run;
  });

  it('does not report a handler at the 100 ms threshold as slow', async () => {
    const { l, clock, sink } = listener({ onAdd: () => clock.sleep(100) });
    const run = l.run();
    l.add(add(cm('a', '1')));
    await clock.advance(100);
    assert.equal(sink.of('handler.slow').length, 0);
    l.stop();
    await run;
  });

  it('hasSynced: upstream synced and every initial-list add handled', async () => {
    let upstream = false;
    const { l, clock } = listener({ onAdd: () => clock.sleep(10) }, () => upstream);
    const run = l.run();
    l.add(add(cm('a', '1'), true));
    upstream = true;
    await settle();
    assert.equal(l.hasSynced(), false);
    await clock.advance(10);
    assert.equal(l.hasSynced(), true);
    l.add(add(cm('b', '1'), false));
    assert.equal(l.hasSynced(), true, 'a non-initial add is not tracked');
    l.stop();
    await run;
  });

  it('emits notify with the per-op fields (initialList only when the profile has the flag, tombstone on deletes)', async () => {
    const deleted: StoreObject[] = [];
    const { l, sink } = listener({ onDelete: (o) => void deleted.push(o) });
    const run = l.run();
    l.add(add(cm('a', '1'), true));
    l.add({ op: 'update', key: 'default/a', oldObj: cm('a', '1'), newObj: cm('a', '2'), isSync: false, change: 'resourceVersion' });
    l.add({ op: 'delete', key: 'default/a', obj: new DeletedFinalStateUnknown('default/a', cm('a', '2')) });
    await settle();
    const ev = sink.of('notify').map(({ t: _t, pending: _p, ...rest }) => rest);
    assert.deepEqual(ev, [
      { type: 'notify', handler: 'h', key: 'default/a', op: 'add', rv: '1', isSync: false, initialList: true },
      { type: 'notify', handler: 'h', key: 'default/a', op: 'update', rv: '2', oldRv: '1', isSync: false, change: 'resourceVersion' },
      { type: 'notify', handler: 'h', key: 'default/a', op: 'delete', rv: '2', isSync: false, tombstone: true },
    ]);
    assert.equal(deleted.length, 1);
    l.stop();
    await run;

    const old = listener({}, () => true, false);
    const run2 = old.l.run();
    old.l.add(add(cm('a', '1'), false));
    await settle();
    assert.equal('initialList' in old.sink.of('notify')[0], false);
    old.l.stop();
    await run2;
  });

  it('a throwing handler is logged, the item skipped, the next one delivered 1 s later; a failed initial add never finishes', async () => {
    const seen: string[] = [];
    const { l, clock, sink } = listener({
      onAdd: (o) => {
        if (o.metadata?.name === 'bad') throw new Error('nil pointer');
        seen.push(o.metadata?.name ?? '');
      },
    });
    const run = l.run();
    l.add(add(cm('bad', '1'), true));
    l.add(add(cm('good', '1')));
    await settle();
    assert.deepEqual(seen, []);
    assert.deepEqual(sink.of('log').map((e) => [e.level, e.msg, e.kv?.panic]), [['error', 'Observed a panic', 'nil pointer']]);
    await clock.advance(1000);
    assert.deepEqual(seen, ['good']);
    assert.equal(l.hasSynced(), false);
    l.stop();
    await run;
  });

  it('stop drops what is still buffered and resolves once the running handler returns', async () => {
    const seen: string[] = [];
    const { l, clock } = listener({ onAdd: async (o) => { seen.push(o.metadata?.name ?? ''); await clock.sleep(50); } });
    const run = l.run();
    l.add(add(cm('a', '1')));
    l.add(add(cm('b', '1')));
    await settle();
    l.stop();
    assert.equal(l.pending(), 0);
    let done = false;
    void run.then(() => (done = true));
    await settle();
    assert.equal(done, false);
    await clock.advance(50);
    assert.equal(done, true);
    assert.deepEqual(seen, ['a']);
    l.add(add(cm('c', '1')));
    assert.equal(l.pending(), 0, 'adds after stop are ignored');
  });
});
