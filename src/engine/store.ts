/**
 * The informer's cache (client-go store.go, thread_safe_store.go, index.go, object-names.go):
 * a key → object map plus secondary indexes. JavaScript is single-threaded, so "thread-safe"
 * here only means every method leaves items and indexes consistent before it returns.
 */
import { GoMap } from './goMap';
import { isTombstone, metaField, type KubeObject, type StoreObject } from './objects';
import { lazyStateOf, storeKey, type LazyState } from './lazyObject';

/** Computes an object's key; throws (client-go returns an error) when it cannot. */
export type KeyFunc = (obj: StoreObject | ExplicitKey) => string;
/** The values an object is indexed under. May throw: the store then panics (see IndexPanic). */
export type IndexFunc = (obj: StoreObject) => string[];
export type Indexers = Record<string, IndexFunc>;

/** client-go's ExplicitKey: a string that is its own key. */
export class ExplicitKey {
  constructor(readonly key: string) {}
}

/**
 * A key could not be computed for an object handed to a store or FIFO. The text never includes
 * the object itself (unlike client-go's `%+v`), because it may be a Secret.
 */
export class KeyError extends Error {
  constructor(readonly reason: string) {
    super(`couldn't create key for object: ${reason}`);
    this.name = 'KeyError';
  }
}

/**
 * What client-go does with a panic in an index function. The informer treats it as fatal for the
 * delta being processed; the store is left unchanged because indexes are computed before writing.
 */
export class IndexPanic extends Error {
  constructor(key: string, index: string, cause: string) {
    super(`unable to calculate an index entry for key "${key}" on index "${index}": ${cause}`);
    this.name = 'IndexPanic';
  }
}

export const NamespaceIndex = 'namespace';

function metaOf(obj: StoreObject | ExplicitKey): KubeObject {
  if (obj instanceof ExplicitKey || isTombstone(obj) || obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new Error('object has no meta: object does not implement the Object interfaces');
  }
  return obj;
}

/**
 * The state (its fields) of an object still held as text (lazyObject.ts), else undefined. One read
 * of the proxy's state instead of the prototype checks (ExplicitKey, tombstone) each of which is a
 * call of the proxy's trap: an unparsed lazy object is an ordinary object with metadata fields.
 */
function unparsedFields(obj: unknown): LazyState | undefined {
  const s = lazyStateOf(obj);
  return s !== undefined && s.parsed === undefined ? s : undefined;
}

/** `<namespace>/<name>`, or `<name>` for cluster-scoped objects. An ExplicitKey is returned as is. */
export const metaNamespaceKeyFunc: KeyFunc = (obj) => {
  const f = unparsedFields(obj);
  if (f !== undefined) return storeKey(f);
  if (obj instanceof ExplicitKey) return obj.key;
  const o = metaOf(obj);
  const name = metaField(o, 'name') ?? '';
  const namespace = metaField(o, 'namespace');
  return namespace ? `${namespace}/${name}` : name;
};

/** Like metaNamespaceKeyFunc, but a DeletedFinalStateUnknown yields the key it carries. */
export const deletionHandlingMetaNamespaceKeyFunc: KeyFunc = (obj) => {
  const f = unparsedFields(obj);
  if (f !== undefined) return storeKey(f);
  return isTombstone(obj) ? obj.key : metaNamespaceKeyFunc(obj);
};

