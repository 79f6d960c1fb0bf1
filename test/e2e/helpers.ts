/** Shared helpers of the cluster e2e tests: writing objects as the admin, waiting, audit checks. */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { E2ECluster, GET_AUDIT_VERBS } from './cluster';

export const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

export function cmBody(ns: string, name: string, data: Record<string, string> = { v: '0' }) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name }, data };
}

export async function createNamespace(c: E2ECluster, ns: string): Promise<void> {
  await c.adminOk('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
}

/** Creates n ConfigMaps named `${prefix}-${i}` with `concurrency` requests in flight. */
export async function createConfigMaps(c: E2ECluster, ns: string, prefix: string, n: number, concurrency = 16): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, `${prefix}-${i}`));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, stepMs = 50): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Asserts from kube-apiserver's audit log that every request made with the engine's credentials
 * (user e2e-inspector) since `fromIndex` was a GET (audit verbs get/list/watch), and that there
 * were some. Returns the number of such requests.
 */
export function assertEngineOnlyGot(c: E2ECluster, fromIndex = 0): number {
  const evs = c.auditEvents().slice(fromIndex).filter((e) => e.user?.username === 'e2e-inspector');
  const bad = evs.filter((e) => !GET_AUDIT_VERBS.has(e.verb));
  assert.deepEqual(bad.map((e) => `${e.verb} ${e.requestURI}`), [], 'the engine sent a non-GET request');
  assert.ok(evs.length > 0, 'no requests of the engine reached the apiserver');
  return evs.length;
}

/** Keys namespace/name → resourceVersion of a list of objects. */
export function rvMap(items: Array<{ metadata?: { namespace?: string; name?: string; resourceVersion?: string } }>): Map<string, string> {
  const m = new Map<string, string>();
  for (const o of items) m.set(`${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`, o.metadata?.resourceVersion ?? '');
  return m;
}

/** How a store's key→RV map differs from a fresh LIST's: "" when equal. */
export function diffMaps(store: Map<string, string>, fresh: Map<string, string>): string {
  const missing = [...fresh.keys()].filter((k) => !store.has(k));
  const extra = [...store.keys()].filter((k) => !fresh.has(k));
  const stale = [...fresh.keys()].filter((k) => store.has(k) && store.get(k) !== fresh.get(k));
  if (!missing.length && !extra.length && !stale.length) return '';
  return `missing ${missing.length} (${missing.slice(0, 3)}), extra ${extra.length} (${extra.slice(0, 3)}), stale ${stale.length} (${stale.slice(0, 3)})`;
}

/** The complete NDJSON lines of a file another process is still writing (a partial last line is skipped). */
export function readNdjsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return []; // a line being written
      }
    });
}
