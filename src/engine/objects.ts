import { lazyStateOf, type LazyState } from './lazyObject';

/**
 * The objects the engine handles. Cluster data is untyped JSON; the engine only ever reads
 * metadata (namespace, name, resourceVersion, annotations), like client-go's meta accessor.
 */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/**
 * The tombstone client-go hands to delete handlers when the final state of a deleted object is
 * unknown (it disappeared during a relist). `obj` is the last state the cache knew, if any.
 */
export class DeletedFinalStateUnknown {
  /** The brand isTombstone checks: unlike instanceof, reading it asks nothing of a lazy object's proxy. */
  readonly #tombstone = true;

  constructor(
    readonly key: string,
    readonly obj: KubeObject | undefined,
  ) {}

  static is(o: unknown): o is DeletedFinalStateUnknown {
    return typeof o === 'object' && o !== null && #tombstone in o;
  }
}

/** What the store and FIFOs hold: an object, or a tombstone standing for one. */
export type StoreObject = KubeObject | DeletedFinalStateUnknown;

/**
 * Whether o is a tombstone. A brand check, not instanceof: instanceof on a lazy object (a Proxy)
 * calls its getPrototypeOf trap, and this runs several times per event.
 */
export function isTombstone(o: unknown): o is DeletedFinalStateUnknown {
  return DeletedFinalStateUnknown.is(o);
}

/** The resourceVersion of an object, of the object inside a tombstone, or "" when none. */
export function resourceVersionOf(o: StoreObject | undefined): string {
  if (o === undefined) return '';
  if (isTombstone(o)) return o.obj ? (metaField(o.obj, 'resourceVersion') ?? '') : '';
  return metaField(o, 'resourceVersion') ?? '';
}

/**
 * resourceVersionOf(o) with o's lazy state already at hand (lazyStateOf(o)): the same answer
 * without asking the proxy for its state again. Without a state it is resourceVersionOf(o).
 */
export function resourceVersionOfLazy(o: StoreObject, s: LazyState | undefined): string {
  if (s !== undefined && s.parsed === undefined) return s.resourceVersion ?? '';
  return resourceVersionOf(o);
}

/**
 * `o.metadata?.[field]`, read without parsing a lazy object (lazyObject.ts). The engine reads an
 * object's name, namespace and resourceVersion only through this.
 */
export function metaField(o: KubeObject, field: 'name' | 'namespace' | 'resourceVersion'): string | undefined {
  const s = lazyStateOf(o);
  if (s !== undefined && s.parsed === undefined) return s[field];
  return o.metadata?.[field];
}

/** `o.kind` and `o.apiVersion`, read without parsing a lazy object. */
export function typeField(o: KubeObject, field: 'kind' | 'apiVersion'): string | undefined {
  const s = lazyStateOf(o);
  if (s !== undefined && s.parsed === undefined) return s[field];
  return o[field];
}

/** Whether the object has a metadata member (a lazy object's is always an object). */
export function hasMetadata(o: KubeObject): boolean {
  const s = lazyStateOf(o);
  if (s !== undefined && s.parsed === undefined) return s.hasMetadata;
  return !!o.metadata;
}
