/**
 * The HTTP ListerWatcher against a local fake API server (plain HTTP on 127.0.0.1): query
 * parameters, NDJSON decoding, and the mapping of every failure to the engine's typed errors.
 */
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import { StatusError, TransportError, type Watcher, type WatchEvent } from '../../../src/engine/listWatch';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { HttpListerWatcher, type HttpRequestInfo } from '../../../src/kube/listerWatcher';
import { JsonFramer } from '../../../src/kube/watchStream';
import { closedPort, CM, type Loopback, loopbackKubeconfig, noSleepClock, startLoopback } from './loopback';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;


const kubeconfig = (port: number): string => loopbackKubeconfig(port, '{token: secret-token-value}');

describe('kube/HttpListerWatcher against a fake server', () => {
  let loop: Loopback;
  let port: number;
  let handler: Handler;
  const seen: Array<{ method: string; url: string; auth?: string }> = [];
  let requests: HttpRequestInfo[];

  before(async () => {
    loop = await startLoopback((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
      handler(req, res);
    });
    port = loop.port;
  });
  after(() => loop.close());
  beforeEach(() => {
    seen.length = 0;
    requests = [];
  });

  const lw = (opts: { requestTimeoutMs?: number; maxRetries?: number; namespace?: string } = {}) =>
    new HttpListerWatcher(KubeConnection.load({ kubeconfigYaml: kubeconfig(port) }), CM, {
      clock: noSleepClock,
      onRequest: (r) => requests.push(r),
      ...opts,
    });
  const signal = () => new AbortController().signal;
  const json = (res: http.ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const drain = async (w: Watcher): Promise<WatchEvent[]> => {
    const out: WatchEvent[] = [];
    for (let e = await w.next(); e; e = await w.next()) out.push(e);
    return out;
  };
  const cm = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, resourceVersion: rv } });

  it('lists with the query parameters client-go sends, bearer token, GET only', async () => {
    handler = (_req, res) => json(res, 200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'c2' }, items: [cm('a', '5')] });
    const l = await lw({ namespace: 'default' }).list(
      { resourceVersion: '0', limit: 500, labelSelector: 'app=x', continue: 'tok' },
      signal(),
    );
    assert.equal(l.metadata.resourceVersion, '42');
    assert.equal(l.metadata.continue, 'c2');
    assert.equal(l.items.length, 1);
    assert.equal(seen[0].method, 'GET');
    assert.equal(seen[0].url, '/api/v1/namespaces/default/configmaps?continue=tok&labelSelector=app%3Dx&limit=500&resourceVersion=0');
    assert.equal(seen[0].auth, 'Bearer secret-token-value');
  });

  it('fills in apiVersion/kind of list items from the list, like the unstructured decoder', async () => {
    handler = (_req, res) =>
      json(res, 200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '3' }, items: [{ metadata: { name: 'a' } }, cm('b', '2')] });
    const l = await lw().list({ resourceVersion: '' }, signal());
    assert.deepEqual(l.items.map((o) => [o.apiVersion, o.kind, o.metadata?.name]), [['v1', 'ConfigMap', 'a'], ['v1', 'ConfigMap', 'b']]);
  });

  it('decodes a gzip list; a gzip body cut short is a transport error, not a hang', async () => {
    const zlib = await import('node:zlib');
    const big = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: Array.from({ length: 300 }, (_, i) => cm(`c${i}`, String(i))) };
    const gz = zlib.gzipSync(Buffer.from(JSON.stringify(big)));
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gz);
    };
    assert.equal((await lw().list({ resourceVersion: '' }, signal())).items.length, 300);
    handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.write(gz.subarray(0, gz.length >> 1));
      setTimeout(() => req.socket.end(), 20);
    };
    await assert.rejects(lw({ maxRetries: 0 }).list({ resourceVersion: '' }, signal()), (e: unknown) => e instanceof TransportError && /unexpected error when reading response body/.test(e.message));
  });

  it('watches with timeoutSeconds, timeout, allowWatchBookmarks, sendInitialEvents', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
    };
    const w = await lw().watch(
      { resourceVersion: '10', timeoutSeconds: 323, allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' },
      signal(),
    );
    await drain(w);
    assert.equal(
      seen[0].url,
      '/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=10&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeout=5m23s&timeoutSeconds=323&watch=true',
    );
  });

  it('decodes NDJSON events split across and packed into chunks; clean end is eof', async () => {
    const a = JSON.stringify({ type: 'ADDED', object: cm('a', '11') });
    const b = JSON.stringify({ type: 'MODIFIED', object: cm('a', '12') });
    const c = JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '13' } } });
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const all = `${a}\n${b}\n${c}\n`;
      res.write(all.slice(0, 7));
      setTimeout(() => res.write(all.slice(7, a.length + 20)), 5);
      setTimeout(() => res.end(all.slice(a.length + 20)), 10);
    };
    const w = await lw().watch({ resourceVersion: '10' }, signal());
    const evs = await drain(w);
    assert.deepEqual(evs.map((e) => [e.type, e.object.metadata?.resourceVersion]), [['ADDED', '11'], ['MODIFIED', '12'], ['BOOKMARK', '13']]);
    assert.deepEqual(w.end, { kind: 'eof' });
  });

  it('ends with unexpected-eof when the stream stops inside a JSON value', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"type":"ADDED","object":{"kind":"Conf');
    };
    const w = await lw().watch({ resourceVersion: '10' }, signal());
    assert.deepEqual(await drain(w), []);
    assert.deepEqual(w.end, { kind: 'unexpected-eof' });
  });

  it('turns undecodable stream data into the InternalError Status StreamWatcher reports, then closes', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a', '11') }) + '\n');
      res.write('xyz\n');
      // never ends on its own: the watcher must close it
    };
    const w = await lw().watch({ resourceVersion: '10' }, signal());
    const evs = await drain(w);
    assert.equal(evs.length, 2);
    assert.equal(evs[1].type, 'ERROR');
    const st = evs[1].object as any;
    assert.equal(st.kind, 'Status');
    assert.equal(st.code, 500);
    assert.equal(st.reason, 'InternalError');
    assert.equal(
      st.message,
      'an error on the server ("unable to decode an event from the watch stream: invalid character \'x\' looking for beginning of value") has prevented the request from succeeding',
    );
    assert.deepEqual(st.details.causes.map((c: any) => c.type), ['UnexpectedServerResponse', 'ClientWatchDecoding']);
  });

  it('an unknown event type is a decode error (got invalid watch event type)', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'FOO', object: cm('a', '1') }) + '\n');
    };
    const evs = await drain(await lw().watch({ resourceVersion: '1' }, signal()));
    assert.equal(evs[0].type, 'ERROR');
    assert.match((evs[0].object as any).message, /unable to decode an event from the watch stream: got invalid watch event type: FOO/);
  });

  it('passes ERROR events with a Status through unchanged (no causes)', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 5 (10)' };
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    };
    const evs = await drain(await lw().watch({ resourceVersion: '5' }, signal()));
    assert.deepEqual(evs, [{ type: 'ERROR', object: status }]);
  });

  it('reads a Status cause type from its wire name "reason" in ERROR events too', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 504, reason: 'Timeout', message: 'Too large resource version', details: { causes: [{ reason: 'ResourceVersionTooLarge' }] } };
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    };
    const evs = await drain(await lw().watch({ resourceVersion: '5' }, signal()));
    assert.deepEqual((evs[0].object as any).details.causes, [{ type: 'ResourceVersionTooLarge', reason: 'ResourceVersionTooLarge' }]);
  });

  it('maps an HTTP status with a Status body to StatusError, keeping reason, causes and retryAfterSeconds', async () => {
    const status = {
      kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 99, current: 10',
      // On the wire a cause's type is the JSON field "reason".
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    };
    handler = (_req, res) => json(res, 504, status); // no Retry-After header: not retried
    await assert.rejects(lw().list({ resourceVersion: '99' }, signal()), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.deepEqual(e.status, {
        ...status,
        details: { ...status.details, causes: [{ type: 'ResourceVersionTooLarge', reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
      });
      assert.equal(e.message, status.message);
      return true;
    });
  });

  it('builds the generic server response error for a non-Status body', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream down');
    };
    await assert.rejects(lw().list({ resourceVersion: '' }, signal()), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.status.reason, 'ServiceUnavailable');
      assert.equal(e.message, 'the server is currently unable to handle the request (get configmaps)');
      assert.deepEqual(e.status.details?.causes, [{ type: 'UnexpectedServerResponse', reason: 'UnexpectedServerResponse', message: 'upstream down' }]);
      return true;
    });
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    };
    await assert.rejects(lw().watch({ resourceVersion: '1' }, signal()), /an error on the server \("boom"\) has prevented the request from succeeding \(get configmaps\)/);
  });

  it('retries 429 with Retry-After like the REST client, then succeeds', async () => {
    let n = 0;
    handler = (_req, res) => {
      if (n++ < 2) json(res, 429, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429, reason: 'TooManyRequests', message: 'slow down' }, { 'retry-after': '1' });
      else json(res, 200, { kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items: [] });
    };
    const l = await lw().list({ resourceVersion: '0', limit: 500 }, signal());
    assert.equal(l.metadata.resourceVersion, '7');
    assert.deepEqual(requests.map((r) => r.attempt), [0, 1, 2]);
    assert.ok(requests.every((r) => r.method === 'GET'));
  });

  it('gives up after maxRetries and returns the last StatusError', async () => {
    handler = (_req, res) => json(res, 429, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429, reason: 'TooManyRequests', message: 'slow down' }, { 'retry-after': '0' });
    await assert.rejects(lw({ maxRetries: 3 }).watch({ resourceVersion: '1' }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === 429);
    assert.equal(requests.length, 4);
  });

  it('connection refused is a TransportError at once (no retries), with the Go text', async () => {
    const deadPort = await closedPort();
    const w = new HttpListerWatcher(KubeConnection.load({ kubeconfigYaml: kubeconfig(deadPort) }), CM, { clock: noSleepClock, onRequest: (r) => requests.push(r) });
    for (const op of [() => w.list({ resourceVersion: '0' }, signal()), () => w.watch({ resourceVersion: '1' }, signal())]) {
      await assert.rejects(op(), (e: unknown) => {
        assert.ok(e instanceof TransportError);
        assert.equal(e.kind, 'connection-refused');
        assert.match(e.message, new RegExp(`^Get "http://127\\.0\\.0\\.1:${deadPort}/api/v1/configmaps\\?[^"]+": dial tcp 127\\.0\\.0\\.1:${deadPort}: connect: connection refused$`));
        return true;
      });
    }
    assert.equal(requests.length, 2);
  });

  it('a watch whose connection closes before any answer is retried, then becomes an empty closed watcher', async () => {
    handler = (req) => req.socket.end();
    const w = await lw({ maxRetries: 3 }).watch({ resourceVersion: '1' }, signal());
    assert.equal(await w.next(), null);
    assert.equal(w.end?.kind, 'open-retries-exhausted');
    assert.equal(requests.length, 4);
  });

  it('a list whose connection is reset is retried (probable EOF), then fails as connection-reset', async () => {
    handler = (req) => req.socket.resetAndDestroy();
    await assert.rejects(lw({ maxRetries: 2 }).list({ resourceVersion: '0' }, signal()), (e: unknown) => e instanceof TransportError && e.kind === 'connection-reset');
    assert.equal(requests.length, 3);
  });

  it('a reset in the middle of a watch ends it as reset; a client timeout as timeout', async () => {
    // The reset comes once the client holds the event: an RST discards what the client has not
    // read yet, so a reset on a timer lost the event whenever the loaded machine read late.
    let reset: () => void = () => assert.fail('no watch request yet');
    handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a', '2') }) + '\n');
      reset = () => req.socket.resetAndDestroy();
    };
    let w = await lw().watch({ resourceVersion: '1' }, signal());
    assert.equal((await w.next())?.type, 'ADDED');
    reset();
    assert.equal((await drain(w)).length, 0);
    assert.equal(w.end?.kind, 'reset');

    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a', '2') }) + '\n');
    };
    // The client timeout runs on wall-clock time from the request on; 1 s leaves a loaded machine
    // time to read the event first (with 150 ms it sometimes timed out before reading it).
    w = await lw({ requestTimeoutMs: 1000 }).watch({ resourceVersion: '1' }, signal());
    assert.equal((await drain(w)).length, 1);
    assert.deepEqual(w.end, {
      kind: 'timeout',
      message: `Get "http://127.0.0.1:${port}/api/v1/configmaps?resourceVersion=1&watch=true": net/http: request canceled (Client.Timeout exceeded while reading body)`,
    });
  });

  it('stop() and the abort signal end a watch as stopped', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
    const w = await lw().watch({ resourceVersion: '1' }, signal());
    const pending = w.next();
    w.stop();
    assert.equal(await pending, null);
    assert.deepEqual(w.end, { kind: 'stopped' });
    const ac = new AbortController();
    const w2 = await lw().watch({ resourceVersion: '1' }, ac.signal);
    const p2 = w2.next();
    ac.abort();
    assert.equal(await p2, null);
    assert.deepEqual(w2.end, { kind: 'stopped' });
  });
});

describe('kube/JsonFramer', () => {
  it('splits objects regardless of newlines, braces inside strings and escapes', () => {
    const f = new JsonFramer();
    assert.deepEqual(f.push('{"a":"}{\\"x"}{"b"'), ['{"a":"}{\\"x"}']);
    assert.ok(f.partial);
    assert.deepEqual(f.push(':[1,{}]}\n {"c":1}'), ['{"b":[1,{}]}', '{"c":1}']);
    assert.ok(!f.partial);
  });
});
