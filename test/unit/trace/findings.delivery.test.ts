import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { computeFindings } from '../../../src/trace/findings';
import type { Finding } from '../../../src/format/trace';
import { header, numbered } from './fixtures';

function findings(events: TraceEvent[], over = {}): Finding[] {
  return computeFindings(header({ profile: 'v1.15', ...over }), numbered(events));
}
function byId(events: TraceEvent[], id: string, over = {}): Finding[] {
  return findings(events, over).filter((x) => x.id === id || x.id.startsWith(`${id}:`));
}

type Change = 'identical' | 'resourceVersion';
const update = (t: number, key: string, change: Change, delivered = 1): TraceEvent => ({
  t, type: 'distribute', op: 'update', key, isSync: true, delivered, skipped: 1 - delivered, change, oldRv: '5', rv: change === 'identical' ? '5' : '6',
});
const notifyUpdate = (t: number, key: string, change: Change): TraceEvent => ({
  t, type: 'notify', handler: 'main', op: 'update', key, rv: '5', oldRv: '5', isSync: true, change, pending: 0,
});
const relistAt = (t: number): TraceEvent[] => [
  { t, type: 'relist', reason: 'ConnectionRefused', row: 6, rv: '10', consistent: false, text: 'connection refused' },
  { t: t + 1, type: 'list.done', rv: '10', items: 4, pages: 1, paginated: false, durationMs: 1 },
];

