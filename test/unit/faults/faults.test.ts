import { strict as assert } from 'assert';
import { FakeClock, settle } from '../../../src/engine/clock';
import type { TraceEvent } from '../../../src/format/events';
import {
  StatusError,
  TransportError,
  type ListerWatcher,
  type ListOptions,
  type ObjectList,
  type StreamEnd,
  type WatchEvent,
  type Watcher,
  type WatchOptions,
} from '../../../src/engine/listWatch';
import { FaultInjectingListerWatcher, INTERNAL_ERROR_MESSAGE } from '../../../src/sources/faults';

/** A watcher the test feeds by hand. */
class ManualWatcher implements Watcher {
  end?: StreamEnd;
  stopped = false;
  private readonly buffered: (WatchEvent | null)[] = [];
  private waiting?: (v: WatchEvent | null) => void;
  push(ev: WatchEvent | null): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      if (ev === null) this.end = { kind: 'eof' };
      w(ev);
    } else this.buffered.push(ev);
  }
  next(): Promise<WatchEvent | null> {
    if (this.end) return Promise.resolve(null);
    if (this.buffered.length > 0) {
      const ev = this.buffered.shift() ?? null;
      if (ev === null) this.end = { kind: 'eof' };
      return Promise.resolve(ev);
    }
    return new Promise((r) => (this.waiting = r));
  }
  stop(): void {
    this.stopped = true;
    this.end ??= { kind: 'stopped' };
    this.waiting?.(null);
    this.waiting = undefined;
  }
}

class FakeLW implements ListerWatcher {
  readonly url = 'https://127.0.0.1:6443/api/v1/configmaps';
  lists: ListOptions[] = [];
  watches: WatchOptions[] = [];
  watchers: ManualWatcher[] = [];
  async list(o: ListOptions): Promise<ObjectList> {
    this.lists.push(o);
    return { metadata: { resourceVersion: '10' }, items: [] };
  }
  async watch(o: WatchOptions): Promise<Watcher> {
    this.watches.push(o);
    const w = new ManualWatcher();
    this.watchers.push(w);
    return w;
  }
}

const cm = (name: string, rv: string) => ({ metadata: { namespace: 'default', name, resourceVersion: rv } });
const signal = new AbortController().signal;

