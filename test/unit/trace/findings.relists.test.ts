import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { computeFindings } from '../../../src/trace/findings';
import type { Finding } from '../../../src/format/trace';
import { header, numbered } from './fixtures';

function findings(events: TraceEvent[], profile = 'v1.36'): Finding[] {
  return computeFindings(header({ profile }), numbered(events));
}
function ids(events: TraceEvent[], profile?: string): string[] {
  return findings(events, profile).map((f) => f.id);
}
function only(events: TraceEvent[], id: string, profile?: string): Finding {
  const f = findings(events, profile).filter((x) => x.id === id || x.id.startsWith(`${id}:`));
  assert.equal(f.length, 1, `expected one ${id}, got ${JSON.stringify(findings(events, profile).map((x) => x.id))}`);
  return f[0];
}

const relist = (t: number, reason: 'Expired' | 'ConnectionRefused' | 'VeryShortWatch' | 'InternalError', rv = '10', row = 9): TraceEvent => ({
  t, type: 'relist', reason, row, rv, consistent: rv === '', text: reason === 'Expired' ? 'too old resource version: 10 (20)' : 'x',
});
const watchEnd = (t: number, over: Partial<Extract<TraceEvent, { type: 'watch.end' }>>): TraceEvent => ({
  t, type: 'watch.end', row: 9, outcome: 'relist', durationMs: 5000, eventCount: 1, how: 'error-event', watchList: false, ...over,
});

