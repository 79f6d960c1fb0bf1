/** Real clusters: kubeconfig/auth, discovery and the HTTP ListerWatcher (GET only). */
export { KubeConnection, KubeConfigError, KubeconfigSet, NoKubeconfigError, kubeconfigFiles } from './kubeconfig';
export type { ContextInfo, LoadOptions } from './kubeconfig';
export { discoverResources, resolveResource } from './discovery';
export type { ApiResource, DiscoveryResult } from './discovery';
export { HttpListerWatcher, collectionPath } from './listerWatcher';
export { redactedUrl } from './http';
export type { HttpListerWatcherOptions, HttpRequestInfo } from './listerWatcher';
