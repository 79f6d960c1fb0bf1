/**
 * The reflector's list() (spec §1.5): choose the RV and page size, list through the pager, retry
 * at once with a consistent read (RV "") when the RV is expired or too large, then replace the
 * store. Returns the error ListAndWatch returns; cancellation returns undefined, as upstream
 * returns nil (so "Caches populated" is still logged).
 */
import { classifyListFailure, isExpiredOrGone, isTooLargeResourceVersion, statusOf, wrapError } from './errors';
import { DEFAULT_PAGE_SIZE, listPaged, type PagedResult } from './pager';
import type { Reflector } from './reflector';
import { untilAborted } from './watchHandling';

/**
 * The pagination decision table: sticky paginatedResult → 500; a specific RV → unpaginated, to
 * stay in the watch cache; "0" or "" → 500.
 */
function pageSizeFor(r: Reflector, rv: string): number {
  if (r.listState.paginatedResult) return DEFAULT_PAGE_SIZE;
  if (rv !== '' && rv !== '0') return 0;
  return DEFAULT_PAGE_SIZE;
}

async function pagedList(r: Reflector, rv: string, pageSize: number, signal: AbortSignal): Promise<PagedResult & { pages: number }> {
  let pages = 0;
  const result = await listPaged(
    (opts) => {
      r.emitRequest('list', opts);
      return r.listerWatcher.list(opts, signal);
    },
    { resourceVersion: rv },
    pageSize,
    signal,
    {
      onPage: (page, l) => {
        pages++;
        const token = l.metadata?.continue;
        r.emit({ t: r.now(), type: 'list.page', page, items: l.items?.length ?? 0, rv: l.metadata?.resourceVersion ?? '', ...(token ? { continue: token } : {}) });
      },
      onExpiredContinue: () => r.emit({ t: r.now(), type: 'list.expiredContinue' }),
    },
    true,
    r.profile.legacyPager,
  );
  return { ...result, pages: Math.max(pages, 1) };
}

export async function listIntoStore(r: Reflector, signal: AbortSignal): Promise<Error | undefined> {
  const rv = r.relistResourceVersion();
  const pageSize = pageSizeFor(r, rv);
  const started = r.now();
  r.setState('listing');
  r.emit({ t: started, type: 'list.start', rv, limit: pageSize, initial: !r.listState.synced });
  let result;
  try {
    try {
      result = await untilAborted(pagedList(r, rv, pageSize, signal), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const tooLarge = r.profile.detectsTooLarge && isTooLargeResourceVersion(err);
      // ≤1.16 listed at "0" every time and had no consistent retry.
      if (r.profile.relistAtZero || !(isExpiredOrGone(err) || tooLarge)) throw err;
      // The RV is gone or not yet known here: retry at once as a consistent read, same page size.
      r.setUnavailable(true);
      r.emit({ t: r.now(), type: 'list.retryConsistent', reason: tooLarge ? 'TooLargeResourceVersion' : statusOf(err)?.reason === 'Expired' ? 'Expired' : 'Gone' });
      result = await untilAborted(pagedList(r, r.relistResourceVersion(), pageSize, signal), signal);
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    return listFailed(r, err, 'request', wrapError(`failed to list ${r.typeDescription}`, err));
  }
  if (rv === '0' && result.paginated) r.listState.paginatedResult = true;
  r.setUnavailable(false);
  const list = result.list;
  if (list.kind === 'Table' && (list.apiVersion === 'meta.k8s.io/v1' || list.apiVersion === 'meta.k8s.io/v1beta1')) {
    const e = new Error(`unsupported list gvk: ${list.apiVersion}, Kind=${list.kind}, type: ${r.typeDescription}`);
    return listFailed(r, e, 'sync', e);
  }
  const listRV = list.metadata?.resourceVersion ?? '';
  try {
    r.store.replace(list.items ?? [], listRV);
  } catch (err) {
    return listFailed(r, err, 'sync', wrapError('unable to sync list result', err));
  }
  r.setLastSyncRV(listRV, 'list');
  r.listState.synced = true;
  r.emit({ t: r.now(), type: 'list.done', rv: listRV, items: list.items?.length ?? 0, pages: result.pages, paginated: result.paginated, durationMs: r.now() - started });
  return undefined;
}

function listFailed(r: Reflector, cause: unknown, phase: 'request' | 'sync', returned: Error): Error {
  const s = statusOf(cause);
  r.emit({ t: r.now(), type: 'list.error', text: returned.message, ...(s?.code ? { code: s.code } : {}), ...(s?.reason ? { reason: s.reason } : {}) });
  if (phase === 'request') r.log.listFailed(cause);
  r.recordEnding(classifyListFailure(cause, phase), returned);
  return returned;
}
