/**
 * The sandbox's "etcd + watch cache": current objects per resource, one global revision counter
 * (like etcd's), and a bounded window of recent changes that watches replay from and that
 * consistent snapshots for paginated lists are rebuilt from.
 *
 * Invariants:
 * - `currentRV` is the revision of the last change; every change takes the next revision.
 * - `window` holds exactly the changes with revision in (windowStartRV, currentRV], in order.
 *   A watch or exact list at an RV below windowStartRV can no longer be served: 410 Expired.
 * - Stored objects are never mutated after they are stored; each change stores a new object,
 *   so handing them to JSON.stringify or to several watches is safe.
 * - A "lost" change (the etcd-lost-delete story) takes a revision and is kept in the window for
 *   snapshots, but it is never announced to watchers.
 */
import type { KubeObject } from '../../engine/objects';
import { apiVersionOf, resourceById, type SandboxResource } from './resources';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  rv: number;
  resource: string;
  key: string;
  type: ChangeType;
  /** The new state; for DELETED the final state, stamped with the deletion revision. */
  object: KubeObject;
  /** The state before the change (absent for ADDED). */
  previous?: KubeObject;
  /** Never announced to watchers (a delete etcd "lost"). */
  lost?: boolean;
}

export type ChangeListener = (change: Change) => void;

export interface StorageOptions {
  /** First revision handed out minus one; a fresh real cluster is never at 0. */
  initialRV?: number;
  /** How many changes the watch-cache window keeps before the oldest falls out. */
  windowSize?: number;
  /** Wall-clock milliseconds, for creationTimestamp. */
  wallClock?: () => number;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class SandboxStorage {
  private rv: number;
  private startRV: number;
  private readonly windowSize: number;
  private window: Change[] = [];
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<ChangeListener>();
  private uidCounter = 0;
  private readonly wallClock: () => number;

  constructor(opts: StorageOptions = {}) {
    this.rv = opts.initialRV ?? 1000;
    this.startRV = this.rv;
    this.windowSize = Math.max(1, opts.windowSize ?? 200);
    this.wallClock = opts.wallClock ?? Date.now;
  }

  get currentRV(): number {
    return this.rv;
  }

  /** Changes with a revision above this are in the window. */
  get windowStartRV(): number {
    return this.startRV;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Current objects of a resource, sorted by key (etcd key order). */
  list(resource: string): KubeObject[] {
    return sortedValues(this.objects.get(resource));
  }

  get(resource: string, key: string): KubeObject | undefined {
    return this.objects.get(resource)?.get(key);
  }

  /**
   * The objects of a resource as they were at revision `rv` (windowStartRV ≤ rv ≤ currentRV),
   * rebuilt by undoing the window's later changes, newest first. Sorted by key.
   */
  snapshot(resource: string, rv: number): KubeObject[] {
    if (rv < this.startRV || rv > this.rv) throw new RangeError(`revision ${rv} outside the window (${this.startRV}, ${this.rv}]`);
    const state = new Map(this.objects.get(resource) ?? []);
    for (let i = this.window.length - 1; i >= 0 && this.window[i].rv > rv; i--) {
      const c = this.window[i];
      if (c.resource !== resource) continue;
      if (c.previous) state.set(c.key, c.previous);
      else state.delete(c.key);
    }
    return sortedValues(state);
  }

  /** Announced changes after `rv`, oldest first. Callers check rv ≥ windowStartRV first. */
  changesSince(rv: number): Change[] {
    return this.window.filter((c) => c.rv > rv && !c.lost);
  }

  create(resource: string, obj: KubeObject): KubeObject {
    const r = resourceById(resource);
    const meta = obj.metadata ?? {};
    const name = meta.name ?? '';
    const key = objectKey(r.namespaced ? meta.namespace : undefined, name);
    if (this.get(resource, key)) throw new Error(`${resource} "${key}" already exists`);
    const rv = this.rv + 1;
    const stored = stamp(r, obj, {
      ...meta,
      uid: this.nextUid(),
      creationTimestamp: new Date(this.wallClock()).toISOString().replace(/\.\d+Z$/, 'Z'),
      resourceVersion: String(rv),
    });
    this.commit({ rv, resource, key, type: 'ADDED', object: stored });
    return stored;
  }

  /** Replaces the object's content by `mutate(current)`; metadata identity is kept. */
  update(resource: string, key: string, mutate: (current: KubeObject) => KubeObject): KubeObject {
    const r = resourceById(resource);
    const previous = this.mustGet(resource, key);
    const rv = this.rv + 1;
    const next = mutate(previous);
    const stored = stamp(r, next, { ...previous.metadata, ...next.metadata, resourceVersion: String(rv) });
    this.commit({ rv, resource, key, type: 'MODIFIED', object: stored, previous });
    return stored;
  }

  /** Deletes the object; with `lost`, storage forgets it but no watcher ever hears of it. */
  delete(resource: string, key: string, opts: { lost?: boolean } = {}): KubeObject {
    const r = resourceById(resource);
    const previous = this.mustGet(resource, key);
    const rv = this.rv + 1;
    const finalState = stamp(r, previous, { ...previous.metadata, resourceVersion: String(rv) });
    this.commit({ rv, resource, key, type: 'DELETED', object: finalState, previous, lost: opts.lost });
    return finalState;
  }

  /** Like an etcd compaction the watch cache reinitialises from: the window is emptied. */
  compact(): void {
    this.window = [];
    this.startRV = this.rv;
  }

  keys(resource: string): string[] {
    return [...(this.objects.get(resource)?.keys() ?? [])].sort();
  }

  private mustGet(resource: string, key: string): KubeObject {
    const current = this.get(resource, key);
    if (!current) throw new Error(`${resource} "${key}" not found`);
    return current;
  }

  private commit(change: Change): void {
    this.rv = change.rv;
    let bucket = this.objects.get(change.resource);
    if (!bucket) this.objects.set(change.resource, (bucket = new Map()));
    if (change.type === 'DELETED') bucket.delete(change.key);
    else bucket.set(change.key, change.object);
    this.window.push(change);
    while (this.window.length > this.windowSize) this.startRV = this.window.shift()!.rv;
    if (change.lost) return;
    for (const listener of [...this.listeners]) listener(change);
  }

  private nextUid(): string {
    const n = (++this.uidCounter).toString(16).padStart(12, '0');
    return `5a4db0c5-0000-4000-8000-${n}`;
  }
}

/** A frozen copy with apiVersion/kind set and the given metadata. */
function stamp(r: SandboxResource, obj: KubeObject, metadata: KubeObject['metadata']): KubeObject {
  const typeMeta = { apiVersion: apiVersionOf(r), kind: r.kind };
  // apiVersion and kind first, as the server serialises them.
  return deepFreeze({ ...typeMeta, ...obj, ...typeMeta, metadata: { ...metadata } });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function sortedValues(bucket: Map<string, KubeObject> | undefined): KubeObject[] {
  if (!bucket) return [];
  return [...bucket.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}
