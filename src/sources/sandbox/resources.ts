/**
 * The resources the sandbox serves and the discovery documents that describe them. The set is
 * fixed: two core resources informers are commonly written against, the cluster-scoped
 * namespaces, and one custom resource so that CRD discovery (/apis/<group>/<version>) is shown.
 * Verbs list only what the sandbox answers: it is read-only from the outside.
 */

export interface SandboxResource {
  /** "" for the core group. */
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** Custom resources are served as unstructured JSON: list items keep apiVersion/kind. */
  custom: boolean;
}

export const CUSTOM_GROUP = 'demo.example.com';
export const CUSTOM_VERSION = 'v1';

export const SANDBOX_RESOURCES: readonly SandboxResource[] = [
  { group: '', version: 'v1', plural: 'configmaps', singular: 'configmap', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], custom: false },
  { group: '', version: 'v1', plural: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, shortNames: ['po'], custom: false },
  { group: '', version: 'v1', plural: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false, shortNames: ['ns'], custom: false },
  { group: CUSTOM_GROUP, version: CUSTOM_VERSION, plural: 'widgets', singular: 'widget', kind: 'Widget', namespaced: true, shortNames: ['wdg'], custom: true },
];

export function apiVersionOf(r: SandboxResource): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/** A stable id for a resource, e.g. "configmaps" or "widgets.demo.example.com". */
export function resourceId(r: SandboxResource): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

export function findResource(group: string, version: string, plural: string): SandboxResource | undefined {
  return SANDBOX_RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

export function resourceById(id: string): SandboxResource {
  const r = SANDBOX_RESOURCES.find((x) => resourceId(x) === id);
  if (!r) throw new Error(`unknown sandbox resource ${id}`);
  return r;
}

const READ_VERBS = ['get', 'list', 'watch'];

function apiResourceList(group: string, version: string): object | undefined {
  const resources = SANDBOX_RESOURCES.filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: resources.map((r) => ({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: READ_VERBS,
      shortNames: r.shortNames,
      ...(r.custom ? { categories: ['all'] } : {}),
    })),
  };
}

const groupVersion = { groupVersion: `${CUSTOM_GROUP}/${CUSTOM_VERSION}`, version: CUSTOM_VERSION };
const customGroup = { name: CUSTOM_GROUP, versions: [groupVersion], preferredVersion: groupVersion };

/** The body for a discovery path, or undefined when the path is not a discovery path. */
export function discoveryDocument(path: string, serverAddress: string): object | undefined {
  switch (path) {
    case '/api':
      return {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
      };
    case '/api/v1':
      return apiResourceList('', 'v1');
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [customGroup] };
    case `/apis/${CUSTOM_GROUP}`:
      return { kind: 'APIGroup', apiVersion: 'v1', ...customGroup };
    case `/apis/${CUSTOM_GROUP}/${CUSTOM_VERSION}`:
      return apiResourceList(CUSTOM_GROUP, CUSTOM_VERSION);
    default:
      return undefined;
  }
}

/** What /version reports; the "-sandbox" suffix keeps it from being mistaken for a real server. */
export const SANDBOX_VERSION = {
  major: '1',
  minor: '36',
  gitVersion: 'v1.36.0-sandbox',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.26',
  compiler: 'gc',
  platform: 'linux/amd64',
};