export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] };
  if (parts.length === 2) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected key format: "${key}"`);
}

export const metaNamespaceIndexFunc: IndexFunc = (obj) => {
  const f = unparsedFields(obj);
  return [(f !== undefined ? f.namespace : metaField(metaOf(obj), 'namespace')) ?? ''];
};

/** What a FIFO needs from the informer's cache: its keys and a lookup. */
export interface KeyListerGetter {
  listKeys(): string[];
  getByKey(key: string): StoreObject | undefined;
}

export interface Store extends KeyListerGetter {
  add(obj: StoreObject): void;
  update(obj: StoreObject): void;
  /** Removes by key only; a missing key is a no-op. */
  delete(obj: StoreObject): void;
  /** Unordered in client-go (Go map order); here one of the orders Go can produce (goMap.ts). */
  list(): StoreObject[];
  get(obj: StoreObject): StoreObject | undefined;
  replace(list: StoreObject[], resourceVersion: string): void;
  /** A no-op for a plain store. */
  resync(): void;
}

export interface Indexer extends Store {
  /** Objects sharing any indexed value with obj under the named index. */
  index(indexName: string, obj: StoreObject): StoreObject[];
  indexKeys(indexName: string, indexedValue: string): string[];
  listIndexFuncValues(indexName: string): string[];
  byIndex(indexName: string, indexedValue: string): StoreObject[];
  getIndexers(): Indexers;
  /** Adds index functions and indexes existing items; throws `indexer conflict: …` on a name clash. */
  addIndexers(newIndexers: Indexers): void;
  /** v0.36: RV of the last write, Replace or Bookmark; "" unless resource versions are tracked (AtomicFIFO). */
  lastStoreSyncResourceVersion(): string;
  bookmark(resourceVersion: string): void;
}

export interface IndexerOptions {
  keyFunc?: KeyFunc;
  indexers?: Indexers;
  /** Track the store RV (client-go does this only with the AtomicFIFO gate). */
  tracksResourceVersion?: boolean;
  /** Keep an index value whose last key left (Profile.keepsEmptyIndexSets, client-go 1.15). */
  keepsEmptyIndexSets?: boolean;
}

/** Go's `%v` of a string set: `map[a:{} b:{}]`, keys sorted. */
function goSetText(names: string[]): string {
  return `map[${[...names].sort().map((n) => `${n}:{}`).join(' ')}]`;
}

function resourceVersionOfObject(obj: StoreObject): string {
  return isTombstone(obj) ? '' : (metaField(obj, 'resourceVersion') ?? '');
}

class CacheIndexer implements Indexer {
  private readonly keyFunc: KeyFunc;
  /** Go map order matters: client-go iterates its items map for tombstones, resyncs and late handlers. */
  private items = new GoMap<StoreObject>();
  private readonly indexers: Indexers = {};
  /** Object.entries(indexers), kept as they change: the order every index is computed and updated in. */
  private indexList: [string, IndexFunc][] = [];
  /** index name → indexed value → keys. Invariant: no empty key sets. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly tracksRv: boolean;
  private readonly keepsEmptySets: boolean;
  private rv = '';

  constructor(o: IndexerOptions) {
    this.keyFunc = o.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc;
    this.tracksRv = o.tracksResourceVersion ?? false;
    this.keepsEmptySets = o.keepsEmptyIndexSets ?? false;
    this.addIndexers(o.indexers ?? {});
  }

  private keyOf(obj: StoreObject): string {
    try {
      return this.keyFunc(obj);
    } catch (e) {
      throw new KeyError(e instanceof Error ? e.message : String(e));
    }
  }

  add(obj: StoreObject): void {
    this.put(this.keyOf(obj), obj);
  }

  update(obj: StoreObject): void {
    this.put(this.keyOf(obj), obj);
  }

  delete(obj: StoreObject): void {
    const key = this.keyOf(obj);
    const old = this.items.get(key);
    if (old === undefined) return;
    this.applyIndexChange(key, this.valuesOf(key, old), undefined);
    this.items.delete(key);
    this.noteRv(obj);
  }

  list(): StoreObject[] {
    return this.items.valuesInOrder();
  }

  listKeys(): string[] {
    return this.items.keys();
  }

  get(obj: StoreObject): StoreObject | undefined {
    return this.items.get(this.keyOf(obj));
  }

  getByKey(key: string): StoreObject | undefined {
    return this.items.get(key);
  }

  replace(list: StoreObject[], resourceVersion: string): void {
    // client-go builds a new map, make(map, len(list)), and swaps it in.
    const next = new GoMap<StoreObject>(list.length);
    for (const obj of list) next.set(this.keyOf(obj), obj);
    const nextIndices = new Map<string, Map<string, Set<string>>>();
    for (const name of Object.keys(this.indexers)) nextIndices.set(name, new Map());
    for (const [key, obj] of next.entries()) {
      const values = this.valuesOf(key, obj);
      for (let i = 0; i < values.length; i++) for (const v of values[i]) addKey(nextIndices.get(this.indexList[i][0]) as Map<string, Set<string>>, v, key);
    }
    this.items = next;
    this.indices.clear();
    for (const [k, v] of nextIndices) this.indices.set(k, v);
    if (this.tracksRv) this.rv = resourceVersion;
  }

  resync(): void {
    // A plain store has nothing to resync; the FIFO does the work.
  }

  index(indexName: string, obj: StoreObject): StoreObject[] {
    const fn = this.indexFunc(indexName);
    const byValue = this.indices.get(indexName) ?? new Map<string, Set<string>>();
    const keys = new Set<string>();
    for (const value of fn(obj)) for (const k of byValue.get(value) ?? []) keys.add(k);
    return [...keys].map((k) => this.items.get(k) as StoreObject);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.indexFunc(indexName);
    return [...(this.indices.get(indexName)?.get(indexedValue) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  byIndex(indexName: string, indexedValue: string): StoreObject[] {
    return this.indexKeys(indexName, indexedValue).map((k) => this.items.get(k) as StoreObject);
  }

  getIndexers(): Indexers {
    return { ...this.indexers };
  }

  addIndexers(newIndexers: Indexers): void {
    const clash = Object.keys(newIndexers).filter((n) => n in this.indexers);
    if (clash.length > 0) throw new Error(`indexer conflict: ${goSetText(clash)}`);
    // Compute every entry first so a panicking index function leaves the indexer unchanged.
    const built = new Map<string, Map<string, Set<string>>>();
    for (const [name, fn] of Object.entries(newIndexers)) {
      const byValue = new Map<string, Set<string>>();
      for (const [key, obj] of this.items.entries()) {
        for (const v of callIndexFunc(fn, name, key, obj)) addKey(byValue, v, key);
      }
      built.set(name, byValue);
    }
    for (const [name, fn] of Object.entries(newIndexers)) {
      this.indexers[name] = fn;
      this.indices.set(name, built.get(name) as Map<string, Set<string>>);
    }
    this.indexList = Object.entries(this.indexers);
  }

  lastStoreSyncResourceVersion(): string {
    return this.tracksRv ? this.rv : '';
  }

  bookmark(resourceVersion: string): void {
    if (this.tracksRv) this.rv = resourceVersion;
  }

  private put(key: string, obj: StoreObject): void {
    const old = this.items.get(key);
    if (this.indexList.length > 0) {
      const oldValues = old === undefined ? undefined : this.valuesOf(key, old);
      this.applyIndexChange(key, oldValues, this.valuesOf(key, obj));
    }
    this.items.set(key, obj);
    this.noteRv(obj);
  }

  private noteRv(obj: StoreObject): void {
    if (this.tracksRv) this.rv = resourceVersionOfObject(obj);
  }

  /** Index values of obj for every index, in indexList's order; throws IndexPanic before anything is written. */
  private valuesOf(key: string, obj: StoreObject): string[][] {
    const list = this.indexList;
    // Sized once (an array grown by push carries spare room: this runs twice per update).
    const out = new Array<string[]>(list.length);
    for (let i = 0; i < list.length; i++) out[i] = callIndexFunc(list[i][1], list[i][0], key, obj);
    return out;
  }

  /** From the index values an object had (undefined: none) to those it has now (undefined: none). */
  private applyIndexChange(key: string, oldValues: string[][] | undefined, newValues: string[][] | undefined): void {
    const list = this.indexList;
    for (let i = 0; i < list.length; i++) {
      const name = list[i][0];
      const before = oldValues?.[i] ?? [];
      const after = newValues?.[i] ?? [];
      // Fast path (client-go does the same): one unchanged value needs no index work.
      if (before.length === 1 && after.length === 1 && before[0] === after[0]) continue;
      const byValue = this.indices.get(name) as Map<string, Set<string>>;
      for (const v of before) removeKey(byValue, v, key, this.keepsEmptySets);
      for (const v of after) addKey(byValue, v, key);
    }
  }

  private indexFunc(indexName: string): IndexFunc {
    const fn = this.indexers[indexName];
    if (!fn) throw new Error(`Index with name ${indexName} does not exist`);
    return fn;
  }
}

function callIndexFunc(fn: IndexFunc, name: string, key: string, obj: StoreObject): string[] {
  try {
    return fn(obj);
  } catch (e) {
    throw new IndexPanic(key, name, e instanceof Error ? e.message : String(e));
  }
}

function addKey(byValue: Map<string, Set<string>>, value: string, key: string): void {
  let keys = byValue.get(value);
  if (!keys) byValue.set(value, (keys = new Set()));
  keys.add(key);
}

function removeKey(byValue: Map<string, Set<string>>, value: string, key: string, keepEmpty = false): void {
  const keys = byValue.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0 && !keepEmpty) byValue.delete(value);
}

/** NewIndexer: keyed by DeletionHandlingMetaNamespaceKeyFunc unless told otherwise. */
export function newIndexer(o: IndexerOptions = {}): Indexer {
  return new CacheIndexer(o);
}

/** NewStore: an indexer without indexes. */
export function newStore(keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc): Store {
  return new CacheIndexer({ keyFunc });
}
