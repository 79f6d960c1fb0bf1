/** The kubeconfig the benchmark clients use for a loopback fake apiserver at `url` (no credentials). */
export function benchKubeconfig(url: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: bench, cluster: {server: "${url}"}}]`,
    'users: [{name: bench, user: {}}]',
    'contexts: [{name: bench, context: {cluster: bench, user: bench}}]',
    'current-context: bench',
  ].join('\n');
}
