/**
 * GET only: the real CLI (discovery, the HTTP ListerWatcher's LIST, plain watch and watch-list,
 * the REST client's relist after a failed watch, and the consistency check's LIST) and the
 * kube layer used directly, against a loopback server that records the method of every request.
 * Anything but GET fails the test; so does a run that no longer exercises one of those paths
 * (a GET-only claim over fewer requests would prove less).
 */
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverResources, HttpListerWatcher, KubeConnection } from '../../../src/kube';
import { VirtualCli } from '../cli/virtualTime';
import { FakeApiServer, kubeconfigWithCredentials, type SeenRequest } from './fakeApiServer';

/**
 * The live runs are on virtual time (one FakeClock for the command's duration, faults, checks and
 * backoff, and for the interrupt), moved only while loopback is quiet (runOnVirtualTime), so a
 * busy machine cannot cut a run short before the data it checks has flowed.
 */
const vt = new VirtualCli();
const { later, virtualIo, live } = vt;

function describeSeen(seen: readonly SeenRequest[]): string {
  return seen.map((r) => `${r.method} ${r.url}`).join('\n');
}

const query = (r: SeenRequest): URLSearchParams => new URL(r.url, 'http://x').searchParams;
const isWatch = (r: SeenRequest): boolean => query(r).get('watch') === 'true';
const isCollection = (r: SeenRequest): boolean => /\/secrets(\?|$)/.test(r.url);

describe('security: the extension and CLI only ever send GET to a cluster', function () {
  this.timeout(60_000);
  let server: FakeApiServer;
  let dir: string;
  let kubeconfig: string;

  beforeEach(async () => {
    vt.start();
    server = await new FakeApiServer().start();
    dir = await mkdtemp(join(tmpdir(), 'ii-getonly-'));
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigWithCredentials(server.url));
  });
  afterEach(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    vt.stop();
  });

  it('record on v1.32: discovery, LIST, watch, relist after a 500 and a consistency LIST are all GETs', async () => {
    const m = virtualIo();
    later(2500, m.interrupt);
    const code = await live(
      ['record', '--kubeconfig', kubeconfig, '--resource', 'secrets', '--profile', 'v1.32', '--duration', '20s', '--check-consistency', '@1s', '--quiet'],
      m,
    );
    assert.equal(code, 0, m.err());
    const seen = server.seen;
    assert.deepEqual([...new Set(seen.map((r) => r.method))], ['GET'], describeSeen(seen));
    for (const path of ['/api', '/apis', '/api/v1']) assert.ok(seen.some((r) => r.url === path), `discovery ${path}:\n${describeSeen(seen)}`);
    const lists = seen.filter((r) => isCollection(r) && !isWatch(r));
    const watches = seen.filter((r) => isCollection(r) && isWatch(r));
    assert.ok(lists.length >= 3, `informer list, relist and the consistency list:\n${describeSeen(seen)}`);
    assert.ok(lists.some((r) => query(r).get('limit') === '500' && !query(r).has('resourceVersion')), `a consistent LIST:\n${describeSeen(seen)}`);
    assert.ok(watches.length >= 3, `watch, the failing watch, the watch after the relist:\n${describeSeen(seen)}`);
    assert.ok(seen.every((r) => r.authorization === `Bearer ${'TOKEN-abcdef-0123456789'}`), 'every request carried the kubeconfig credentials');
  });

  it('record on v1.36 (watch-list) and check-consistency: the streaming initial sync is a GET too', async () => {
    const m = virtualIo();
    later(2500, m.interrupt);
    assert.equal(await live(['record', '--kubeconfig', kubeconfig, '--resource', 'secrets', '--profile', 'v1.36', '--duration', '20s', '--quiet'], m), 0, m.err());
    const c = virtualIo();
    const code = await live(['check-consistency', '--kubeconfig', kubeconfig, '--resource', 'secrets', '--namespace', 'prod', '--profile', 'v1.36', '--timeout', '10s'], c);
    assert.ok(code === 0 || code === 1, c.err());
    const seen = server.seen;
    assert.deepEqual([...new Set(seen.map((r) => r.method))], ['GET'], describeSeen(seen));
    assert.ok(seen.some((r) => isWatch(r) && query(r).get('sendInitialEvents') === 'true'), `a watch-list request:\n${describeSeen(seen)}`);
    assert.ok(seen.some((r) => r.url.startsWith('/api/v1/namespaces/prod/secrets')), `the namespaced collection:\n${describeSeen(seen)}`);
  });

  it('the kube layer used directly (discovery, list, watch) sends GET', async () => {
    const conn = KubeConnection.load({ kubeconfigPath: kubeconfig });
    const signal = new AbortController();
    const found = await discoverResources(conn, signal.signal);
    assert.deepEqual(found.resources.map((r) => r.resource), ['secrets']);
    const lw = new HttpListerWatcher(conn, found.resources[0]);
    const list = await lw.list({ resourceVersion: '0', limit: 500 }, signal.signal);
    assert.equal(list.items.length, 2);
    const w = await lw.watch({ resourceVersion: list.metadata.resourceVersion ?? '', allowWatchBookmarks: true }, signal.signal);
    assert.equal((await w.next())?.type, 'MODIFIED');
    w.stop();
    signal.abort();
    assert.deepEqual(server.seen.map((r) => r.method), ['GET', 'GET', 'GET', 'GET', 'GET'], describeSeen(server.seen));
  });
});
