import { strict as assert } from 'node:assert';
import type { RecordedEvent, TraceEvent } from '../../../src/format/events';
import { contactFailure, serverAnswered, watchReachability } from '../../../src/vscode/reachabilityAlert';
import { numbered } from '../trace/fixtures';

function fakeSession() {
  let listener: ((b: RecordedEvent[]) => void) | undefined;
  let seq = 0;
  return {
    title: 'configmaps (all namespaces, v1.32)',
    subscribe(fn: (b: RecordedEvent[]) => void) {
      listener = fn;
      return () => (listener = undefined);
    },
    get subscribed() {
      return listener !== undefined;
    },
    push(...events: TraceEvent[]) {
      const batch = numbered(events).map((e) => ({ ...e, seq: seq++ }));
      listener?.(batch);
    },
  };
}

/** A ui with a hand-driven clock and timers. */
function fakeUi() {
  let now = 0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const warnings: string[] = [];
  const infos: string[] = [];
  const logged: string[] = [];
  return {
    warnings,
    infos,
    logged,
    pending: () => timers.filter((t) => t.live).length,
    advance(ms: number) {
      now += ms;
      for (const t of timers) {
        if (t.live && t.at <= now) {
          t.live = false;
          t.fn();
        }
      }
    },
    ui: {
      showWarning: (m: string) => warnings.push(m),
      showInfo: (m: string) => infos.push(m),
      log: (l: string) => logged.push(l),
      now: () => now,
      setTimeout: (fn: () => void, ms: number) => {
        const t = { at: now + ms, fn, live: true };
        timers.push(t);
        return () => (t.live = false);
      },
    },
  };
}

const refused: TraceEvent = { t: 1, type: 'list.error', text: 'Get "https://127.0.0.1:6443/api/v1/configmaps?limit=500": dial tcp 127.0.0.1:6443: connect: connection refused' };
const watchRefused: TraceEvent = { t: 2, type: 'watch.end', row: 1, outcome: 'rewatch-after-backoff', durationMs: 0, eventCount: 0, how: 'open-failed', error: 'connect: connection refused', watchList: false };
const listed: TraceEvent = { t: 3, type: 'list.done', rv: '10', items: 3, pages: 1, paginated: false, durationMs: 4 };
const opened: TraceEvent = { t: 3, type: 'watch.opened', watchList: false };
const emptyWatcher: TraceEvent = { t: 2, type: 'watch.end', row: 8, outcome: 'rewatch', durationMs: 0, eventCount: 0, how: 'open-retries-exhausted', error: 'read: connection reset by peer', watchList: false };
const stopped: TraceEvent = { t: 5, type: 'watch.end', row: 0, outcome: 'stop', durationMs: 9, eventCount: 0, how: 'stopped', watchList: false };
const throttled: TraceEvent = { t: 4, type: 'list.error', text: 'Too many requests', code: 429, reason: 'TooManyRequests' };

describe('reachability alert (the cluster unreachable while a panel is open)', () => {
  it('says which events are failures to reach the server and which are answers', () => {
    assert.match(contactFailure(refused) ?? '', /connect: connection refused$/);
    assert.equal(contactFailure(watchRefused), 'connect: connection refused');
    assert.equal(contactFailure(throttled), undefined, 'a 429 is an answer from the server');
    assert.equal(contactFailure(listed), undefined);
    assert.equal(serverAnswered(listed), true);
    assert.equal(serverAnswered(throttled), true);
    assert.equal(serverAnswered(refused), false);
    assert.equal(serverAnswered(watchRefused), false);
    assert.equal(serverAnswered(opened), true, 'a watch the server accepted is an answer');
    assert.equal(contactFailure(emptyWatcher), 'read: connection reset by peer', 'the REST client gave up reaching the server');
    assert.equal(serverAnswered(emptyWatcher), false);
    assert.equal(serverAnswered(stopped), false, 'a watch the user stopped is no answer');
    assert.equal(contactFailure(stopped), undefined);
  });

  it('after a short outage the re-opened watch on a quiet cluster is the answer (no event needs to follow)', () => {
    const s = fakeSession();
    const f = fakeUi();
    watchReachability(s, f.ui);
    for (let i = 0; i < 4; i++) {
      s.push(watchRefused);
      f.advance(2000);
    }
    assert.equal(f.warnings.length, 1);
    s.push({ t: 9, type: 'watch.start', rv: '10', timeoutSeconds: 400, watchList: false, propagateRVFromStart: true });
    assert.deepEqual(f.infos, [], 'asking is not an answer');
    s.push(opened);
    assert.deepEqual(f.infos, ['Informer Inspector: configmaps (all namespaces, v1.32) reaches the cluster again (no answer for 8 s).']);
  });

  it('one warning after 5 s of failures, none for each further failure, one message when the server answers again', () => {
    const s = fakeSession();
    const f = fakeUi();
    watchReachability(s, f.ui);
    s.push(refused);
    f.advance(4000);
    assert.deepEqual(f.warnings, [], 'not before 5 s');
    s.push(watchRefused);
    f.advance(1000);
    assert.equal(f.warnings.length, 1);
    assert.match(f.warnings[0], /^Informer Inspector: configmaps \(all namespaces, v1\.32\) cannot reach the cluster: connect: connection refused\. The informer keeps retrying/);
    for (let i = 0; i < 20; i++) {
      s.push(refused);
      f.advance(3000);
    }
    assert.equal(f.warnings.length, 1, 'one warning per outage');
    s.push(listed);
    assert.deepEqual(f.infos, ['Informer Inspector: configmaps (all namespaces, v1.32) reaches the cluster again (no answer for 65 s).']);
    assert.equal(f.logged.length, 2);
    // A second outage is told again.
    s.push(refused);
    f.advance(6000);
    assert.equal(f.warnings.length, 2);
  });

  it('a failure the next attempt repairs within 5 s says nothing', () => {
    const s = fakeSession();
    const f = fakeUi();
    watchReachability(s, f.ui);
    s.push(refused);
    f.advance(2000);
    s.push(listed);
    f.advance(10_000);
    assert.deepEqual([f.warnings, f.infos], [[], []]);
    assert.equal(f.pending(), 0);
  });

  it('answers with an HTTP status are not an outage', () => {
    const s = fakeSession();
    const f = fakeUi();
    watchReachability(s, f.ui);
    for (let i = 0; i < 5; i++) {
      s.push(throttled);
      f.advance(3000);
    }
    assert.deepEqual(f.warnings, []);
  });

  it('stopping the watch unsubscribes and cancels the pending timer', () => {
    const s = fakeSession();
    const f = fakeUi();
    const stop = watchReachability(s, f.ui);
    s.push(refused);
    assert.equal(f.pending(), 1);
    stop();
    assert.equal(f.pending(), 0);
    assert.equal(s.subscribed, false);
    f.advance(10_000);
    assert.deepEqual(f.warnings, []);
  });
});
