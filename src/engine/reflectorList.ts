/**
 * The reflector's list() (spec §1.5): choose the RV and page size, list through the pager, retry
 * at once with a consistent read (RV "") when the RV is expired or too large, then replace the
 * store. Returns the error ListAndWatch returns; cancellation returns undefined, as upstream
 * returns nil (so "Caches populated" is still logged).
 */
import { classifyListFailure, isExpiredOrGone, isTooLargeResourceVersion, statusOf, wrapError } from './errors';
import { DEFAULT_PAGE_SIZE, listPaged, type PagedResult } from './pager';
import type { ReflectorPhaseContext } from './reflectorContext';
import { untilAborted } from './watchHandling';
import type { ListOptions } from './listWatch';

/** The list phase of one reflector; it alone remembers whether lists at RV "0" came back paginated. */
export class ReflectorLister {
  /**
   * paginatedResult (sticky): a list at RV "0" came back paginated, so the watch cache is assumed
   * off and every later list pages too.
   */
  private paginatedResult = false;

  constructor(private readonly ctx: ReflectorPhaseContext) {}

  async list(signal: AbortSignal): Promise<Error | undefined> {
    const ctx = this.ctx;
    const rv = ctx.relistResourceVersion();
    const pageSize = this.pageSizeFor(rv);
    const started = ctx.now();
    ctx.enter('listing');
    ctx.emit({ t: started, type: 'list.start', rv, limit: pageSize, initial: !ctx.hasSynced() });
    let result;
    try {
      try {
        result = await untilAborted(this.pagedList(rv, pageSize, signal), signal);
      } catch (err) {
        if (signal.aborted) throw err;
        const tooLarge = ctx.profile.detectsTooLarge && isTooLargeResourceVersion(err);
        // ≤1.16 listed at "0" every time and had no consistent retry.
        if (ctx.profile.relistAtZero || !(isExpiredOrGone(err) || tooLarge)) throw err;
        // The RV is gone or not yet known here: retry at once as a consistent read, same page size.
        ctx.markResourceVersionUnavailable();
        ctx.emit({ t: ctx.now(), type: 'list.retryConsistent', reason: tooLarge ? 'TooLargeResourceVersion' : statusOf(err)?.reason === 'Expired' ? 'Expired' : 'Gone' });
        result = await untilAborted(this.pagedList(ctx.relistResourceVersion(), pageSize, signal), signal);
      }
    } catch (err) {
      if (signal.aborted) return undefined;
      return this.failed(err, 'request', wrapError(`failed to list ${ctx.typeDescription}`, err));
    }
    if (rv === '0' && result.paginated) this.paginatedResult = true;
    ctx.markResourceVersionAvailable();
    const list = result.list;
    if (ctx.profile.rejectsTableLists && list.kind === 'Table' && (list.apiVersion === 'meta.k8s.io/v1' || list.apiVersion === 'meta.k8s.io/v1beta1')) {
      const e = new Error(`unsupported list gvk: ${list.apiVersion}, Kind=${list.kind}, type: ${ctx.typeDescription}`);
      return this.failed(e, 'sync', e);
    }
    const listRV = list.metadata?.resourceVersion ?? '';
    try {
      ctx.store.replace(list.items ?? [], listRV);
    } catch (err) {
      return this.failed(err, 'sync', wrapError('unable to sync list result', err));
    }
    ctx.synced(listRV, 'list');
    ctx.emit({ t: ctx.now(), type: 'list.done', rv: listRV, items: list.items?.length ?? 0, pages: result.pages, paginated: result.paginated, durationMs: ctx.now() - started });
    return undefined;
  }

  /**
   * The pagination decision table: sticky paginatedResult → 500; a specific RV → unpaginated, to
   * stay in the watch cache; "0" or "" → 500.
   */
  private pageSizeFor(rv: string): number {
    if (this.paginatedResult) return DEFAULT_PAGE_SIZE;
    if (rv !== '' && rv !== '0') return 0;
    return DEFAULT_PAGE_SIZE;
  }

  private async pagedList(rv: string, pageSize: number, signal: AbortSignal): Promise<PagedResult & { pages: number }> {
    const ctx = this.ctx;
    let pages = 0;
    const legacy = ctx.profile.legacyPager;
    const page = (opts: ListOptions) => ctx.listPage(opts, signal);
    // client-go ≤ v12: cache.ListWatch.List pages too (its own pager.New unless DisableChunking), so
    // each page the reflector's pager asks for is itself a paged list (tools/cache/listwatch.go).
    const fetch = legacy ? async (opts: ListOptions) => (await listPaged(page, opts, DEFAULT_PAGE_SIZE, signal, { legacy })).list : page;
    const result = await listPaged(fetch, { resourceVersion: rv }, pageSize, signal, {
      hooks: {
        onPage: (page, l) => {
          pages++;
          const token = l.metadata?.continue;
          ctx.emit({ t: ctx.now(), type: 'list.page', page, items: l.items?.length ?? 0, rv: l.metadata?.resourceVersion ?? '', ...(token ? { continue: token } : {}) });
        },
        onExpiredContinue: () => ctx.emit({ t: ctx.now(), type: 'list.expiredContinue' }),
      },
      legacy,
    });
    return { ...result, pages: Math.max(pages, 1) };
  }

  private failed(cause: unknown, phase: 'request' | 'sync', returned: Error): Error {
    const ctx = this.ctx;
    const s = statusOf(cause);
    ctx.emit({ t: ctx.now(), type: 'list.error', text: returned.message, ...(s?.code ? { code: s.code } : {}), ...(s?.reason ? { reason: s.reason } : {}) });
    if (phase === 'request') ctx.log.listFailed(cause);
    ctx.endsInRelist(classifyListFailure(cause, phase), returned);
    return returned;
  }
}
