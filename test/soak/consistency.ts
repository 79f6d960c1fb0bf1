/** Whether an informer's store equals a fresh consistent LIST: keys, resourceVersions and content. */
import { isDeepStrictEqual } from 'node:util';

export type Obj = { apiVersion?: string; kind?: string; metadata?: { namespace?: string; name?: string; resourceVersion?: string } };
export const keyOf = (o: Obj) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** How a store differs from a fresh LIST in keys, resourceVersions and content; "" when equal. */
export function difference(store: Obj[], fresh: Obj[]): string {
  const want = new Map(fresh.map((o) => [keyOf(o), { apiVersion: 'v1', kind: 'ConfigMap', ...o }]));
  const have = new Map(store.map((o) => [keyOf(o), o]));
  const missing = [...want.keys()].filter((k) => !have.has(k));
  const extra = [...have.keys()].filter((k) => !want.has(k));
  const stale = [...want.keys()].filter((k) => have.has(k) && have.get(k)!.metadata?.resourceVersion !== want.get(k)!.metadata?.resourceVersion);
  const differs = [...want.keys()].filter((k) => have.has(k) && !stale.includes(k) && !isDeepStrictEqual(have.get(k), want.get(k)));
  if (!missing.length && !extra.length && !stale.length && !differs.length) return '';
  const some = (xs: string[]) => xs.slice(0, 3).join(', ');
  return `missing ${missing.length} (${some(missing)}), extra ${extra.length} (${some(extra)}), stale ${stale.length} (${some(stale)}), content differs ${differs.length} (${some(differs)})`;
}
