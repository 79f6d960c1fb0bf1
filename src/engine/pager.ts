/**
 * client-go tools/pager ListPager as the reflector uses it (spec §1.5 "Pager rules"): follow
 * continue tokens, and when a continue token expires on page 2 or later, make one unpaginated
 * list at the originally requested resourceVersion.
 */
import { isExpired } from './errors';
import type { ListOptions, ObjectList } from './listWatch';
import type { KubeObject } from './objects';

export const DEFAULT_PAGE_SIZE = 500;

export interface PagerHooks {
  /** A page arrived (1-based). */
  onPage?(page: number, list: ObjectList): void;
  /** A continue token expired; the pager now makes one full list at the original RV. */
  onExpiredContinue?(): void;
}

export interface PagedResult {
  list: ObjectList;
  /** A continue token was seen on the first page (sticky for the reflector when RV was "0"). */
  paginated: boolean;
}

/** How listPaged reports progress and which pager generation it follows. */
export interface PagerOptions {
  hooks?: PagerHooks;
  /**
   * The client-go ≤ v12 pager: continue pages keep the requested RV, and an Expired first page
   * also falls back to one full list.
   */
  legacy?: boolean;
}

/**
 * Lists through `fetch`, page by page. `pageSize` 0 means no limit; the limit only applies when
 * the options carry none. Pages after the first clear resourceVersion(Match), which the server
 * refuses together with a continue token. The merged list keeps the first page's RV. An expired
 * continue token (and, for the legacy pager, an Expired first page) makes one full list at the
 * requested RV. Stops (rejecting with the signal's reason) between pages once `signal` aborts.
 */
export async function listPaged(
  fetch: (options: ListOptions) => Promise<ObjectList>,
  requested: ListOptions,
  pageSize: number,
  signal: AbortSignal,
  { hooks = {}, legacy = false }: PagerOptions = {},
): Promise<PagedResult> {
  const options: ListOptions = { ...requested };
  if (!options.limit && pageSize > 0) options.limit = pageSize;
  let paginated = false;
  let merged: ObjectList | undefined;
  let items: KubeObject[] = [];
  for (let page = 1; ; page++) {
    signal.throwIfAborted();
    let result: ObjectList;
    try {
      result = await fetch({ ...options });
    } catch (err) {
      // The legacy pager (client-go ≤ v12) fell back to a full list on an Expired first page too.
      if (!isExpired(err) || (!options.continue && !legacy)) throw err;
      hooks.onExpiredContinue?.();
      const full: ListOptions = { ...options, limit: undefined, continue: undefined };
      full.resourceVersion = requested.resourceVersion;
      full.resourceVersionMatch = requested.resourceVersionMatch;
      return { list: await fetch(dropUndefined(full)), paginated };
    }
    hooks.onPage?.(page, result);
    const token = result.metadata?.continue ?? '';
    if (!token && !merged) return { list: result, paginated };
    if (!merged) {
      merged = { apiVersion: result.apiVersion, kind: result.kind, metadata: { resourceVersion: result.metadata?.resourceVersion }, items: [] };
    }
    items = items.concat(result.items ?? []);
    if (!token) {
      merged.items = items;
      return { list: merged, paginated };
    }
    options.continue = token;
    if (!legacy) {
      options.resourceVersion = '';
      delete options.resourceVersionMatch;
    }
    paginated = true;
  }
}

function dropUndefined(o: ListOptions): ListOptions {
  const out: ListOptions = { resourceVersion: o.resourceVersion };
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}
