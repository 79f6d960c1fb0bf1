import { strict as assert } from 'node:assert';
import { FakeClock, isAbortError } from '../../../src/engine/clock';
import { StatusError, TransportError, type Watcher, type WatchEvent } from '../../../src/engine/listWatch';
import type { DivergenceLine, RequestLine } from '../../../src/scenario/notificationLog';
import { ScriptedServer } from '../../../src/sources/scriptedServer';
import type { HandlerSpec, Scenario, Step } from '../../../src/scenario/types';

const obj = (name: string, rv: string) => ({ metadata: { namespace: 'default', name, resourceVersion: rv } });

function scenario(steps: Step[]): Scenario {
  return {
    format: 'informer-scenario/v1',
    name: 't',
    resource: { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps' },
    informer: { handlers: [] },
    steps,
  };
}

function harness(steps: Step[], restClient?: { restRetriesWatchOpen: boolean }) {
  const clock = new FakeClock(0);
  const requests: RequestLine[] = [];
  const added: HandlerSpec[] = [];
  const ends: (DivergenceLine | undefined)[] = [];
  const server = new ScriptedServer(scenario(steps), clock, {
    onRequest: (l) => requests.push(l),
    addHandler: async (h) => {
      added.push(h);
    },
    onEnd: (d) => ends.push(d),
  }, restClient);
  return { clock, server, requests, added, ends, signal: new AbortController().signal };
}

/**
 * Awaits a call's answer while running what is due now: every call makes a zero-delay round trip
 * through the clock before it is answered.
 */
async function answered<T>(clock: FakeClock, call: Promise<T>): Promise<T> {
  const settled = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await clock.advance(0);
  const r = await settled;
  if ('error' in r) throw r.error;
  return r.value;
}

/** The error a call fails with, letting virtual time run until it does. */
async function failureOf(clock: FakeClock, call: Promise<unknown>): Promise<unknown> {
  let failure: unknown;
  let done = false;
  call.then(
    () => (done = true),
    (e: unknown) => ((failure = e), (done = true)),
  );
  await clock.runUntilIdle(() => done);
  return failure;
}

/** Reads a watcher to its end, recording the virtual time of each event. */
async function drain(clock: FakeClock, w: Watcher): Promise<{ at: number; e: WatchEvent }[]> {
  const out: { at: number; e: WatchEvent }[] = [];
  let done = false;
  const reading = (async () => {
    for (let e = await w.next(); e; e = await w.next()) out.push({ at: clock.now(), e });
    done = true;
  })();
  await clock.runUntilIdle(() => done);
  await reading;
  return out;
}

describe('ScriptedServer', () => {
  it('answers a list page, logs the request first and defaults apiVersion/kind', async () => {
    const h = harness([{ on: 'list', resourceVersion: '10', continue: 'c1', items: [obj('a', '5')] }]);
    const list = await answered(h.clock, h.server.list({ resourceVersion: '0', limit: 500 }, h.signal));
    assert.deepEqual(h.requests, [{ kind: 'request', verb: 'list', rv: '0', limit: 500 }]);
    assert.equal(list.metadata.resourceVersion, '10');
    assert.equal(list.metadata.continue, 'c1');
    assert.equal(list.items[0].kind, 'ConfigMap');
    assert.equal(list.items[0].apiVersion, 'v1');
  });

  it('gives a list page the listTypeMeta apiVersion/kind when the step has one, else <kind>List', async () => {
    const h = harness([
      { on: 'list', resourceVersion: '10', listTypeMeta: { apiVersion: 'meta.k8s.io/v1', kind: 'Table' }, items: [obj('a', '5')] },
      { on: 'list', resourceVersion: '11', items: [] },
    ]);
    const table = await answered(h.clock, h.server.list({ resourceVersion: '0' }, h.signal));
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.equal(table.kind, 'Table');
    assert.equal(table.items[0].kind, 'ConfigMap');
    const plain = await answered(h.clock, h.server.list({ resourceVersion: '10' }, h.signal));
    assert.equal(plain.apiVersion, 'v1');
    assert.equal(plain.kind, 'ConfigMapList');
  });

  it('waits advanceMs (virtual) and runs addHandler steps before answering', async () => {
    const h = harness([{ advanceMs: 3000 }, { addHandler: { name: 'late' } }, { on: 'list', resourceVersion: '1', items: [] }]);
    let answeredAt = -1;
    const p = h.server.list({ resourceVersion: '0' }, h.signal).then(() => (answeredAt = h.clock.now()));
    await h.clock.runUntilIdle(() => answeredAt >= 0);
    await p;
    assert.equal(answeredAt, 3000);
    assert.deepEqual(h.added, [{ name: 'late' }]);
  });

  it('turns error and network steps into StatusError / TransportError', async () => {
    const h = harness([
      { on: 'list', error: { code: 410, reason: 'Gone', message: 'gone', causes: [{ reason: 'ResourceVersionTooLarge' }] } },
      { on: 'watch', network: 'connection-refused' },
      { on: 'list', network: 'timeout' },
    ]);
    await assert.rejects(answered(h.clock, h.server.list({ resourceVersion: '0' }, h.signal)), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.message, 'gone');
      assert.equal(e.status.code, 410);
      assert.equal(e.status.reason, 'Gone');
      assert.equal(e.status.details?.causes?.[0].type, 'ResourceVersionTooLarge');
      return true;
    });
    await assert.rejects(answered(h.clock, h.server.watch({ resourceVersion: '5' }, h.signal)), (e: unknown) => {
      assert.ok(e instanceof TransportError);
      assert.equal(e.kind, 'connection-refused');
      assert.match(e.message, /^Get "https:\/\/127\.0\.0\.1:6443\/api\/v1\/configmaps": dial tcp 127\.0\.0\.1:6443: connect: connection refused$/);
      return true;
    });
    await assert.rejects(answered(h.clock, h.server.list({ resourceVersion: '5' }, h.signal)), (e: unknown) => e instanceof TransportError && e.kind === 'timeout');
  });

  it('delivers watch events at their atMs offsets and closes at durationMs', async () => {
    const h = harness([
      {
        on: 'watch',
        events: [
          { type: 'ADDED', object: obj('a', '11') },
          { type: 'MODIFIED', object: obj('a', '12'), atMs: 200 },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '13' } } },
        ],
        close: 'reset',
        durationMs: 2500,
      },
    ]);
    h.clock.setTimer(100, () => undefined); // the open happens at t=100
    await h.clock.advance(100);
    const w = await answered(h.clock, h.server.watch({ resourceVersion: '10', allowWatchBookmarks: true, timeoutSeconds: 400 }, h.signal));
    const got = await drain(h.clock, w);
    assert.deepEqual(got.map((g) => [g.at, g.e.type, g.e.object.metadata?.resourceVersion]), [
      [100, 'ADDED', '11'],
      [300, 'MODIFIED', '12'],
      [300, 'BOOKMARK', '13'],
    ]);
    assert.equal(h.clock.now(), 2600);
    assert.equal(w.end?.kind, 'reset');
    assert.deepEqual(h.requests, [{ kind: 'request', verb: 'watch', rv: '10', allowWatchBookmarks: true, timeoutSeconds: 400 }]);
  });

  it('ends close:error with one ERROR event carrying the Status, and decode-error with the InternalError text', async () => {
    const h = harness([
      { on: 'watch', events: [], close: 'error', error: { code: 410, reason: 'Expired', message: 'too old resource version: 11 (20)' } },
      { on: 'watch', events: [], close: 'decode-error', error: { message: 'got short buffer' }, durationMs: 10 },
    ]);
    const first = await drain(h.clock, await answered(h.clock, h.server.watch({ resourceVersion: '10' }, h.signal)));
    assert.equal(first.length, 1);
    assert.equal(first[0].at, 1500);
    assert.equal(first[0].e.type, 'ERROR');
    assert.deepEqual({ ...first[0].e.object }, { apiVersion: 'v1', kind: 'Status', status: 'Failure', message: 'too old resource version: 11 (20)', reason: 'Expired', code: 410 });
    const second = await drain(h.clock, await answered(h.clock, h.server.watch({ resourceVersion: '10' }, h.signal)));
    const status = second[0].e.object as { code?: number; reason?: string; message?: string; details?: { causes?: { type?: string }[] } };
    assert.equal(status.code, 500);
    assert.equal(status.reason, 'InternalError');
    assert.equal(status.message, 'an error on the server ("unable to decode an event from the watch stream: got short buffer") has prevented the request from succeeding');
    assert.deepEqual(status.details?.causes?.map((c) => c.type), ['UnexpectedServerResponse', 'ClientWatchDecoding']);
  });

  it('answers a watch reset/timeout with an already-closed watcher once the REST client\'s 10 retries (1 s apart) of attempts lasting durationMs are spent', async () => {
    const h = harness([{ on: 'watch', network: 'connection-reset' }, { on: 'watch', network: 'timeout', durationMs: 300 }]);
    let w: Watcher | undefined;
    void h.server.watch({ resourceVersion: '10' }, h.signal).then((x) => (w = x));
    await h.clock.runUntilIdle(() => w !== undefined);
    assert.equal(h.clock.now(), 10_000);
    assert.equal(await w!.next(), null);
    assert.equal(w!.end?.kind, 'open-retries-exhausted');
    w = undefined;
    void h.server.watch({ resourceVersion: '10' }, h.signal).then((x) => (w = x));
    await h.clock.runUntilIdle(() => w !== undefined);
    assert.equal(h.clock.now(), 10_000 + 11 * 300 + 10_000);
  });

  it('as client-go 1.15 (no REST retries on watch open): a reset gives the empty watcher at once, a timeout is the error', async () => {
    const h = harness(
      [
        { on: 'watch', network: 'connection-reset' },
        { on: 'watch', network: 'connection-reset', durationMs: 3000 },
        { on: 'watch', network: 'timeout', durationMs: 3000 },
      ],
      { restRetriesWatchOpen: false },
    );
    const first = await answered(h.clock, h.server.watch({ resourceVersion: '10' }, h.signal));
    assert.equal(h.clock.now(), 0);
    assert.equal(await first.next(), null);
    assert.equal(first.end?.kind, 'open-retries-exhausted');
    const opening = h.server.watch({ resourceVersion: '10' }, h.signal);
    await h.clock.advance(3000);
    const second = await opening;
    assert.equal(h.clock.now(), 3000);
    assert.equal(await second.next(), null);
    const failure = await failureOf(h.clock, h.server.watch({ resourceVersion: '10' }, h.signal));
    assert.ok(failure instanceof TransportError && failure.kind === 'timeout');
    assert.equal(h.clock.now(), 6000);
  });

  it('spends the REST client\'s Retry-After retries of a 429/5xx before the StatusError: 10 on v0.32+, 9 on a 1.15 LIST, none on a 1.15 WATCH', async () => {
    const tooMany = { code: 429, reason: 'TooManyRequests', message: 'slow down', retryAfterSeconds: 2 };
    const steps = [{ on: 'list' as const, error: tooMany }, { on: 'watch' as const, error: tooMany }, { on: 'list' as const, error: { ...tooMany, code: 410, reason: 'Expired' } }];
    for (const [modern, listAt, watchAt] of [[true, 20_000, 40_000], [false, 18_000, 18_000]] as const) {
      const h = harness(steps, { restRetriesWatchOpen: modern });
      const list = await failureOf(h.clock, h.server.list({ resourceVersion: '0' }, h.signal));
      assert.ok(list instanceof StatusError && list.status.code === 429);
      assert.equal(h.clock.now(), listAt, `list, modern=${modern}`);
      const watch = await failureOf(h.clock, h.server.watch({ resourceVersion: '1' }, h.signal));
      assert.ok(watch instanceof StatusError && watch.status.code === 429);
      assert.equal(h.clock.now(), watchAt, `watch, modern=${modern}`);
      const gone = await failureOf(h.clock, h.server.list({ resourceVersion: '0' }, h.signal));
      assert.ok(gone instanceof StatusError && gone.status.code === 410);
      assert.equal(h.clock.now(), watchAt, 'a 4xx other than 429 is not retried');
    }
  });

  it('retries a reset LIST 1 s apart: v0.32+ then fails with the transport error, 1.15 with its artificial 500', async () => {
    const steps = [{ on: 'list' as const, network: 'connection-reset' as const }, { on: 'list' as const, network: 'timeout' as const }];
    const modern = harness(steps);
    const m = await failureOf(modern.clock, modern.server.list({ resourceVersion: '0' }, modern.signal));
    assert.ok(m instanceof TransportError && m.kind === 'connection-reset');
    assert.equal(modern.clock.now(), 10_000);
    const t = await failureOf(modern.clock, modern.server.list({ resourceVersion: '0' }, modern.signal));
    assert.ok(t instanceof TransportError && t.kind === 'timeout');
    assert.equal(modern.clock.now(), 10_000, 'a timed-out LIST is not retried');
    const old = harness(steps, { restRetriesWatchOpen: false });
    const o = await failureOf(old.clock, old.server.list({ resourceVersion: '0' }, old.signal));
    assert.ok(o instanceof StatusError && o.status.code === 500 && o.status.reason === 'InternalError');
    assert.equal(old.clock.now(), 9000);
  });

  it('stops a stream when the watcher is stopped', async () => {
    const h = harness([{ on: 'watch', events: [{ type: 'ADDED', object: obj('a', '2'), atMs: 1000 }], close: 'eof' }]);
    const w = await answered(h.clock, h.server.watch({ resourceVersion: '1' }, h.signal));
    const pending = w.next();
    w.stop();
    assert.equal(await pending, null);
    assert.equal(w.end?.kind, 'stopped');
  });

  it('logs a divergence and then keeps the call pending until the signal aborts', async () => {
    const h = harness([{ on: 'list', resourceVersion: '1', items: [] }]);
    const abort = new AbortController();
    const p = h.server.watch({ resourceVersion: '7' }, abort.signal);
    await h.clock.runUntilIdle(() => h.ends.length > 0);
    assert.deepEqual(h.ends, [{ kind: 'divergence', expected: 'list', got: { verb: 'watch', rv: '7' } }]);
    assert.ok(h.server.ended);
    abort.abort();
    await assert.rejects(p, (e: unknown) => isAbortError(e));
  });

  it('ends the run once when the steps run out', async () => {
    const h = harness([{ on: 'list', resourceVersion: '1', items: [] }, { advanceMs: 50 }]);
    await answered(h.clock, h.server.list({ resourceVersion: '0' }, h.signal));
    const abort = new AbortController();
    const p = h.server.watch({ resourceVersion: '1' }, abort.signal);
    await h.clock.runUntilIdle(() => h.ends.length > 0);
    assert.equal(h.clock.now(), 50);
    assert.deepEqual(h.ends, [undefined]);
    abort.abort();
    await assert.rejects(p);
    assert.equal(h.requests.length, 2);
  });
});
