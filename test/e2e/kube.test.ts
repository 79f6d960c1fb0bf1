/**
 * src/kube against a real kube-apiserver v1.36 + etcd (no engine): kubeconfig, discovery with a
 * CRD, paginated LIST of >1000 objects, WATCH events, and the typed errors for faults injected
 * by the TCP fault proxy. The audit log proves the kube layer only ever sent GETs.
 */
import { strict as assert } from 'node:assert';
import { StatusError, TransportError, type Watcher, type WatchEvent } from '../../src/engine/listWatch';
import { discoverResources, resolveResource } from '../../src/kube/discovery';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { HttpListerWatcher, type HttpRequestInfo } from '../../src/kube/listerWatcher';
import { WatchListClient } from '../../src/engine/watchListClient';
import { useCluster } from './cluster';
import { FaultProxy } from './faultProxy';
import { assertEngineOnlyGot, CONFIGMAPS, cmBody, createConfigMaps, createNamespace, waitFor } from './helpers';

describe('e2e: kube layer against kube-apiserver', function () {
  this.timeout(120_000);
  const cluster = useCluster();
  const signal = () => new AbortController().signal;

  it('loads the kubeconfig and selects the context', () => {
    const conn = KubeConnection.load({ kubeconfigPath: cluster().kubeconfigPath });
    assert.equal(conn.context.name, 'e2e-inspector');
    assert.equal(conn.server, cluster().apiserverUrl);
    assert.deepEqual(conn.contexts().map((c) => c.name), ['e2e-inspector']);
    assert.throws(() => KubeConnection.load({ kubeconfigPath: cluster().kubeconfigPath, context: 'nope' }), /context "nope" is not in the kubeconfig/);
  });

  it('discovers listable+watchable resources, including a CRD once it is established', async () => {
    const c = cluster();
    const conn = KubeConnection.load({ kubeconfigPath: c.kubeconfigPath });
    const before = await discoverResources(conn);
    assert.deepEqual(before.failures, []);
    const cm = resolveResource(before.resources, 'configmaps');
    assert.deepEqual(cm && { g: cm.group, v: cm.version, k: cm.kind, ns: cm.namespaced }, { g: '', v: 'v1', k: 'ConfigMap', ns: true });
    assert.equal(resolveResource(before.resources, 'deployments.apps')?.kind, 'Deployment');
    assert.equal(resolveResource(before.resources, 'cm')?.resource, 'configmaps');
    assert.ok(!before.resources.some((r) => r.resource.includes('/')), 'no subresources');
    assert.ok(!before.resources.some((r) => r.resource === 'bindings'), 'bindings cannot be listed');

    await c.adminOk('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.e2e.example.com' },
      spec: {
        group: 'e2e.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wg'] },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const widget = await waitFor('the CRD in discovery', async () =>
      resolveResource((await discoverResources(conn)).resources, 'widgets.e2e.example.com'),
    );
    assert.deepEqual({ g: widget.group, v: widget.version, k: widget.kind, sn: widget.shortNames }, { g: 'e2e.example.com', v: 'v1', k: 'Widget', sn: ['wg'] });
    // and it can be listed through the ListerWatcher
    await c.adminOk('POST', '/apis/e2e.example.com/v1/namespaces/default/widgets', { apiVersion: 'e2e.example.com/v1', kind: 'Widget', metadata: { name: 'w1' } });
    const lw = new HttpListerWatcher(conn, widget);
    const l = await lw.list({ resourceVersion: '' }, signal());
    assert.deepEqual(l.items.map((o) => o.metadata?.name), ['w1']);
  });

  it('lists >1000 ConfigMaps in pages of 500 with continue tokens at one resourceVersion', async () => {
    const c = cluster();
    await createNamespace(c, 'many');
    await createConfigMaps(c, 'many', 'cm', 1100);
    const requests: HttpRequestInfo[] = [];
    const lw = new HttpListerWatcher(KubeConnection.load({ kubeconfigPath: c.kubeconfigPath }), CONFIGMAPS, { namespace: 'many', onRequest: (r) => requests.push(r) });
    const names = new Set<string>();
    let cont = '';
    let rv = '';
    let pages = 0;
    do {
      const page = await lw.list({ resourceVersion: pages === 0 ? '' : '', limit: 500, continue: cont || undefined }, signal());
      pages++;
      page.items.forEach((o) => names.add(o.metadata!.name!));
      rv = rv || page.metadata.resourceVersion!;
      if (page.metadata.continue) assert.ok((page.metadata.remainingItemCount ?? 0) > 0);
      cont = page.metadata.continue ?? '';
    } while (cont);
    assert.equal(pages, 3);
    assert.equal(names.size, 1100);
    assert.match(requests[1].url, /continue=/);
    // RV "0" is served from the watch cache, which ignores the limit: one page.
    const any = await lw.list({ resourceVersion: '0', limit: 500 }, signal());
    assert.equal(any.items.length, 1100);
    assert.equal(any.metadata.continue ?? '', '');
    // resourceVersionMatch=NotOlderThan with a specific RV
    const nt = await lw.list({ resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', limit: 2000 }, signal());
    assert.equal(nt.items.length, 1100);
    assert.ok(requests.every((r) => r.method === 'GET'));
  });

  it("v0.32's client-side watch-list (WatchListClient over the HTTP ListerWatcher) against this apiserver: one WATCH, no list blueprint, then the LIST", async () => {
    const c = cluster();
    const requests: HttpRequestInfo[] = [];
    const lw = new HttpListerWatcher(KubeConnection.load({ kubeconfigPath: c.kubeconfigPath }), CONFIGMAPS, { namespace: 'many', onRequest: (r) => requests.push(r) });
    const fallbacks: Error[] = [];
    const got = await new WatchListClient(lw, { onFallback: (e) => fallbacks.push(e as Error) }).list({ resourceVersion: '0', limit: 500 }, signal());
    // kube-apiserver ≥ 1.34 no longer puts the kubernetes.io/initial-events-list-blueprint
    // annotation on the end bookmark (kubernetes/kubernetes#132326), so a v0.32 client's
    // watch-list cannot build its list and falls back to the LIST it was asked for.
    assert.deepEqual(fallbacks.map((e) => e.message), ['"kubernetes.io/initial-events-list-blueprint" annotation is missing content']);
    assert.equal(requests.length, 2);
    assert.match(requests[0].url, /sendInitialEvents=true/);
    assert.match(requests[0].url, /resourceVersionMatch=NotOlderThan/);
    assert.doesNotMatch(requests[0].url, /limit=|timeoutSeconds=/);
    assert.match(requests[1].url, /limit=500/);
    assert.doesNotMatch(requests[1].url, /watch=/);
    assert.equal(got.items.length, 1100);
  });

  it('watches create, update and delete made by the test', async () => {
    const c = cluster();
    await createNamespace(c, 'watch1');
    const lw = new HttpListerWatcher(KubeConnection.load({ kubeconfigPath: c.kubeconfigPath }), CONFIGMAPS, { namespace: 'watch1' });
    const start = await lw.list({ resourceVersion: '' }, signal());
    const w = await lw.watch({ resourceVersion: start.metadata.resourceVersion!, allowWatchBookmarks: true, timeoutSeconds: 60 }, signal());
    const created = await c.adminOk<any>('POST', '/api/v1/namespaces/watch1/configmaps', cmBody('watch1', 'a'));
    await c.adminOk('PUT', '/api/v1/namespaces/watch1/configmaps/a', { ...created, data: { v: '1' } });
    await c.adminOk('DELETE', '/api/v1/namespaces/watch1/configmaps/a');
    const evs = await nextNonBookmark(w, 3);
    assert.deepEqual(evs.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.equal((evs[1].object as any).data.v, '1');
    w.stop();
    assert.equal(await w.next(), null);
    assert.deepEqual(w.end, { kind: 'stopped' });
  });

  it('maps an unknown resource to a 404 NotFound StatusError', async () => {
    const lw = new HttpListerWatcher(KubeConnection.load({ kubeconfigPath: cluster().kubeconfigPath }), { ...CONFIGMAPS, resource: 'nosuchthings' });
    await assert.rejects(lw.list({ resourceVersion: '' }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === 404 && e.status.reason === 'NotFound');
    await assert.rejects(lw.watch({ resourceVersion: '' }, signal()), (e: unknown) => e instanceof StatusError && e.status.code === 404);
  });

  it('a LIST at a future resourceVersion: 504 "Too large resource version" with Retry-After, retried by the REST client', async () => {
    const c = cluster();
    const requests: HttpRequestInfo[] = [];
    const lw = new HttpListerWatcher(KubeConnection.load({ kubeconfigPath: c.kubeconfigPath }), CONFIGMAPS, { maxRetries: 1, onRequest: (r) => requests.push(r) });
    const rv = Number((await lw.list({ resourceVersion: '' }, signal())).metadata.resourceVersion);
    requests.length = 0;
    await assert.rejects(lw.list({ resourceVersion: String(rv + 1000) }, signal()), (e: unknown) => {
      assert.ok(e instanceof StatusError, String(e));
      assert.equal(e.status.code, 504);
      assert.equal(e.status.reason, 'Timeout');
      assert.match(e.message, /Too large resource version/);
      assert.deepEqual(e.status.details?.causes?.map((x) => x.type), ['ResourceVersionTooLarge']);
      assert.equal(e.status.details?.retryAfterSeconds, 1);
      return true;
    });
    // The first answer carried Retry-After: 1, so the REST client asked once more (maxRetries 1).
    assert.deepEqual(requests.map((r) => r.attempt), [0, 1]);
  });

  it('maps proxy faults: cut → reset, refused → connection refused, stall + client timeout → timeout', async () => {
    const c = cluster();
    const proxy = new FaultProxy({ host: '127.0.0.1', port: c.port });
    await proxy.listen();
    try {
      const conn = KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml({ server: proxy.url }) });
      const lw = new HttpListerWatcher(conn, CONFIGMAPS, { namespace: 'default' });
      const rv = (await lw.list({ resourceVersion: '' }, signal())).metadata.resourceVersion!;

      let w = await lw.watch({ resourceVersion: rv, timeoutSeconds: 60 }, signal());
      await waitFor('a live proxied connection', () => proxy.liveConnections > 0);
      proxy.cutAll('reset');
      assert.equal(await w.next(), null);
      assert.equal(w.end?.kind, 'reset');

      w = await lw.watch({ resourceVersion: rv, timeoutSeconds: 60 }, signal());
      await waitFor('a live proxied connection', () => proxy.liveConnections > 0);
      proxy.cutAll('close');
      assert.equal(await w.next(), null);
      // A FIN in the middle of the chunked body: Go's decoder sees io.ErrUnexpectedEOF.
      assert.equal(w.end?.kind, 'unexpected-eof');

      await proxy.stopListening();
      await assert.rejects(lw.watch({ resourceVersion: rv }, signal()), (e: unknown) => e instanceof TransportError && e.kind === 'connection-refused');
      await assert.rejects(lw.list({ resourceVersion: rv }, signal()), (e: unknown) => e instanceof TransportError && e.kind === 'connection-refused');
      await proxy.listen();

      const slow = new HttpListerWatcher(conn, CONFIGMAPS, { namespace: 'default', requestTimeoutMs: 1500 });
      const ws = await slow.watch({ resourceVersion: rv, timeoutSeconds: 60 }, signal());
      proxy.stall();
      assert.equal(await ws.next(), null);
      assert.equal(ws.end?.kind, 'timeout');
      await assert.rejects(slow.list({ resourceVersion: '' }, signal()), (e: unknown) => e instanceof TransportError && e.kind === 'timeout');
      proxy.resume();
    } finally {
      await proxy.close();
    }
  });

  it('sent nothing but GET (audit log)', () => {
    assertEngineOnlyGot(cluster());
  });
});

async function nextNonBookmark(w: Watcher, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const e = await w.next();
    if (!e) throw new Error(`watch ended early: ${JSON.stringify(w.end)}`);
    if (e.type !== 'BOOKMARK') out.push(e);
  }
  return out;
}
