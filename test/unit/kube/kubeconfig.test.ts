/** Kubeconfig loading and context selection; errors never carry credentials. */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { KubeConfigError, KubeConnection } from '../../../src/kube/kubeconfig';
import { resolveResource, type ApiResource } from '../../../src/kube/discovery';

const YAML = `apiVersion: v1
kind: Config
clusters:
- {name: a, cluster: {server: "https://127.0.0.1:6443/"}}
- {name: b, cluster: {server: "http://127.0.0.1:8080"}}
users:
- {name: u, user: {token: SUPERSECRET-TOKEN}}
contexts:
- {name: one, context: {cluster: a, user: u, namespace: team}}
- {name: two, context: {cluster: b, user: u}}
- {name: broken, context: {cluster: missing, user: u}}
current-context: one
`;

describe('kube/KubeConnection', () => {
  it('selects the current context, or the one asked for, and lists all', () => {
    const c = KubeConnection.load({ kubeconfigYaml: YAML });
    assert.deepEqual(c.context, { name: 'one', cluster: 'a', user: 'u', namespace: 'team', server: 'https://127.0.0.1:6443' });
    assert.equal(c.withContext('two').server, 'http://127.0.0.1:8080');
    assert.deepEqual(c.contexts().map((x) => x.name), ['one', 'two', 'broken']);
    const dir = mkdtempSync(path.join(tmpdir(), 'kc-'));
    writeFileSync(path.join(dir, 'config'), YAML);
    assert.equal(KubeConnection.load({ kubeconfigPath: path.join(dir, 'config'), context: 'two' }).context.name, 'two');
  });

  it('names a missing context or cluster in one line', () => {
    assert.throws(() => KubeConnection.load({ kubeconfigYaml: YAML, context: 'nope' }), /context "nope" is not in the kubeconfig/);
    assert.throws(() => KubeConnection.load({ kubeconfigYaml: YAML, context: 'broken' }), /names cluster "missing"/);
  });

  it('puts the bearer token only into request headers, and never into error texts', async () => {
    const c = KubeConnection.load({ kubeconfigYaml: YAML });
    const o = await c.requestOptions({ accept: 'application/json' });
    assert.equal((o.headers as Record<string, string>).Authorization, 'Bearer SUPERSECRET-TOKEN');
    const bad = YAML.replace('  user: u, namespace: team', '  user: u, namespace: team').replace('- {name: u,', '- {name: u,\n   x: [');
    assert.throws(
      () => KubeConnection.load({ kubeconfigYaml: bad }),
      (e: unknown) => e instanceof KubeConfigError && !e.message.includes('SUPERSECRET') && !e.message.includes('\n'),
    );
  });
});

describe('kube/resolveResource', () => {
  const r = (group: string, resource: string, kind: string, shortNames: string[] = []): ApiResource => ({
    group, version: group ? 'v1' : 'v1', resource, kind, namespaced: true, shortNames, categories: [], verbs: ['list', 'watch'],
  });
  const all = [r('', 'events', 'Event', ['ev']), r('events.k8s.io', 'events', 'Event', ['ev']), r('apps', 'deployments', 'Deployment', ['deploy']), r('x.io', 'widgets', 'Widget'), r('y.io', 'widgets', 'Widget')];
  it('finds plural, plural.group, plural.version.group, kind and short names; prefers the core group', () => {
    assert.equal(resolveResource(all, 'deployments')?.group, 'apps');
    assert.equal(resolveResource(all, 'deploy')?.resource, 'deployments');
    assert.equal(resolveResource(all, 'Deployment')?.resource, 'deployments');
    assert.equal(resolveResource(all, 'deployments.v1.apps')?.group, 'apps');
    assert.equal(resolveResource(all, 'events')?.group, '');
    assert.equal(resolveResource(all, 'events.events.k8s.io')?.group, 'events.k8s.io');
    assert.equal(resolveResource(all, 'nothing'), undefined);
    assert.throws(() => resolveResource(all, 'widgets'), /ambiguous: widgets.x.io, widgets.y.io/);
  });
});