describe('findings: relists', () => {
  it('relist-storm: 5 relists within a minute, grouped by reason', () => {
    const ev = [0, 10_000, 20_000, 30_000, 40_000].map((t, i) => relist(t, i < 3 ? 'Expired' : 'VeryShortWatch'));
    const f = only(ev, 'relist-storm');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.evidence, [0, 1, 2, 3, 4]);
    assert.match(f.detail, /Expired ×3, VeryShortWatch ×2/);
    assert.match(f.advice, /proxy or load balancer/);
    assert.ok(f.link?.startsWith('https://github.com/kubernetes/'));
  });

  it('relist-storm: not for 4 relists in a minute, nor 5 spread over five minutes', () => {
    assert.ok(!ids([0, 10_000, 20_000, 30_000].map((t) => relist(t, 'Expired'))).includes('relist-storm'));
    assert.ok(!ids([0, 61_000, 122_000, 183_000, 244_000].map((t) => relist(t, 'Expired'))).includes('relist-storm'));
  });

  it('relist-storm: two separate episodes are two findings', () => {
    const ev = [0, 1000, 2000, 3000, 4000, 600_000, 601_000, 602_000, 603_000, 604_000].map((t) => relist(t, 'Expired'));
    const storms = findings(ev).filter((f) => f.id.startsWith('relist-storm'));
    assert.deepEqual(storms.map((f) => f.id), ['relist-storm:1', 'relist-storm:2']);
  });

  it('refused-watch-relist: a refused watch start that relists (v1.15), with cause, fault and PR #81634', () => {
    const ev: TraceEvent[] = [
      { t: 0, type: 'list.done', rv: '10', items: 2, pages: 1, paginated: false, durationMs: 1 },
      { t: 100, type: 'fault.injected', fault: 'refuseConnections', detail: 'x' },
      watchEnd(100, { row: 6, how: 'open-failed', reason: 'ConnectionRefused', error: 'dial tcp: connect: connection refused' }),
      relist(1100, 'ConnectionRefused', '10', 6),
    ];
    const f = only(ev, 'refused-watch-relist', 'v1.15');
    assert.equal(f.link, 'https://github.com/kubernetes/kubernetes/pull/81634');
    assert.deepEqual(f.evidence, [1, 2, 3]);
    assert.match(f.detail, /profile v1\.15 \(client-go v12\.0\.0\)/);
    assert.match(f.advice, /re-watches from the same resourceVersion/);
  });

  it('refused-watch-relist: relists that retried the refused LIST are named as such, not as the bug', () => {
    const refusedList = (t: number): TraceEvent => ({ t, type: 'list.error', text: 'failed to list: connection refused' });
    const ev: TraceEvent[] = [
      { t: 0, type: 'list.done', rv: '10', items: 2, pages: 1, paginated: false, durationMs: 1 },
      { t: 100, type: 'fault.injected', fault: 'refuseConnections', detail: 'connections refused for 3000 ms' },
      watchEnd(100, { row: 6, how: 'open-failed', reason: 'ConnectionRefused', error: 'dial tcp: connect: connection refused' }),
      relist(1100, 'ConnectionRefused', '10', 6),
      refusedList(1100),
      relist(2100, 'ConnectionRefused', '0', 7),
      refusedList(2100),
      relist(3100, 'ConnectionRefused', '0', 7),
      { t: 3100, type: 'list.done', rv: '11', items: 2, pages: 1, paginated: false, durationMs: 1 },
    ];
    const f = only(ev, 'refused-watch-relist', 'v1.15');
    assert.match(f.title, /caused 1 full relist \(client-go ≤ 1\.15 bug\); 2 more relists followed because the LIST itself was refused while the apiserver was down/);
    assert.match(f.detail, /every client-go version answers a failed LIST/);
    assert.deepEqual(f.evidence, [1, 2, 3], 'evidence stays the refused watch, its relist and the fault');
    assert.doesNotMatch(only(ev.slice(0, 4), 'refused-watch-relist', 'v1.15').title, /more relist/);
  });

  it('refused-watch-relist: not when newer client-go backs off and re-watches, nor for a refused LIST', () => {
    const modern = [watchEnd(100, { row: 6, outcome: 'rewatch-after-backoff', how: 'open-failed' })];
    assert.deepEqual(ids(modern), []);
    const refusedList = [{ t: 0, type: 'list.error', text: 'connection refused' } as TraceEvent, relist(1000, 'ConnectionRefused', '10', 7)];
    assert.ok(!ids(refusedList, 'v1.36').includes('refused-watch-relist'));
  });

  it('internal-error-relist: a 500 InternalError ERROR event that relists', () => {
    const ev = [watchEnd(5, { row: 17, reason: 'InternalError', error: 'Internal error occurred: etcdserver: no leader' }), relist(900, 'InternalError', '10', 17)];
    const f = only(ev, 'internal-error-relist');
    assert.deepEqual(f.evidence, [0, 1]);
    assert.match(f.detail, /etcdserver: no leader/);
    assert.equal(f.link, 'https://github.com/kubernetes/kubernetes/pull/111387');
  });

  it('internal-error-relist: not when the internal-error retry window re-watched', () => {
    assert.deepEqual(ids([watchEnd(5, { row: 17, outcome: 'rewatch', reason: 'InternalError' })]), []);
  });

  it('client-timeout-relist: "got short buffer" decode error (issue #129683, fix #129792)', () => {
    const text = 'an error on the server ("unable to decode an event from the watch stream: got short buffer with n=0, base=4092, cap=163840") has prevented the request from succeeding';
    const ev = [watchEnd(5, { row: 17, reason: 'DecodeError', error: text }), relist(900, 'InternalError', '10', 17)];
    const found = ids(ev);
    assert.ok(found.includes('client-timeout-relist'));
    assert.ok(!found.includes('internal-error-relist'), 'a client timeout is not reported as a server error');
    const f = only(ev, 'client-timeout-relist');
    assert.equal(f.link, 'https://github.com/kubernetes/kubernetes/issues/129683');
    assert.match(f.advice, /pull\/129792/);
  });

  it('client-timeout-relist: not when the timeout closed the watch normally (re-watch)', () => {
    assert.deepEqual(ids([watchEnd(5, { row: 4, outcome: 'rewatch', how: 'timeout', error: 'context deadline exceeded' })]), []);
  });

  it('expired-relist: relists after 410, info for one, warning for three', () => {
    const one = [watchEnd(5, { row: 9, reason: 'Expired' }), relist(900, 'Expired')];
    const f = only(one, 'expired-relist');
    assert.equal(f.severity, 'info');
    assert.deepEqual(f.evidence, [0, 1]);
    assert.match(f.detail, /too old resource version: 10 \(20\)/);
    const three = [relist(0, 'Expired'), relist(100_000, 'Expired'), relist(200_000, 'Expired')];
    assert.equal(only(three, 'expired-relist').severity, 'warning');
  });

  it('expired-relist: not for relists of other reasons', () => {
    assert.deepEqual(ids([relist(0, 'VeryShortWatch', '10', 5)]), []);
  });

  it('consistent-relist: a relist with RV "" and a list retried as consistent read', () => {
    const ev: TraceEvent[] = [relist(0, 'Expired', ''), { t: 1, type: 'list.retryConsistent', reason: 'TooLargeResourceVersion' }];
    const f = only(ev, 'consistent-relist');
    assert.deepEqual(f.evidence, [0, 1]);
    assert.match(f.detail, /TooLargeResourceVersion/);
    assert.match(f.link ?? '', /2340-Consistent-reads-from-cache/);
  });

  it('consistent-relist: not for relists at the last RV', () => {
    assert.ok(!ids([relist(0, 'Expired', '25')]).includes('consistent-relist'));
  });

  it('orders errors first, then warnings, then info', () => {
    const ev: TraceEvent[] = [
      relist(0, 'Expired'),
      { t: 1, type: 'consistency.check', rv: '30', missing: [], extra: ['default/a'], rvMismatch: [] },
      { t: 2, type: 'notify', handler: 'h', op: 'delete', key: 'default/b', rv: '3', isSync: false, tombstone: true, pending: 0 },
    ];
    assert.deepEqual(findings(ev).map((f) => f.severity), ['error', 'warning', 'info']);
  });
});
