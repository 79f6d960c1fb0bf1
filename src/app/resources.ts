/**
 * Which cluster and which resource: loading the kubeconfig, and finding a resource by any name
 * kubectl takes (plural, plural.group, kind, short name) through discovery. Every problem is one
 * line: BadInputError for what the user typed, RunError for a cluster that cannot be reached.
 */
import { StatusError, TransportError } from '../engine/listWatch';
import { discoverResources, KubeConfigError, KubeconfigSet, KubeConnection, redactedUrl, resolveResource, type ApiResource, type LoadOptions } from '../kube';
import { BadInputError, RunError } from './errors';

/** Loads the kubeconfig; every problem with it is bad input, reported on one line. */
export function connect(opts: LoadOptions = {}): KubeConnection {
  try {
    return KubeConnection.load(opts);
  } catch (e) {
    if (!(e instanceof KubeConfigError)) throw e;
    // KubeConfigError messages are one line and name the file when a file is the problem.
    throw new BadInputError(e.message.split('\n')[0]);
  }
}

/** Every kubeconfig file by client-go's loading rules, merged; nothing validated yet (KubeconfigSet.connect does that per context). */
export function loadKubeconfigs(opts: LoadOptions = {}): KubeconfigSet {
  return KubeconfigSet.load(opts);
}

export { NoKubeconfigError } from '../kube';

/** The resources of the cluster that support list and watch; an unreachable cluster is a RunError. */
export async function listableResources(conn: KubeConnection, signal?: AbortSignal): Promise<{ resources: ApiResource[]; failures: string[] }> {
  try {
    const d = await discoverResources(conn, signal);
    return { resources: d.resources, failures: d.failures.map((f) => f.groupVersion) };
  } catch (e) {
    throw unreachable(conn, e);
  }
}

/** The resource by any name kubectl takes; an unknown name lists the close ones. */
export async function findResource(conn: KubeConnection, name: string): Promise<ApiResource> {
  const discovery = await listableResources(conn);
  return resourceNamed(conn, discovery.resources, name, discovery.failures);
}

/** resolveResource over discovered resources, with a BadInputError naming close ones when nothing matches. */
export function resourceNamed(conn: KubeConnection, resources: readonly ApiResource[], name: string, failures: readonly string[] = []): ApiResource {
  let resource: ApiResource | undefined;
  try {
    resource = resolveResource([...resources], name);
  } catch (e) {
    throw new BadInputError((e as Error).message);
  }
  if (resource) return resource;
  const close = closeResourceNames(resources, name);
  const hint = close.length ? `; close names: ${close.join(', ')}` : '; `kubectl api-resources --verbs=list,watch` lists the names';
  const down = failures.length ? ` (discovery failed for ${failures.join(', ')})` : '';
  throw new BadInputError(`unknown resource "${name}" in context ${conn.context.name}: no resource by that name supports list and watch${down}${hint}`);
}

function unreachable(conn: KubeConnection, e: unknown): Error {
  const where = `the API server ${redactedUrl(conn.server)} (context ${conn.context.name})`;
  if (e instanceof TransportError) return new RunError(`cannot reach ${where}: ${e.message}`);
  if (e instanceof StatusError) return new RunError(`discovery at ${where} failed: ${e.status.code ? `${e.status.code} ` : ''}${e.message}`);
  return e instanceof Error ? e : new Error(String(e));
}

/** client-go's GroupVersionKind.String(): "/v1, Kind=ConfigMap" for the core group. */
export function typeDescription(r: Pick<ApiResource, 'group' | 'version' | 'kind'>): string {
  return `${r.group}/${r.version}, Kind=${r.kind}`;
}

/** "configmaps", or "widgets.demo.example.com" for a named group. */
export function resourceLabel(r: Pick<ApiResource, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

// ---- "did you mean" for an unknown name: the discovered resources whose plural, kind, singular
// form or short name is within a small edit distance of what was typed, or that contain it.

const MAX_SUGGESTIONS = 6;

/** Levenshtein distance; names are short, so the plain O(n·m) table is fine. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/** The closest resource names (plural[.group]), best first; empty when nothing is close. */
export function closeResourceNames(resources: readonly ApiResource[], typed: string): string[] {
  // "deploymens.apps" is compared as "deploymens": the group part rarely carries the typo.
  const name = typed.toLowerCase().split('.')[0];
  const allowed = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  const scored: Array<{ name: string; score: number }> = [];
  for (const r of resources) {
    const forms = [r.resource, r.kind.toLowerCase(), r.resource.replace(/e?s$/, ''), ...r.shortNames];
    let best = Math.min(...forms.map((f) => editDistance(name, f)));
    if (best > allowed && name.length >= 3 && forms.some((f) => f.includes(name))) best = allowed;
    if (best <= allowed) scored.push({ name: resourceLabel(r), score: best });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return [...new Set(scored.map((s) => s.name))].slice(0, MAX_SUGGESTIONS);
}
