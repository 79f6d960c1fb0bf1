/**
 * Connects to the Kubernetes extension when it is installed (vscode-kubernetes-tools-api); without
 * it nothing changes. The state lives in kubernetesToolsState.ts.
 */
import { KubernetesToolsState, type K8sClusterExplorer, type K8sConfiguration } from './kubernetesToolsState';

export async function connectKubernetesTools(): Promise<KubernetesToolsState> {
  try {
    // Imported on first use: loading the package asks VS Code for the Kubernetes extension at once,
    // which activates it.
    const k8s = await import('vscode-kubernetes-tools-api');
    const [configuration, explorer] = await Promise.all([k8s.extension.configuration.v1_1, k8s.extension.clusterExplorer.v1]);
    return new KubernetesToolsState(
      configuration.available ? (configuration.api as unknown as K8sConfiguration) : undefined,
      explorer.available ? (explorer.api as unknown as K8sClusterExplorer) : undefined,
    );
  } catch {
    return new KubernetesToolsState(undefined, undefined);
  }
}
