/**
 * The REST client's retries on the live path (src/kube/restRequest.ts through HttpListerWatcher)
 * against a loopback fake API server (127.0.0.1, every loop bounded by the line's retry budget):
 * per profile line, how many requests go out, the waits on the engine's clock, what the reflector
 * gets at the end, and the `rest.retry` reports the trace shows. GET only.
 */
import { strict as assert } from 'node:assert';
import type * as http from 'node:http';
import type { Clock } from '../../../src/engine/clock';
import { StatusError, TransportError } from '../../../src/engine/listWatch';
import { findProfile, type Profile } from '../../../src/engine/profiles';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { HttpListerWatcher } from '../../../src/kube/listerWatcher';
import type { RestRetryInfo } from '../../../src/kube/restRequest';
import { CM, type Loopback, loopbackKubeconfig, startLoopback } from './loopback';

const V136 = findProfile('v1.36') as Profile;
const V115 = findProfile('v1.15') as Profile;

/** A clock whose sleeps return at once and are recorded (the waits the REST client asked for). */
function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => sleeps.reduce((a, b) => a + b, 0),
    setTimer: (_ms, fn) => {
      const h = setImmediate(fn);
      return { cancel: () => clearImmediate(h) };
    },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
}

const tooMany = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429, reason: 'TooManyRequests', message: 'slow down' };

describe('kube/restRequest: the REST client retries per profile line (loopback)', () => {
  let loop: Loopback;
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  const methods: string[] = [];

  before(async () => {
    loop = await startLoopback((req, res) => {
      methods.push(req.method ?? '');
      handler(req, res);
    });
  });
  after(() => loop.close());
  beforeEach(() => (methods.length = 0));

  function lw(profile: Profile) {
    const clock = recordingClock();
    const retries: RestRetryInfo[] = [];
    const w = new HttpListerWatcher(KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(loop.port) }), CM, {
      clock,
      restClient: profile,
      onRetry: (r) => retries.push(r),
    });
    return { w, clock, retries };
  }
  const signal = () => new AbortController().signal;
  const status429 = (seconds: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': seconds });
    res.end(JSON.stringify(tooMany));
  };

  for (const [profile, retries] of [[V136, 10], [V115, 9]] as const) {
    it(`${profile.name}: a 429 with Retry-After on a LIST is retried ${retries}× that many seconds apart, then the StatusError`, async () => {
      handler = status429('2');
      const t = lw(profile);
      await assert.rejects(t.w.list({ resourceVersion: '0', limit: 500 }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === 429 && e.status.reason === 'TooManyRequests');
      assert.equal(methods.length, retries + 1);
      assert.ok(methods.every((m) => m === 'GET'));
      assert.deepEqual(t.clock.sleeps, Array(retries).fill(2000));
      assert.deepEqual(t.retries.map((r) => `${r.verb} ${r.code} ${r.waitMs} ${r.retry}/${r.maxRetries}`), Array.from({ length: retries }, (_, i) => `list 429 2000 ${i + 1}/${retries}`));
    });

    it(`${profile.name}: a LIST whose connection is reset is retried every second`, async () => {
      handler = (req) => req.socket.resetAndDestroy();
      const t = lw(profile);
      await assert.rejects(t.w.list({ resourceVersion: '0' }, signal()), (e: unknown) =>
        profile === V136
          ? e instanceof TransportError && e.kind === 'connection-reset'
          : // 1.15: the artificial "500, Retry-After: 1" response becomes the error once the retries are spent.
            e instanceof StatusError && e.status.code === 500 && e.status.reason === 'InternalError' && /"unknown"/.test(e.status.message ?? ''),
      );
      assert.equal(methods.length, retries + 1);
      assert.deepEqual(t.clock.sleeps, Array(retries).fill(1000));
      assert.ok(t.retries.every((r) => r.error === 'connection-reset'));
    });
  }

  it('v1.36: a 429 with Retry-After opening a WATCH is retried 10×; v1.15 never retries a WATCH', async () => {
    handler = status429('1');
    const modern = lw(V136);
    await assert.rejects(modern.w.watch({ resourceVersion: '5' }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === 429);
    assert.equal(methods.length, 11);
    assert.deepEqual(modern.clock.sleeps, Array(10).fill(1000));
    methods.length = 0;
    const old = lw(V115);
    await assert.rejects(old.w.watch({ resourceVersion: '5' }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === 429);
    assert.equal(methods.length, 1);
    assert.deepEqual(old.clock.sleeps, []);
    assert.deepEqual(old.retries, []);
  });

  it('v1.15: a reset WATCH open is the empty watcher at once; v1.36 retries it 10× first', async () => {
    handler = (req) => req.socket.resetAndDestroy();
    const old = lw(V115);
    const w = await old.w.watch({ resourceVersion: '5' }, signal());
    assert.equal(await w.next(), null);
    assert.equal(w.end?.kind, 'open-retries-exhausted');
    assert.equal(methods.length, 1);
    methods.length = 0;
    const modern = lw(V136);
    const w2 = await modern.w.watch({ resourceVersion: '5' }, signal());
    assert.equal(w2.end?.kind, 'open-retries-exhausted');
    assert.equal(methods.length, 11);
    assert.deepEqual(modern.clock.sleeps, Array(10).fill(1000));
  });

  it('a 503 without Retry-After, a 429 with a date as Retry-After and a 404 are not retried', async () => {
    for (const [code, headers] of [[503, {}], [429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }], [404, { 'retry-after': '1' }]] as const) {
      methods.length = 0;
      handler = (_req, res) => {
        res.writeHead(code, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ ...tooMany, code }));
      };
      const t = lw(V136);
      await assert.rejects(t.w.list({ resourceVersion: '0' }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === code);
      assert.equal(methods.length, 1, `${code}`);
      assert.deepEqual(t.clock.sleeps, []);
    }
  });

  it('a retried LIST that then succeeds returns the list; an abort during the wait stops the loop', async () => {
    let n = 0;
    handler = (req, res) => {
      if (n++ < 3) return status429('1')(req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [] }));
    };
    const t = lw(V136);
    assert.equal((await t.w.list({ resourceVersion: '0' }, signal())).metadata.resourceVersion, '9');
    assert.equal(methods.length, 4);
    assert.deepEqual(t.retries.map((r) => r.retry), [1, 2, 3]);
    methods.length = 0;
    handler = status429('1');
    const ac = new AbortController();
    const aborting = new HttpListerWatcher(KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(loop.port) }), CM, {
      clock: { now: () => 0, setTimer: () => ({ cancel: () => undefined }), sleep: () => (ac.abort(), Promise.reject(Object.assign(new Error('stop requested'), { name: 'AbortError' }))) },
      restClient: V136,
    });
    await assert.rejects(aborting.list({ resourceVersion: '0' }, ac.signal), /stop requested/);
    assert.equal(methods.length, 1);
  });
});
