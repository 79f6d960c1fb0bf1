import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { KubeConnection, discoverResources } from '../../../src/kube';
import { startSandbox } from '../../../src/sources/sandbox';
import { type TestSandbox, testSandbox } from './helpers';

describe('sandbox: discovery, health, read-only', () => {
  let t: TestSandbox;
  beforeEach(async () => (t = await testSandbox()));
  afterEach(async () => t.sb.stop());

  it('serves /api, /api/v1, /apis and the custom resource group version', async () => {
    const api = await t.json('/api');
    assert.equal(api.status, 200);
    assert.deepEqual(api.body.versions, ['v1']);
    const core = await t.json('/api/v1');
    assert.equal(core.body.kind, 'APIResourceList');
    const names = (core.body.resources as Array<{ name: string; namespaced: boolean; verbs: string[] }>).map((r) => r.name);
    assert.deepEqual(names.sort(), ['configmaps', 'namespaces', 'pods']);
    const groups = await t.json('/apis');
    assert.equal(groups.body.kind, 'APIGroupList');
    assert.deepEqual((groups.body.groups as Array<{ name: string }>).map((g) => g.name), ['demo.example.com']);
    const custom = await t.json('/apis/demo.example.com/v1');
    const widgets = (custom.body.resources as Array<{ name: string; kind: string; namespaced: boolean; verbs: string[] }>)[0];
    assert.deepEqual([widgets.name, widgets.kind, widgets.namespaced], ['widgets', 'Widget', true]);
    assert.deepEqual(widgets.verbs, ['get', 'list', 'watch']);
  });

  it('answers /version, /readyz and /healthz', async () => {
    const version = await t.json('/version');
    assert.match(String(version.body.gitVersion), /sandbox/);
    for (const path of ['/readyz', '/healthz']) {
      const res = await t.get(path);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'ok');
    }
  });

  it('answers every non-GET method with 405 and changes nothing', async () => {
    const before = await t.json('/api/v1/configmaps');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await fetch(`${t.sb.url}/api/v1/namespaces/default/configmaps/web-config`, { method, body: method === 'DELETE' ? undefined : '{}' });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET');
      const status = (await res.json()) as { reason: string; code: number };
      assert.deepEqual([status.reason, status.code], ['MethodNotAllowed', 405]);
    }
    const after = await t.json('/api/v1/configmaps');
    assert.equal(after.body.metadata?.resourceVersion, before.body.metadata?.resourceVersion);
    assert.equal(after.body.items?.length, before.body.items?.length);
  });

  it('gets one object, and 404s unknown objects and paths', async () => {
    const cm = await t.json('/api/v1/namespaces/team-a/configmaps/web-config');
    assert.equal(cm.status, 200);
    assert.deepEqual([cm.body.kind, cm.body.apiVersion], ['ConfigMap', 'v1']);
    const missing = await t.json('/api/v1/namespaces/team-a/configmaps/nope');
    assert.deepEqual([missing.status, missing.body.reason, missing.body.message], [404, 'NotFound', 'configmaps "nope" not found']);
    assert.equal((await t.get('/api/v1/secrets')).status, 404);
    assert.equal((await t.get('/apis/other.example.com/v1/things')).status, 404);
  });

  it('gives a kubeconfig that the project HTTP client loads and discovers through', async () => {
    const conn = KubeConnection.load({ kubeconfigYaml: t.sb.kubeconfigYaml });
    assert.equal(conn.context.name, 'informer-inspector-sandbox');
    assert.equal(conn.server, t.sb.url);
    const found = await discoverResources(conn);
    assert.deepEqual(found.failures, []);
    const names = found.resources.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).sort();
    assert.deepEqual(names, ['configmaps', 'namespaces', 'pods', 'widgets.demo.example.com']);
  });
});

describe('sandbox: kubeconfig file and options', () => {
  it('writes the kubeconfig without credentials when asked and removes it on stop', async () => {
    const sb = await startSandbox({ writeKubeconfig: true, runStoryline: false });
    try {
      assert.ok(sb.kubeconfigPath);
      const text = await readFile(sb.kubeconfigPath, 'utf8');
      assert.equal(text, sb.kubeconfigYaml);
      assert.match(text, new RegExp(`server: http://127\\.0\\.0\\.1:${sb.port}\\n`));
      assert.match(text, /current-context: informer-inspector-sandbox/);
      assert.doesNotMatch(text, /token|password|client-key|client-certificate/);
      assert.equal(sb.label, 'SIMULATED');
    } finally {
      await sb.stop();
    }
    assert.equal(existsSync(sb.kubeconfigPath), false);
  });

  it('rejects an unknown scenario name', async () => {
    await assert.rejects(startSandbox({ scenario: 'nope' }), /unknown sandbox scenario "nope" \(one of: restart-storm, etcd-lost-delete, watch-expiry, calm\)/);
  });
});
