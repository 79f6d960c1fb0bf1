// The Kubernetes extension's API as vscode-kubernetes-tools-api documents it, backed by the file in
// STANDIN_KUBECONFIG: "use context" rewrites its current-context (as `kubectl config use-context`
// does for the real extension) and fires onDidChangeContext.
const vscode = require('vscode');
const fs = require('fs');

function activate(context) {
  const kubeconfig = process.env.STANDIN_KUBECONFIG || '';
  const contextChanged = new vscode.EventEmitter();
  const pathChanged = new vscode.EventEmitter();
  const nsChanged = new vscode.EventEmitter();
  const folder = { kind: 'ConfigMap', abbreviation: 'cm' };
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('extension.vsKubernetesExplorer', {
      getTreeItem: (n) => Object.assign(new vscode.TreeItem('Config Maps'), { contextValue: 'vsKubernetes.kind', id: 'configmaps' }),
      getChildren: (n) => (n ? [] : [folder]),
    }),
    vscode.commands.registerCommand('standIn.useContext', () => {
      const text = fs.readFileSync(kubeconfig, 'utf8').replace(/^current-context:.*$/m, 'current-context: k8s-ext-choice');
      fs.writeFileSync(kubeconfig, text);
      contextChanged.fire('k8s-ext-choice');
    }),
  );
  const apis = {
    'configuration/v1_1': {
      getKubeconfigPath: () => ({ pathType: 'host', hostPath: kubeconfig }),
      onDidChangeKubeconfigPath: pathChanged.event,
      onDidChangeContext: contextChanged.event,
      onDidChangeNamespace: nsChanged.event,
    },
    'clusterexplorer/v1': {
      resolveCommandTarget: (t) => (t && t.kind ? { nodeType: 'folder.resource', resourceKind: { manifestKind: t.kind, abbreviation: t.abbreviation } } : undefined),
      registerNodeContributor: () => undefined,
      registerNodeUICustomizer: () => undefined,
      refresh: () => undefined,
    },
  };
  return {
    get: (component, version) => {
      const api = apis[`${component}/${version}`];
      return api ? { available: true, api } : { available: false, reason: 'version-unknown' };
    },
  };
}

module.exports = { activate, deactivate: () => undefined };
