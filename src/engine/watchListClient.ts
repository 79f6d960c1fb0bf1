/**
 * client-go v0.32's client-side watch-list (Profile.listUsesWatchList): with WatchListClient on, the
 * dynamic and typed clients' List sends an eligible LIST as a watch-list WATCH and collects the
 * initial events into the list it returns; on any error it sends the LIST as asked. The reflector
 * above sees one list() call either way. Removed from the clients in v0.34.
 *
 * client-go v0.32.13 (docs/profiles.md cites each line):
 * - dynamic/simple.go List (gentype/type.go List alike): PrepareWatchListOptionsFromListOptions,
 *   then watchList(); any error from it → klog warning, then the plain LIST with the same options;
 * - util/watchlist/watch_list.go PrepareWatchListOptionsFromListOptions: which options qualify and
 *   the WATCH options made of them (limit dropped, resourceVersionMatch=NotOlderThan,
 *   allowWatchBookmarks, sendInitialEvents; no timeoutSeconds: the reflector's list sets none);
 * - rest/request.go handleWatchList: ADDED objects in key order, ERROR → the error, a close before
 *   the initial-events-end bookmark → "unexpected watch close", any other event type → an error;
 *   the bookmark must carry the list blueprint annotation;
 * - rest/request.go WatchListResult.Into: the list is the decoded blueprint with the collected
 *   items and the bookmark's resourceVersion.
 */
import { abortError } from './clock';
import { errorFromWatchObject } from './errors';
import type { KubeObject } from './objects';
import type { ListerWatcher, ListOptions, ObjectList, WatchEvent, Watcher, WatchOptions } from './listWatch';

/** metav1.InitialEventsAnnotationKey. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
/** metav1.InitialEventsListBlueprintAnnotationKey. */
export const LIST_BLUEPRINT_ANNOTATION = 'kubernetes.io/initial-events-list-blueprint';

/**
 * The WATCH options a LIST becomes, or undefined when the LIST is sent as is: a limit with an RV
 * other than "0" (the watch cache ignores the limit only at "0"), resourceVersionMatch Exact, a
 * continue token, or options ValidateListOptions refuses.
 */
export function watchListOptionsFor(o: ListOptions): WatchOptions | undefined {
  const rv = o.resourceVersion ?? '';
  const match = o.resourceVersionMatch ?? '';
  // ValidateListOptions of the LIST itself.
  if (match !== '' && (rv === '' || o.continue || (match !== 'Exact' && match !== 'NotOlderThan') || (match === 'Exact' && rv === '0'))) return undefined;
  if (o.limit && o.limit > 0 && rv !== '0') return undefined;
  if (match === 'Exact') return undefined;
  // ValidateListOptions of the WATCH: resourceVersionMatch is forbidden with continue.
  if (o.continue) return undefined;
  return {
    resourceVersion: rv,
    resourceVersionMatch: 'NotOlderThan',
    allowWatchBookmarks: true,
    sendInitialEvents: true,
    ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
    ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
  };
}

export interface WatchListClientHooks {
  /** Every request the client sends for a list() call, in order: the WATCH, then maybe the LIST. */
  onRequest?(verb: 'list' | 'watch', options: ListOptions | WatchOptions): void;
  /** The watch-list failed; the plain LIST follows. */
  onFallback?(err: unknown): void;
}

/** Any ListerWatcher with v0.32's client-side watch-list on its list(). */
export class WatchListClient implements ListerWatcher {
  constructor(
    private readonly inner: ListerWatcher,
    private readonly hooks: WatchListClientHooks = {},
  ) {}

  get url(): string {
    return this.inner.url;
  }

  get watchListSupported(): boolean | undefined {
    return this.inner.watchListSupported;
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList> {
    const wl = watchListOptionsFor(options);
    if (wl) {
      try {
        return await this.watchList(wl, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        this.hooks.onFallback?.(err);
      }
    }
    this.hooks.onRequest?.('list', options);
    return this.inner.list(options, signal);
  }

  watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    return this.inner.watch(options, signal);
  }

  private async watchList(options: WatchOptions, signal: AbortSignal): Promise<ObjectList> {
    this.hooks.onRequest?.('watch', options);
    const w = await this.inner.watch(options, signal);
    try {
      return await collectInitialEvents(w, signal);
    } finally {
      w.stop();
    }
  }
}

/** handleWatchList + WatchListResult.Into over one stream. */
async function collectInitialEvents(w: Watcher, signal: AbortSignal): Promise<ObjectList> {
  const items: KubeObject[] = [];
  let lastKey = '';
  for (;;) {
    const ev = await w.next();
    if (signal.aborted) throw abortError();
    if (ev === null) throw new Error('unexpected watch close');
    if (ev.type === 'ERROR') throw errorFromWatchObject(ev.object);
    if (ev.type === 'ADDED') {
      const key = keyOf(ev.object);
      // Earlier servers did not sort the initial events; the client refuses them so the LIST runs.
      if (lastKey !== '' && lastKey > key) {
        throw new Error(`cannot add the obj with the key = ${key}, as it violates the ordering guarantees provided by the watchlist feature in beta phase, lastInsertedKey was = ${lastKey}`);
      }
      items.push(ev.object);
      lastKey = key;
    } else if (ev.type === 'BOOKMARK') {
      const annotations = ev.object?.metadata?.annotations ?? {};
      if (annotations[INITIAL_EVENTS_END_ANNOTATION] === 'true') return listFromBlueprint(annotations[LIST_BLUEPRINT_ANNOTATION] ?? '', items, ev.object.metadata?.resourceVersion ?? '');
    } else {
      throw new Error(`unexpected watch event ${describeEvent(ev)}, expected to only receive watch.Added and watch.Bookmark events`);
    }
  }
}

function keyOf(o: KubeObject): string {
  const ns = o?.metadata?.namespace ?? '';
  const name = o?.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

function describeEvent(ev: WatchEvent): string {
  return `{Type:${ev.type}}`;
}

/** Go's base64.StdEncoding alphabet with padding. */
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The list Into builds: the blueprint (a base64 JSON list without items) decoded, the items set,
 * the resourceVersion the bookmark's. A missing or undecodable blueprint, or one without a kind
 * (the unstructured decoder's "Object 'Kind' is missing"), is an error.
 */
function listFromBlueprint(encoded: string, items: KubeObject[], rv: string): ObjectList {
  if (encoded.length === 0) throw new Error(`"${LIST_BLUEPRINT_ANNOTATION}" annotation is missing content`);
  if (!STD_BASE64.test(encoded)) throw new Error('failed to decode the received blueprint list, err illegal base64 data');
  let blueprint: unknown;
  try {
    blueprint = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))));
  } catch (e) {
    throw new Error(`couldn't decode the list blueprint: ${(e as Error).message}`);
  }
  if (!blueprint || typeof blueprint !== 'object' || Array.isArray(blueprint)) throw new Error("couldn't decode the list blueprint: not an object");
  const b = blueprint as Partial<ObjectList>;
  if (typeof b.kind !== 'string' || b.kind === '') throw new Error("Object 'Kind' is missing in the list blueprint");
  const metadata = b.metadata && typeof b.metadata === 'object' ? { ...b.metadata } : {};
  return { apiVersion: b.apiVersion, kind: b.kind, metadata: { ...metadata, resourceVersion: rv }, items };
}
