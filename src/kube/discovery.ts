/**
 * Discovery of the resources an informer can run on: those whose verbs include both "list" and
 * "watch" (no subresources), in the preferred version of every group, CRDs and aggregated APIs
 * included. Uses the classic discovery endpoints (/api, /api/v1, /apis, /apis/G/V), all GETs.
 */
import { StatusError } from '../engine/listWatch';
import { httpGet, readBody, statusErrorFrom } from './http';
import type { KubeConnection } from './kubeconfig';

export interface ApiResource {
  group: string;
  version: string;
  /** Plural name used in URLs, e.g. "configmaps". */
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
}

export interface DiscoveryResult {
  resources: ApiResource[];
  /** Group versions that failed (an aggregated API that is down, say); the rest is still usable. */
  failures: { groupVersion: string; message: string }[];
}

interface APIResourceList {
  groupVersion: string;
  resources: Array<{
    name: string;
    kind: string;
    namespaced: boolean;
    verbs?: string[];
    shortNames?: string[];
    categories?: string[];
    group?: string;
    version?: string;
  }>;
}

interface APIGroupList {
  groups: Array<{ name: string; preferredVersion?: { groupVersion: string; version: string }; versions: Array<{ groupVersion: string; version: string }> }>;
}

async function getJson<T>(conn: KubeConnection, path: string, signal: AbortSignal): Promise<T> {
  const res = await httpGet(conn, conn.server + path, { signal, timeoutMs: 30_000 });
  const body = await readBody(res, 64 << 20);
  if (res.status < 200 || res.status > 299) throw statusErrorFrom(res.status, res.headers, body, undefined);
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new Error(`the discovery document ${path} is not JSON: ${String((e as Error).message).split(/[\r\n\u2028\u2029]/)[0]}`);
  }
  // Everything read below is a field of an object: anything else from the server is refused here.
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`the discovery document ${path} is not a JSON object`);
  return doc as T;
}

/** An array from a discovery document, without its null/non-object entries; [] for anything else. */
function entries<T>(v: T[] | undefined): T[] {
  return Array.isArray(v) ? v.filter((x) => x !== null && typeof x === 'object') : [];
}

export async function discoverResources(
  conn: KubeConnection,
  signal: AbortSignal = new AbortController().signal,
  opts: { allVersions?: boolean; concurrency?: number } = {},
): Promise<DiscoveryResult> {
  const groupVersions: Array<{ group: string; version: string; path: string }> = [];
  const core = await getJson<{ versions: string[] }>(conn, '/api', signal);
  for (const v of Array.isArray(core.versions) ? core.versions : []) {
    if (typeof v === 'string') groupVersions.push({ group: '', version: v, path: `/api/${v}` });
  }
  const groups = await getJson<APIGroupList>(conn, '/apis', signal);
  for (const g of entries(groups.groups)) {
    if (typeof g.name !== 'string') continue;
    const all = entries(g.versions).filter((v) => typeof v.version === 'string' && typeof v.groupVersion === 'string');
    const versions = opts.allVersions ? all : [g.preferredVersion ?? all[0]].filter((v) => v !== null && typeof v === 'object');
    for (const v of versions) groupVersions.push({ group: g.name, version: v.version, path: `/apis/${v.groupVersion}` });
  }

  const resources: ApiResource[] = [];
  const failures: DiscoveryResult['failures'] = [];
  const queue = [...groupVersions];
  const worker = async () => {
    for (let gv = queue.shift(); gv; gv = queue.shift()) {
      try {
        const list = await getJson<APIResourceList>(conn, gv.path, signal);
        for (const r of entries(list.resources)) {
          // An entry without a usable name or kind cannot be watched; a name with "/" is a subresource.
          if (typeof r.name !== 'string' || typeof r.kind !== 'string' || r.name.includes('/')) continue;
          const verbs = Array.isArray(r.verbs) ? r.verbs : [];
          if (!verbs.includes('list') || !verbs.includes('watch')) continue;
          resources.push({
            group: typeof r.group === 'string' ? r.group : gv.group,
            version: typeof r.version === 'string' ? r.version : gv.version,
            resource: r.name,
            kind: r.kind,
            namespaced: r.namespaced === true,
            shortNames: Array.isArray(r.shortNames) ? r.shortNames : [],
            categories: Array.isArray(r.categories) ? r.categories : [],
            verbs,
          });
        }
      } catch (e) {
        if (signal.aborted) throw e;
        const groupVersion = gv.group ? `${gv.group}/${gv.version}` : gv.version;
        failures.push({ groupVersion, message: e instanceof StatusError || e instanceof Error ? e.message : String(e) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 6) }, worker));
  resources.sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource) || a.version.localeCompare(b.version));
  return { resources, failures };
}

/**
 * Finds a resource by "plural", "plural.group", "kind", a short name, or "plural.version.group"
 * (like kubectl). Returns undefined when nothing matches; throws when the name is ambiguous.
 */
export function resolveResource(resources: ApiResource[], name: string): ApiResource | undefined {
  const n = name.toLowerCase();
  const matches = resources.filter((r) => {
    if (`${r.resource}.${r.group}` === n || (r.group && `${r.resource}.${r.version}.${r.group}` === n)) return true;
    if (!r.group && (r.resource === n || `${r.resource}.` === n)) return true;
    return false;
  });
  if (matches.length === 1) return matches[0];
  const loose = matches.length
    ? matches
    : resources.filter((r) => r.resource === n || r.kind.toLowerCase() === n || r.shortNames.includes(n));
  if (loose.length === 0) return undefined;
  // Prefer the core group, as kubectl does for names that exist in several groups.
  const core = loose.filter((r) => r.group === '');
  if (core.length === 1) return core[0];
  if (loose.length === 1) return loose[0];
  throw new Error(`resource "${name}" is ambiguous: ${loose.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(', ')}`);
}
