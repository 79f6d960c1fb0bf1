/**
 * What Informer Inspector takes from the Kubernetes extension (ms-kubernetes-tools.vscode-kubernetes-tools)
 * through its public API (vscode-kubernetes-tools-api): the kubeconfig path it uses, its current
 * context as it changes, and the resource kind of a cluster-explorer node. Free of 'vscode': the
 * API objects come in as values, so unit tests hand in stand-ins.
 */

/** The parts of ConfigurationV1_1 used here. */
export interface K8sConfiguration {
  getKubeconfigPath(): { pathType: 'host'; hostPath: string } | { pathType: 'wsl'; wslPath: string };
  readonly onDidChangeContext?: (listener: (context: string | null) => unknown) => { dispose(): unknown };
  readonly onDidChangeKubeconfigPath?: (listener: (path: unknown) => unknown) => { dispose(): unknown };
}

/** The part of ClusterExplorerV1 used here. */
export interface K8sClusterExplorer {
  resolveCommandTarget(target?: unknown): { nodeType: string; resourceKind?: { manifestKind: string; abbreviation: string }; name?: string } | undefined;
}

export class KubernetesToolsState {
  /** The context the Kubernetes extension switched to last (undefined: none seen; read the kubeconfig's). */
  private context: string | undefined;
  private readonly subscriptions: { dispose(): unknown }[] = [];

  constructor(
    private readonly configuration: K8sConfiguration | undefined,
    private readonly explorer: K8sClusterExplorer | undefined,
  ) {
    if (configuration?.onDidChangeContext) {
      this.subscriptions.push(configuration.onDidChangeContext((c) => (this.context = c ?? undefined)));
    }
  }

  get available(): boolean {
    return this.configuration !== undefined;
  }

  /**
   * The kubeconfig the Kubernetes extension uses (its vs-kubernetes.kubeconfig setting, or its
   * choice of KUBECONFIG/~/.kube/config) when it is a host path; undefined without the extension,
   * or for a WSL path (which this extension host cannot read).
   */
  kubeconfigPath(): string | undefined {
    const p = this.configuration?.getKubeconfigPath();
    return p?.pathType === 'host' && p.hostPath ? p.hostPath : undefined;
  }

  /** The context the Kubernetes extension switched to, if it did while we listened. */
  currentContext(): string | undefined {
    return this.context;
  }

  /** The resource kind of a cluster-explorer node ("folder.resource" or a resource), as a name Inspect resolves. */
  resourceOf(target: unknown): string | undefined {
    const node = this.explorer?.resolveCommandTarget(target);
    const kind = node?.resourceKind;
    if (!kind) return undefined;
    // The manifest kind resolves through discovery like `kubectl get Deployment`; the abbreviation is the fallback.
    return kind.manifestKind || kind.abbreviation;
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
