/**
 * Basic auth (username/password of the kubeconfig user) goes to plain-HTTP servers too, as
 * client-go's BasicAuthRoundTripper sends it whatever the scheme (client-node only adds it on
 * its HTTPS path). A loopback node:http server on 127.0.0.1 checks the header; the password
 * never shows in an error text.
 */
import { strict as assert } from 'node:assert';
import { StatusError, TransportError } from '../../../src/engine/listWatch';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { closedPort, type Loopback, loopbackKubeconfig, loopbackListerWatcher, startLoopback } from './loopback';

const PASSWORD = 'pa:ss-SUPERSECRET-é';

const kubeconfig = loopbackKubeconfig;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('kube: basic auth over plain HTTP', () => {
  let loop: Loopback;
  let port: number;
  const seen: Array<{ method: string; auth?: string }> = [];
  const methods: string[] = [];
  let expected = '';

  before(async () => {
    loop = await startLoopback((req, res) => {
      seen.push({ method: req.method ?? '', auth: req.headers.authorization });
      methods.push(req.method ?? '');
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', message: 'Unauthorized', code: 401 }));
        return;
      }
      const watch = /[?&]watch=true/.test(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (watch) {
        res.end(JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '2' } } }) + '\n');
      } else {
        res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
      }
    });
    port = loop.port;
  });
  after(() => loop.close());
  beforeEach(() => (seen.length = 0));

  const lw = (user: string) => loopbackListerWatcher(port, user);

  it('LIST and WATCH send Authorization: Basic with the kubeconfig username/password', async () => {
    expected = basic('admin', PASSWORD);
    const w = lw(`{username: admin, password: ${JSON.stringify(PASSWORD)}}`);
    const list = await w.list({ resourceVersion: '0' }, new AbortController().signal);
    assert.deepEqual(list.items, []);
    const watcher = await w.watch({ resourceVersion: '1' }, new AbortController().signal);
    assert.equal((await watcher.next())?.type, 'ADDED');
    watcher.stop();
    assert.deepEqual(seen, [
      { method: 'GET', auth: expected },
      { method: 'GET', auth: expected },
    ]);
  });

  it('a username without a password is sent with an empty password (rest.Config.HasBasicAuth)', async () => {
    expected = basic('admin', '');
    await lw('{username: admin}').list({ resourceVersion: '0' }, new AbortController().signal);
    assert.equal(seen[0].auth, expected);
  });

  it('a bearer token, when the user has one too, is not replaced', async () => {
    expected = 'Bearer tok-1';
    await lw(`{token: tok-1, username: admin, password: ${JSON.stringify(PASSWORD)}}`).list({ resourceVersion: '0' }, new AbortController().signal);
    assert.equal(seen[0].auth, expected);
  });

  it('a rejected password and a dead server: error texts never carry it', async () => {
    expected = 'something else';
    await assert.rejects(lw(`{username: admin, password: ${JSON.stringify(PASSWORD)}}`).list({ resourceVersion: '0' }, new AbortController().signal), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.status.code, 401);
      assert.ok(!JSON.stringify(e.status).includes('SUPERSECRET') && !e.message.includes('SUPERSECRET'));
      return true;
    });
    const deadPort = await closedPort();
    const w = loopbackListerWatcher(deadPort, `{username: admin, password: ${JSON.stringify(PASSWORD)}}`);
    await assert.rejects(w.watch({ resourceVersion: '1' }, new AbortController().signal), (e: unknown) => {
      assert.ok(e instanceof TransportError);
      assert.ok(!e.message.includes('SUPERSECRET') && !e.message.includes(Buffer.from(`admin:${PASSWORD}`).toString('base64')), e.message);
      return true;
    });
  });

  it('requestOptions carries the header for an http server, and nothing prints it', async () => {
    const c = KubeConnection.load({ kubeconfigYaml: kubeconfig(port, `{username: admin, password: ${JSON.stringify(PASSWORD)}}`) });
    const o = await c.requestOptions({ accept: 'application/json' });
    assert.equal((o.headers as Record<string, string>).Authorization, basic('admin', PASSWORD));
    assert.equal(o.auth, undefined, 'no user:password in clear in the options');
    assert.ok(!JSON.stringify(c.contexts()).includes('SUPERSECRET'));
  });

  it('sent nothing but GET', () => {
    assert.ok(methods.length >= 5);
    assert.deepEqual([...new Set(methods)], ['GET']);
  });
});
