/**
 * The observing proxy against a loopback fake upstream: the token, forwarding (writes included,
 * the upstream's own credentials), JSON for observed lists/watches, protobuf-only clients,
 * transparency to failures (refused → reset then not listening; reset; FIN mid-object), and the
 * reconstruction it feeds (notifications, the watch end, a divergence from the profile).
 */
import { strict as assert } from 'node:assert';
import * as https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { findProfile } from '../../../src/engine/profiles';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import type { ObservedExchange, ProxyNotice } from '../../../src/observe/exchange';
import { ObservingProxy, ProxyError } from '../../../src/observe/proxy';
import { ObserveSession } from '../../../src/observe/session';
import { closedPort, loopbackKubeconfig, startLoopback, type Loopback } from '../kube/loopback';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function request(proxy: { url: string; certificate: string }, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${proxy.url}${path}`, { method, ca: proxy.certificate, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A GET whose body may break: the bytes that arrived and how it ended. */
function streamGet(proxy: { url: string; certificate: string; token: string }, path: string): Promise<{ body: string; error?: string; status?: number }> {
  return new Promise((resolve) => {
    let body = '';
    const req = https.request(`${proxy.url}${path}`, { ca: proxy.certificate, headers: { authorization: `Bearer ${proxy.token}` }, agent: false }, (res) => {
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ body, status: res.statusCode }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ body, status: res.statusCode, error: e.code ?? e.message }));
      res.on('aborted', () => resolve({ body, status: res.statusCode, error: 'aborted' }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ body, error: e.code ?? e.message }));
    req.end();
  });
}

const until = async (what: string, fn: () => boolean, ms = 5000) => {
  const t0 = Date.now();
  while (!fn()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('observe: the observing proxy', function () {
  this.timeout(20_000);
  let upstream: Loopback | undefined;
  let proxy: ObservingProxy | undefined;
  let session: ObserveSession | undefined;
  const seen: Seen[] = [];
  const notices: ProxyNotice[] = [];
  const exchanges: ObservedExchange[] = [];
  let handler: (s: Seen, res: import('node:http').ServerResponse) => void = (_s, res) => res.end('{}');

  beforeEach(async () => {
    seen.length = 0;
    notices.length = 0;
    exchanges.length = 0;
    upstream = await startLoopback((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        seen.push(s);
        handler(s, res);
      });
    });
  });

  afterEach(async () => {
    await session?.stop();
    await proxy?.close();
    upstream?.close();
    session = proxy = upstream = undefined;
  });

  async function startProxy(port = upstream!.port, rewriteProtobufWatches?: boolean): Promise<ObservingProxy> {
    proxy = await ObservingProxy.start({
      rewriteProtobufWatches,
      conn: KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(port) }),
      onNotice: (n) => notices.push(n),
      onExchange: (x) => exchanges.push(x),
      probeIntervalMs: 20,
    });
    return proxy;
  }

  it('refuses a missing or wrong token with 401 and forwards nothing', async () => {
    const p = await startProxy();
    const none = await request(p, 'GET', '/api/v1/configmaps', {});
    const wrong = await request(p, 'GET', '/api/v1/configmaps', { authorization: `Bearer ${p.token.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}` });
    assert.equal(none.status, 401);
    assert.equal(wrong.status, 401);
    assert.equal(JSON.parse(wrong.body).reason, 'Unauthorized');
    assert.equal(seen.length, 0, 'nothing was forwarded');
    assert.deepEqual(notices.map((n) => n.kind), ['unauthorized', 'unauthorized']);
    assert.equal(p.stats.unauthorized, 2);
    assert.ok(!JSON.stringify(notices).includes(p.token));
  });

  it('listens on loopback addresses only: any other host is refused before anything listens', async () => {
    for (const host of ['0.0.0.0', '::', 'example.com']) {
      await assert.rejects(
        ObservingProxy.start({ host, conn: KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(upstream!.port) }) }),
        (e: Error) => e instanceof ProxyError && /loopback addresses only/.test(e.message) && e.message.includes(host),
        host,
      );
    }
    const p = await startProxy();
    assert.match(p.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('forwards a write unchanged with the upstream credentials; status, Retry-After and the Status body pass as they are', async () => {
    const p = await startProxy();
    const status = '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}';
    handler = (_s, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
      res.end(status);
    };
    const r = await request(p, 'POST', '/api/v1/namespaces/ns/configmaps?fieldManager=x', { authorization: `Bearer ${p.token}`, 'content-type': 'application/json', 'user-agent': 'proc/1' }, '{"metadata":{"name":"a"}}');
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '3');
    assert.equal(r.body, status);
    assert.equal(seen.length, 1);
    assert.deepEqual([seen[0].method, seen[0].url, seen[0].body], ['POST', '/api/v1/namespaces/ns/configmaps?fieldManager=x', '{"metadata":{"name":"a"}}']);
    assert.equal(seen[0].headers.authorization, 'Bearer loopback-token', "the upstream gets the context's credentials, not the proxy token");
    assert.equal(seen[0].headers['user-agent'], 'proc/1');
    assert.equal(exchanges.length, 0, 'a write is not observed');
  });

  it('asks for JSON for an observed list when the client also takes JSON; a protobuf-only client passes unchanged and is reported', async () => {
    const p = await startProxy();
    handler = (_s, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}');
    };
    const auth = { authorization: `Bearer ${p.token}` };
    await request(p, 'GET', '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0', { ...auth, accept: 'application/vnd.kubernetes.protobuf, */*', 'accept-encoding': 'gzip' });
    await request(p, 'GET', '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0', { ...auth, accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(seen[0].headers.accept, 'application/json');
    assert.equal(seen[0].headers['accept-encoding'], undefined);
    assert.equal(seen[1].headers.accept, 'application/vnd.kubernetes.protobuf');
    assert.equal(exchanges.length, 1);
    assert.deepEqual([exchanges[0].call.verb, exchanges[0].call.ref.resource, exchanges[0].call.options.limit], ['list', 'configmaps', 500]);
    assert.deepEqual(notices.map((n) => n.kind), ['unreadable']);
  });

  it('rewriteProtobufWatches false: a protobuf-first watch passes unchanged (old client-go decodes watches with its own content type); a JSON-first one is still read', async () => {
    const p = await startProxy(undefined, false);
    handler = (_s, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
    };
    const auth = { authorization: `Bearer ${p.token}` };
    await request(p, 'GET', '/api/v1/configmaps?watch=true', { ...auth, accept: 'application/vnd.kubernetes.protobuf, */*' });
    await request(p, 'GET', '/api/v1/configmaps?limit=500', { ...auth, accept: 'application/vnd.kubernetes.protobuf, */*' });
    await request(p, 'GET', '/api/v1/configmaps?watch=true', { ...auth, accept: 'application/json, */*' });
    assert.deepEqual(seen.map((x) => x.headers.accept), ['application/vnd.kubernetes.protobuf, */*', 'application/json', 'application/json']);
    assert.deepEqual(exchanges.map((x) => x.call.verb), ['list', 'watch']);
    assert.deepEqual(notices.map((n) => n.kind), ['unreadable']);
  });

  it('an upstream that refuses: the accepted connection is reset (never a 502), then connects are refused until the upstream listens again', async () => {
    const port = await closedPort();
    const p = await startProxy(port);
    const first = await streamGet(p, '/api/v1/configmaps?watch=true');
    assert.equal(first.status, undefined, 'no HTTP response at all');
    assert.equal(first.error, 'ECONNRESET');
    await until('the proxy stops listening', () => !p.listening);
    const second = await streamGet(p, '/api/v1/configmaps');
    assert.equal(second.error, 'ECONNREFUSED');
    // The upstream comes back on its port: the proxy accepts again.
    const back = await startLoopback((_q, res) => res.end('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}'));
    back.close();
    const again = await new Promise<Loopback>((resolve) => {
      const server = require('node:http').createServer((_q: unknown, res: import('node:http').ServerResponse) => res.end('{"items":[]}'));
      server.listen(port, '127.0.0.1', () => resolve({ server, port, close: () => server.close() }));
    });
    try {
      await until('the proxy listens again', () => p.listening);
      const third = await streamGet(p, '/api/v1/configmaps');
      assert.equal(third.status, 200);
      assert.ok(notices.some((n) => n.kind === 'upstream-refused'));
      assert.ok(notices.some((n) => n.kind === 'listening-again'));
    } finally {
      again.close();
    }
  });

  it('an upstream reset mid-watch resets the client; a FIN mid-object ends it without the final chunk', async () => {
    const p = await startProxy();
    const ev = '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"6"}}}\n';
    handler = (s, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ev);
      res.write('{"type":"MODIFIED","object":{"kind":"Conf');
      setTimeout(() => (s.url.includes('reset') ? res.socket?.resetAndDestroy() : res.socket?.end()), 50);
    };
    const reset = await streamGet(p, '/api/v1/configmaps?watch=true&labelSelector=reset');
    assert.equal(reset.error, 'ECONNRESET');
    assert.ok(reset.body.startsWith(ev));
    const fin = await streamGet(p, '/api/v1/configmaps?watch=true&labelSelector=fin');
    assert.ok(fin.error === 'aborted' || fin.error === 'ECONNRESET', `a cut body, not a clean end: ${fin.error}`);
    assert.equal(fin.body, ev + '{"type":"MODIFIED","object":{"kind":"Conf');
    assert.equal(p.stats.cut, 2);
  });
});

describe('observe: reconstruction from observed traffic', function () {
  this.timeout(20_000);
  let upstream: Loopback | undefined;
  let session: ObserveSession | undefined;

  afterEach(async () => {
    await session?.stop();
    upstream?.close();
    session = upstream = undefined;
  });

  const list = '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"}}]}';
  const events = [
    '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"ns","resourceVersion":"11"}}}\n',
    '{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"12"}}}\n',
  ];

  async function start(onWatch: (res: import('node:http').ServerResponse, n: number) => void): Promise<ObserveSession> {
    let watches = 0;
    upstream = await startLoopback((req, res) => {
      if (req.url?.includes('watch=true')) onWatch(res, watches++);
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(list);
      }
    });
    session = await ObserveSession.start({ conn: KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(upstream.port) }), profile: findProfile('v1.32')! });
    return session;
  }

  it('a LIST then a watch cut mid-object: add (initial), add, update, then the watch ends unexpected-eof; nothing is lost', async () => {
    const s = await start((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(events.join('') + '{"type":"MODIFIED","obj');
      setTimeout(() => res.socket?.end(), 50);
    });
    await streamGet(s.proxy, '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0');
    await streamGet(s.proxy, '/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=400&watch=true');
    const r = () => s.reconstructor.reflectors()[0];
    await until('three notifications and the watch end', () => !!r() && r().notifications === 3 && r().recorder.events().some((e) => e.type === 'watch.end'));
    const notes = r().lines.filter((l) => l.kind === 'notify').map((l) => `${(l as { op: string }).op} ${(l as { key: string }).key} ${(l as { rv: string }).rv}`);
    assert.deepEqual(notes, ['add ns/a 5', 'add ns/b 11', 'update ns/a 12']);
    const end = r().recorder.events().find((e) => e.type === 'watch.end') as unknown as { how: string };
    assert.equal(end.how, 'unexpected-eof');
    assert.deepEqual(r().findings, []);
    assert.equal(r().lines.filter((l) => l.kind === 'request').length, 2);
    assert.ok(r().lines.every((l) => l.reflector === 'configmaps.v1 ns=ns ua=-'));
  });

  it('a watch the process closes itself: the engine opens no watch the process did not send, and follows the next one when it comes', async () => {
    const s = await start((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(events[0]);
    });
    await streamGet(s.proxy, '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0');
    const watchPath = '/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=400&watch=true';
    const closeAfterFirstEvent = () =>
      new Promise<void>((resolve) => {
        const req = https.request(`${s.proxy.url}${watchPath}`, { ca: s.proxy.certificate, headers: { authorization: `Bearer ${s.proxy.token}` }, agent: false }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => undefined);
        req.end();
      });
    await closeAfterFirstEvent();
    const r = () => s.reconstructor.reflectors()[0];
    const starts = () => r().recorder.events().filter((e) => e.type === 'watch.start').length;
    await until('the first notifications', () => !!r() && r().notifications === 2);
    await new Promise((res) => setTimeout(res, 500));
    assert.equal(starts(), 1, 'the engine opened a watch the process never sent');
    await closeAfterFirstEvent();
    await until('the second watch followed', () => starts() === 2);
    assert.equal(r().lines.filter((l) => l.kind === 'request').length, 3);
  });

  it('a protobuf-only reflector keeps working and is listed as not reconstructed, with why, in the summary and the trace index; a JSON one beside it is reconstructed', async () => {
    const s = await start((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
    });
    const auth = { authorization: `Bearer ${s.proxy.token}` };
    const pb = { ...auth, accept: 'application/vnd.kubernetes.protobuf', 'user-agent': 'pb-only/1' };
    const got = await request(s.proxy, 'GET', '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0', pb);
    await request(s.proxy, 'GET', '/api/v1/namespaces/ns/configmaps?resourceVersion=10&watch=true', pb);
    await request(s.proxy, 'GET', '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0', { ...auth, accept: 'application/json', 'user-agent': 'json/1' });
    assert.equal(got.status, 200, 'the protobuf-only client still gets its answer');
    assert.equal(got.body, list);
    const missing = s.notReconstructed();
    assert.equal(missing.length, 1, JSON.stringify(missing));
    assert.equal(missing[0].reflector, 'configmaps.v1 ns=ns ua=pb-only/1');
    assert.equal(missing[0].requests, 2);
    assert.match(missing[0].why, /accepts only application\/vnd\.kubernetes\.protobuf \(no JSON\).*not reconstructed/);
    await until('the JSON reflector', () => s.reconstructor.reflectors().length === 1);
    assert.equal(s.reconstructor.reflectors()[0].name, 'configmaps.v1 ns=ns ua=json/1');
    const index = JSON.parse(s.traceFiles('/tmp/x/trace.json')[0].text) as { notReconstructed: { reflector: string; why: string }[]; reflectors: unknown[] };
    assert.deepEqual(index.notReconstructed.map((r) => r.reflector), ['configmaps.v1 ns=ns ua=pb-only/1']);
    assert.equal(index.reflectors.length, 1);
  });

  it('Secret payloads, the upstream token and the proxy token reach no trace, log line or notice', async () => {
    const payload = 'unit-secret-payload-5d1c';
    const b64 = Buffer.from(payload).toString('base64');
    const secretList = JSON.stringify({ kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 's', namespace: 'ns', resourceVersion: '5' }, data: { password: b64 } }] });
    const modified = JSON.stringify({ type: 'MODIFIED', object: { kind: 'Secret', apiVersion: 'v1', metadata: { name: 's', namespace: 'ns', resourceVersion: '11' }, data: { password: b64, other: b64 }, stringData: { token: payload } } }) + '\n';
    const seenNotices: ProxyNotice[] = [];
    upstream = await startLoopback((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('watch=true')) res.end(modified);
      else res.end(secretList);
    });
    session = await ObserveSession.start({ conn: KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(upstream.port) }), profile: findProfile('v1.32')!, onNotice: (n) => seenNotices.push(n) });
    const s = session;
    await streamGet(s.proxy, '/api/v1/namespaces/ns/secrets?limit=500&resourceVersion=0');
    await streamGet(s.proxy, '/api/v1/namespaces/ns/secrets?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=400&watch=true');
    await request(s.proxy, 'GET', '/api/v1/namespaces/ns/secrets', { authorization: 'Bearer not-the-token' });
    const r = () => s.reconstructor.reflectors()[0];
    await until('the update', () => !!r() && r().notifications === 2);
    const outputs = [s.logText(), ...s.traceFiles('/tmp/x/trace.json').map((f) => f.text), JSON.stringify(seenNotices)].join('\n');
    // The update's field diff names the changed Secret fields (their values must not be there).
    assert.ok(outputs.includes('data.other') && outputs.includes('stringData'), 'the trace has the diff of the Secret');
    for (const secret of [payload, b64, 'loopback-token', s.proxy.token, 'not-the-token']) assert.ok(!outputs.includes(secret), `${secret.slice(0, 12)}… reached an output`);
  });

  it('a process that relists where v1.32 would re-watch gets a finding naming the likely causes', async () => {
    const s = await start((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(events[0]);
      setTimeout(() => res.end(), 1200);
    });
    await streamGet(s.proxy, '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0');
    await streamGet(s.proxy, '/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=400&watch=true');
    // The watch ended cleanly: client-go v1.32 re-watches at RV 11; this process lists again.
    await streamGet(s.proxy, '/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0');
    const r = () => s.reconstructor.reflectors()[0];
    await until('a finding', () => !!r() && r().findings.length > 0);
    const f = r().findings[0];
    assert.equal(f.kind, 'relist-instead-of-watch');
    assert.match(f.detail, /WATCH resourceVersion="11"/);
    assert.ok(f.likelyCauses.some((c) => /older client-go/.test(c)));
  });
});
