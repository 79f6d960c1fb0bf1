/**
 * The Kubernetes extension integration against a stand-in of its documented API
 * (vscode-kubernetes-tools-api: configuration v1_1, clusterExplorer v1): kubeconfig path, context
 * changes followed, resource kinds from explorer nodes; without the extension nothing changes.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeconfigSet } from '../../../src/kube/kubeconfig';
import { KubernetesToolsState, type K8sClusterExplorer, type K8sConfiguration } from '../../../src/vscode/kubernetesToolsState';

function standIn(path: string) {
  const listeners: ((c: string | null) => unknown)[] = [];
  const configuration: K8sConfiguration = {
    getKubeconfigPath: () => ({ pathType: 'host', hostPath: path }),
    onDidChangeContext: (l) => (listeners.push(l), { dispose: () => listeners.splice(listeners.indexOf(l), 1) }),
  };
  const explorer: K8sClusterExplorer = {
    resolveCommandTarget: (t) =>
      t === 'deployments-folder'
        ? { nodeType: 'folder.resource', resourceKind: { manifestKind: 'Deployment', abbreviation: 'deploy' } }
        : t === 'context-node'
          ? { nodeType: 'context', name: 'dev' }
          : undefined,
  };
  return { configuration, explorer, switchTo: (c: string | null) => listeners.forEach((l) => l(c)), listeners };
}

describe('Kubernetes extension integration (stand-in API)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-tools-'));
  const kc = join(dir, 'from-k8s-extension');
  writeFileSync(kc, [
    'apiVersion: v1', 'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6550"}}]',
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: a, context: {cluster: c, user: u}}, {name: b, context: {cluster: c, user: u, namespace: nb}}]',
    'current-context: a',
  ].join('\n'));

  it("uses the extension's kubeconfig path, and follows its context changes", () => {
    const s = standIn(kc);
    const state = new KubernetesToolsState(s.configuration, s.explorer);
    assert.equal(state.available, true);
    assert.equal(state.kubeconfigPath(), kc);
    assert.deepEqual(KubeconfigSet.load({ kubeconfigPath: state.kubeconfigPath() }).contexts().map((c) => c.name), ['a', 'b']);
    assert.equal(state.currentContext(), undefined, 'no switch seen yet: the kubeconfig current-context applies');
    s.switchTo('b');
    assert.equal(state.currentContext(), 'b');
    s.switchTo(null);
    assert.equal(state.currentContext(), undefined);
    state.dispose();
    assert.equal(s.listeners.length, 0, 'unsubscribed on dispose');
  });

  it('a resource folder in its cluster explorer names the resource to inspect; other nodes do not', () => {
    const s = standIn(kc);
    const state = new KubernetesToolsState(s.configuration, s.explorer);
    assert.equal(state.resourceOf('deployments-folder'), 'Deployment');
    assert.equal(state.resourceOf('context-node'), undefined);
  });

  it('without the extension nothing changes; a WSL kubeconfig path is not used by a host extension', () => {
    const none = new KubernetesToolsState(undefined, undefined);
    assert.equal(none.available, false);
    assert.equal(none.kubeconfigPath(), undefined);
    assert.equal(none.currentContext(), undefined);
    assert.equal(none.resourceOf('deployments-folder'), undefined);
    const wsl = new KubernetesToolsState({ getKubeconfigPath: () => ({ pathType: 'wsl', wslPath: '/home/x/.kube/config' }) }, undefined);
    assert.equal(wsl.kubeconfigPath(), undefined);
  });
});