describe('findings: identical updates, tombstones, handlers, FIFO', () => {
  it('identical-updates-after-relist: counts the burst, its share of all updates, per handler', () => {
    const ev: TraceEvent[] = [update(1, 'default/x', 'resourceVersion'), ...relistAt(10)];
    for (const k of ['a', 'b', 'c', 'd']) ev.push(update(20, `default/${k}`, 'identical'), notifyUpdate(20, `default/${k}`, 'identical'));
    const [f] = byId(ev, 'identical-updates-after-relist');
    assert.ok(f);
    assert.equal(f.title, '4 identical updates after the relist at t=0s');
    assert.match(f.detail, /4 of 4 listed objects/);
    assert.match(f.detail, /80% of all 5 update notifications/);
    assert.match(f.detail, /per handler: main ×4/);
    assert.match(f.advice, /same resourceVersion/);
    assert.equal(f.link, 'https://github.com/kubernetes/kubernetes/pull/81634');
    assert.deepEqual(f.evidence, [1, 3, 5, 7, 9]);
  });

  it('identical-updates-after-relist: not when the informer held them back as syncs (delivered 0), nor for resync updates', () => {
    const held: TraceEvent[] = [...relistAt(10), ...['a', 'b', 'c', 'd'].map((k) => update(20, `default/${k}`, 'identical', 0))];
    assert.deepEqual(byId(held, 'identical-updates-after-relist'), []);
    const resync: TraceEvent[] = [
      ...relistAt(10),
      { t: 15, type: 'fifo.resync', queued: 4, skippedBusy: 0, atomic: false },
      ...['a', 'b', 'c', 'd'].map((k) => update(20, `default/${k}`, 'identical')),
    ];
    assert.deepEqual(byId(resync, 'identical-updates-after-relist'), []);
  });

  it('identical-updates-after-relist: not for a trickle (1 of 4 listed objects)', () => {
    assert.deepEqual(byId([...relistAt(10), update(20, 'default/a', 'identical')], 'identical-updates-after-relist'), []);
  });

  it('tombstones-delivered: delete handlers got DeletedFinalStateUnknown', () => {
    const ev: TraceEvent[] = [
      { t: 1, type: 'fifo.enqueue', key: 'default/a', delta: 'Deleted', rv: '5', depthKeys: 1, depthDeltas: 1, tombstone: 'replace-known' },
      { t: 2, type: 'notify', handler: 'main', op: 'delete', key: 'default/a', rv: '5', isSync: false, tombstone: true, pending: 0 },
      { t: 2, type: 'notify', handler: 'audit', op: 'delete', key: 'default/a', rv: '5', isSync: false, tombstone: true, pending: 0 },
    ];
    const [f] = byId(ev, 'tombstones-delivered');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.evidence, [0, 1, 2]);
    assert.match(f.detail, /main ×1, audit ×1/);
    assert.match(f.advice, /cache\.DeletedFinalStateUnknown/);
    assert.equal(f.link, 'https://pkg.go.dev/k8s.io/client-go/tools/cache#DeletedFinalStateUnknown');
  });

  it('tombstones-delivered: not for ordinary deletes', () => {
    const ev: TraceEvent[] = [{ t: 2, type: 'notify', handler: 'main', op: 'delete', key: 'default/a', rv: '5', isSync: false, pending: 0 }];
    assert.deepEqual(findings(ev), []);
  });

  it('slow-handler: a growing buffer is a warning; many slow calls alone are info', () => {
    const growing: TraceEvent[] = [10, 60, 150, 90].map((pending, i) => ({
      t: i * 100, type: 'notify', handler: 'slowpoke', op: 'add', key: `default/o${i}`, rv: '1', isSync: false, pending,
    }));
    const [w] = byId(growing, 'slow-handler');
    assert.equal(w.id, 'slow-handler:slowpoke');
    assert.equal(w.severity, 'warning');
    assert.match(w.title, /150 notifications waiting/);
    assert.deepEqual(w.evidence, [2]);
    const calls: TraceEvent[] = [1, 2, 3, 4, 5].map((t) => ({ t, type: 'handler.slow', handler: 'h', durationMs: 250 }));
    const [i] = byId(calls, 'slow-handler');
    assert.equal(i.severity, 'info');
    assert.deepEqual(i.evidence, [0, 1, 2, 3, 4]);
  });

  it('slow-handler: a backlog without slow calls explains the burst instead of saying "0 calls took longer"', () => {
    const burst: TraceEvent[] = [500, 999, 10].map((pending, i) => ({
      t: i, type: 'notify', handler: 'fast', op: 'update', key: `default/o${i}`, rv: '1', oldRv: '1', isSync: false, pending,
    }));
    const [f] = byId(burst, 'slow-handler');
    assert.match(f.title, /999 notifications waiting/);
    assert.doesNotMatch(f.detail, /0 calls/);
    assert.match(f.detail, /No single call of "fast" took longer than 100 ms, yet its buffer peaked at 999 pending notifications/);
    assert.match(f.detail, /many fast calls still fell behind/);
  });

  it('slow-handler: not for two slow calls and a shallow buffer', () => {
    const ev: TraceEvent[] = [
      { t: 1, type: 'handler.slow', handler: 'h', durationMs: 200 },
      { t: 2, type: 'handler.slow', handler: 'h', durationMs: 300 },
      { t: 3, type: 'notify', handler: 'h', op: 'add', key: 'a/b', rv: '1', isSync: false, pending: 3 },
    ];
    assert.deepEqual(findings(ev), []);
  });

  it('fifo-backlog: from 1000 queued deltas, not below', () => {
    const enq = (depthDeltas: number): TraceEvent => ({ t: 1, type: 'fifo.enqueue', key: 'a/b', delta: 'Added', rv: '1', depthKeys: depthDeltas, depthDeltas });
    assert.equal(byId([enq(10), enq(1500), enq(20)], 'fifo-backlog')[0]?.evidence[0], 1);
    assert.deepEqual(byId([enq(999)], 'fifo-backlog'), []);
  });
});

describe('findings: identical updates across several relists', () => {
  it('sums several bursts into one finding', () => {
    const ev: TraceEvent[] = [];
    for (const t of [10, 1000, 2000]) {
      ev.push(...relistAt(t));
      for (const k of ['a', 'b', 'c', 'd']) ev.push(update(t + 5, `default/${k}`, 'identical'));
    }
    const f = byId(ev, 'identical-updates-after-relist');
    assert.equal(f.length, 1);
    assert.equal(f[0].title, '12 identical updates after 3 relists');
    assert.match(f[0].detail, /reasons ConnectionRefused ×3/);
    assert.match(f[0].detail, /100% of all 12 update notifications/);
  });
});
