import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { computeFindings } from '../../../src/trace/findings';
import type { Finding } from '../../../src/format/trace';
import { header, numbered } from './fixtures';

function findings(events: TraceEvent[], over = {}): Finding[] {
  return computeFindings(header(over), numbered(events));
}
const watchListStart = (t: number): TraceEvent => ({ t, type: 'watch.start', rv: '', timeoutSeconds: 300, watchList: true, propagateRVFromStart: false });
const watchListEnd = (t: number): TraceEvent => ({ t, type: 'watch.end', row: 26, outcome: 'watchlist-again', durationMs: 2000, eventCount: 1, how: 'eof', watchList: true });
const added = (t: number): TraceEvent => ({ t, type: 'watch.event', eventType: 'ADDED', key: 'default/a', rv: '5', accepted: true });

describe('findings: watch-list, cache consistency, 429, trace drops', () => {
  it('watchlist-no-end-bookmark: streams that close before the initial-events-end bookmark', () => {
    const ev = [watchListStart(0), added(1), watchListEnd(2000), watchListStart(2000), added(2001), watchListEnd(4000)];
    const [f] = findings(ev);
    assert.equal(f.id, 'watchlist-no-end-bookmark');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.evidence, [0, 2, 3, 5]);
    assert.match(f.title, /2 attempts/);
    assert.equal(f.link, 'https://github.com/kubernetes/kubernetes/issues/140890');
  });

  it('watchlist-no-end-bookmark: not when the watch-list failed with an error (another row)', () => {
    const failed: TraceEvent[] = [
      watchListStart(0),
      { t: 0, type: 'watch.end', row: 10, outcome: 'watchlist-again', durationMs: 0, eventCount: 0, how: 'open-failed', reason: 'Expired', watchList: true },
    ];
    assert.deepEqual(findings(failed).map((f) => f.id), []);
  });

  it('watchlist-no-end-bookmark: not once the bookmark arrived, nor for plain watches', () => {
    const ok: TraceEvent[] = [
      watchListStart(0), added(1),
      { t: 2, type: 'watch.event', eventType: 'BOOKMARK', rv: '9', accepted: true, initialEventsEnd: true },
      { t: 60_000, type: 'watch.end', row: 1, outcome: 'rewatch', durationMs: 60_000, eventCount: 2, how: 'eof', watchList: true },
    ];
    assert.deepEqual(findings(ok), []);
    const plain: TraceEvent[] = [
      { t: 0, type: 'watch.start', rv: '9', timeoutSeconds: 300, watchList: false, propagateRVFromStart: true },
      { t: 60_000, type: 'watch.end', row: 1, outcome: 'rewatch', durationMs: 60_000, eventCount: 0, how: 'eof', watchList: false },
    ];
    assert.deepEqual(findings(plain), []);
  });

  it('stale-cache: a consistency check with extra, missing and mismatched objects', () => {
    const ev: TraceEvent[] = [
      { t: 0, type: 'fault.injected', fault: 'dropNextDelete', detail: 'DELETED default/gone swallowed' },
      { t: 10_000, type: 'consistency.check', rv: '40', missing: ['default/new'], extra: ['default/gone'], rvMismatch: [{ key: 'default/a', cached: '5', server: '7' }] },
    ];
    const [f] = findings(ev);
    assert.equal(f.id, 'stale-cache:1');
    assert.equal(f.severity, 'error');
    assert.match(f.detail, /1 object in the cache that the server no longer has \(default\/gone\) — a delete the informer never saw/);
    assert.match(f.detail, /missing from the cache \(default\/new\)/);
    assert.match(f.detail, /default\/a cache 5 \/ server 7/);
    assert.match(f.detail, /dropped on purpose by fault injection/);
    assert.deepEqual(f.evidence, [0, 1]);
    assert.equal(f.link, 'https://github.com/etcd-io/etcd/pull/17555');
  });

  it('stale-cache: not when the check found the cache consistent', () => {
    assert.deepEqual(findings([{ t: 0, type: 'consistency.check', rv: '40', missing: [], extra: [], rvMismatch: [] }]), []);
  });

  it('apiserver-429: re-watch after backoff is info; a 429 relist (v1.15) is a warning', () => {
    const rewatch: TraceEvent[] = [{ t: 0, type: 'watch.end', row: 14, outcome: 'rewatch-after-backoff', durationMs: 0, eventCount: 0, how: 'open-failed', error: 'storage is (re)initializing', watchList: false }];
    const [i] = findings(rewatch);
    assert.equal(i.id, 'apiserver-429');
    assert.equal(i.severity, 'info');
    assert.match(i.detail, /backed off and re-watched/);
    const relisted: TraceEvent[] = [{ t: 0, type: 'watch.end', row: 15, outcome: 'relist', reason: 'TooManyRequests', durationMs: 3000, eventCount: 0, how: 'error-event', watchList: false }];
    const [w] = findings(relisted, { profile: 'v1.15' });
    assert.equal(w.severity, 'warning');
    assert.match(w.detail, /client-go v12\.0\.0 relists on 429/);
    assert.match(w.link ?? '', /4568-resilient-watchcache-initialization/);
  });

  it('apiserver-429: not for other failed lists', () => {
    assert.deepEqual(findings([{ t: 0, type: 'list.error', text: 'boom', code: 500 }]), []);
    // A 403 is an access finding (findings/access.ts), never a 429 one.
    assert.deepEqual(findings([{ t: 0, type: 'list.error', text: 'forbidden', code: 403 }]).map((f) => f.id), ['access-forbidden']);
  });

  it('trace-incomplete: when the recorder dropped events, not otherwise', () => {
    const [f] = findings([{ t: 0, type: 'trace.dropped', count: 10 }], { dropped: 10, cap: 100 });
    assert.equal(f.id, 'trace-incomplete');
    assert.deepEqual(f.evidence, [0]);
    assert.deepEqual(findings([]), []);
  });
});