function setup() {
  const clock = new FakeClock(1000);
  const events: TraceEvent[] = [];
  const inner = new FakeLW();
  const lw = new FaultInjectingListerWatcher(inner, { clock, sink: { emit: (e) => events.push(e) } });
  const faults = () => events.filter((e) => e.type === 'fault.injected').map((e) => (e.type === 'fault.injected' ? e.fault : ''));
  return { clock, events, inner, lw, faults };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

describe('FaultInjectingListerWatcher', () => {
  it('passes everything through when no fault is armed', async () => {
    const { inner, lw, events } = setup();
    assert.equal(lw.url, inner.url);
    const list = await lw.list({ resourceVersion: '0', limit: 500 }, signal);
    assert.equal(list.metadata.resourceVersion, '10');
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    inner.watchers[0].push({ type: 'ADDED', object: cm('a', '11') });
    inner.watchers[0].push(null);
    assert.equal((await w.next())?.type, 'ADDED');
    assert.equal(await w.next(), null);
    assert.deepEqual(w.end, { kind: 'eof' });
    assert.equal(events.length, 0);
  });

  it('refuseConnections(ms): ends open watches, refuses list and watch in the window, then recovers', async () => {
    const { clock, inner, lw, faults } = setup();
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    const pending = w.next();
    lw.refuseConnections(5000);
    assert.equal(await pending, null, 'the open watch is closed by the "restart"');
    assert.equal(inner.watchers[0].stopped, true);
    const le = await rejection(lw.list({ resourceVersion: '10' }, signal));
    assert.ok(le instanceof TransportError && le.kind === 'connection-refused');
    assert.match((le as Error).message, /dial tcp 127\.0\.0\.1:6443: connect: connection refused/);
    const we = await rejection(lw.watch({ resourceVersion: '10' }, signal));
    assert.ok(we instanceof TransportError && we.kind === 'connection-refused');
    assert.equal(inner.lists.length, 0, 'refused requests never reach the server');
    await clock.advance(5000);
    await lw.list({ resourceVersion: '10' }, signal);
    assert.equal(inner.lists.length, 1);
    assert.deepEqual(faults(), ['refuseConnections']);
  });

  it('resetWatch(): the open stream ends as a connection reset', async () => {
    const { lw, faults } = setup();
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    const pending = w.next();
    lw.resetWatch();
    assert.equal(await pending, null);
    assert.equal(w.end?.kind, 'reset');
    assert.deepEqual(faults(), ['resetWatch']);
  });

  it('expireNextWatch(): the next watch gets ERROR 410 Expired with the too-old text, then closes', async () => {
    const { inner, lw, faults, events } = setup();
    lw.expireNextWatch();
    assert.deepEqual(lw.pendingFaults(), ['expireNextWatch']);
    assert.deepEqual(faults(), [], 'nothing happens until a watch is opened');
    const w = await lw.watch({ resourceVersion: '42' }, signal);
    const ev = await w.next();
    assert.equal(ev?.type, 'ERROR');
    assert.deepEqual({ ...ev?.object }, { apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 42 (43)' });
    assert.equal(await w.next(), null);
    assert.equal(inner.watches.length, 0);
    assert.deepEqual(faults(), ['expireNextWatch']);
    assert.equal(events[0].t, 1000);
    await lw.watch({ resourceVersion: '42' }, signal);
    assert.equal(inner.watches.length, 1, 'one-shot');
  });

  it('tooLargeNextList(): 504 Timeout with cause ResourceVersionTooLarge', async () => {
    const { inner, lw, faults } = setup();
    lw.tooLargeNextList();
    const e = await rejection(lw.list({ resourceVersion: '30' }, signal));
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 504);
    assert.equal(e.status.reason, 'Timeout');
    assert.equal(e.message, 'Timeout: Too large resource version: 30, current: 29');
    assert.deepEqual(e.status.details?.causes, [{ type: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
    assert.deepEqual(faults(), ['tooLargeNextList']);
    await lw.list({ resourceVersion: '' }, signal);
    assert.equal(inner.lists.length, 1);
  });

  it('internalErrorOnWatch(): ERROR 500 InternalError into the open stream, after what it already had', async () => {
    const { inner, lw, faults } = setup();
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    inner.watchers[0].push({ type: 'ADDED', object: cm('a', '11') });
    assert.equal((await w.next())?.type, 'ADDED');
    const pending = w.next();
    lw.internalErrorOnWatch();
    const ev = await pending;
    assert.equal(ev?.type, 'ERROR');
    assert.equal((ev?.object as { code?: number }).code, 500);
    assert.equal((ev?.object as { reason?: string }).reason, 'InternalError');
    assert.equal((ev?.object as { message?: string }).message, INTERNAL_ERROR_MESSAGE);
    assert.equal(await w.next(), null);
    assert.equal(inner.watchers[0].stopped, true);
    assert.deepEqual(faults(), ['internalErrorOnWatch']);
  });

  it('internalErrorOnWatch() with no open watch hits the next one', async () => {
    const { lw, faults } = setup();
    lw.internalErrorOnWatch();
    assert.deepEqual(faults(), []);
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    assert.equal((await w.next())?.type, 'ERROR');
    assert.deepEqual(faults(), ['internalErrorOnWatch']);
  });

  it('tooManyRequests(s): the next watch is answered 429 with Retry-After', async () => {
    const { inner, lw, faults } = setup();
    lw.tooManyRequests(3);
    await lw.list({ resourceVersion: '0' }, signal);
    const e = await rejection(lw.watch({ resourceVersion: '10' }, signal));
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 429);
    assert.equal(e.status.reason, 'TooManyRequests');
    assert.equal(e.status.details?.retryAfterSeconds, 3);
    assert.equal(inner.watches.length, 0);
    assert.deepEqual(faults(), ['tooManyRequests']);
  });

  it('dropNextDelete(): swallows exactly one DELETED while the stream stays up', async () => {
    const { inner, lw, faults, events } = setup();
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    lw.dropNextDelete();
    inner.watchers[0].push({ type: 'MODIFIED', object: cm('a', '11') });
    inner.watchers[0].push({ type: 'DELETED', object: cm('a', '12') });
    inner.watchers[0].push({ type: 'DELETED', object: cm('b', '13') });
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const ev = await w.next();
      seen.push(`${ev?.type} ${ev?.object.metadata?.name}`);
    }
    assert.deepEqual(seen, ['MODIFIED a', 'DELETED b']);
    assert.equal(w.end, undefined, 'the watch stays up');
    assert.deepEqual(faults(), ['dropNextDelete']);
    const f = events[0];
    assert.ok(f.type === 'fault.injected' && f.detail?.includes('default/a'));
  });

  it('stop() closes the inner watcher and a pending next() resolves null', async () => {
    const { inner, lw, events } = setup();
    const w = await lw.watch({ resourceVersion: '10' }, signal);
    const pending = w.next();
    w.stop();
    await settle();
    assert.equal(await pending, null);
    assert.equal(inner.watchers[0].stopped, true);
    assert.equal(w.end?.kind, 'stopped');
    lw.resetWatch();
    const f = events[0];
    assert.ok(f.type === 'fault.injected' && f.detail?.startsWith('0 open watch(es)'), 'a closed watch is no longer tracked');
  });
});
