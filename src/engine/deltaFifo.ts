/**
 * DeltaFIFO (client-go delta_fifo.go, spec §3.1–§3.9): one queue entry per key, each holding the
 * key's deltas oldest first. Invariants: every queued key has a non-empty delta list, a key is in
 * `queue` iff it is in `items`, and `queue` has no duplicates. Only consecutive deletes of a key
 * are merged (dedupDeltas); nothing else is, and nothing is compared by content.
 */
import type { DeltaType } from '../format/events';
import type { Delta, Queue } from './fifo';
import { FifoBase, fifoKeyOf, type FifoOptions, type TombstoneOrigin } from './fifoSupport';
import { DeletedFinalStateUnknown, isTombstone, resourceVersionOf, type KubeObject, type StoreObject } from './objects';
import { RingGrowing } from './ringGrowing';

export interface DeltaFIFOOptions extends FifoOptions {
  /** Replace emits Replaced (the informer's choice, v0.18+) rather than Sync (NewDeltaFIFO's default). */
  emitDeltaTypeReplaced?: boolean;
  /** v0.27+ Replace: tombstones for queued-but-unknown keys, nested tombstones unwrapped. Default true. */
  replaceTombstonesQueuedKeys?: boolean;
  /** ≤1.16: a Sync is dropped when the key's last queued delta is Deleted (issue #83810). Default false. */
  dropsSyncAfterDelete?: boolean;
  /**
   * 1.15: the first Replace counts every list item towards the initial population, duplicates
   * included (delta_fifo.go `len(list) + queuedDeletions`), so a list with a key twice never
   * pops to zero; later lines count distinct keys (`keys.Len()`). Default false.
   */
  initialPopulationCountsListItems?: boolean;
}

export class DeltaFIFO extends FifoBase<DeltaFIFOOptions> implements Queue {
  private readonly items = new Map<string, Delta[]>();
  private readonly queue = new RingGrowing<string>(64);
  private totalDeltas = 0;

  /**
   * A delete of a key that is neither queued nor known is ignored: the object was never seen,
   * so there is nothing to tell handlers (RealFIFO differs).
   */
  delete(obj: KubeObject): void {
    const key = fifoKeyOf(this.keyFunc, obj);
    this.state.populated = true;
    const known = this.o.knownObjects ? this.o.knownObjects.getByKey(key) !== undefined : false;
    if (!known && !this.items.has(key)) {
      this.emit({ t: this.now(), type: 'fifo.drop', key, delta: 'Deleted', why: 'delete-of-unknown' });
    } else {
      this.queueAction('Deleted', obj);
    }
    this.state.check();
  }

  /** The resourceVersion argument is ignored, as in client-go. */
  replace(list: KubeObject[], _resourceVersion: string): void {
    const action: DeltaType = this.o.emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    const newKeys = new Set<string>();
    for (const obj of list) {
      newKeys.add(fifoKeyOf(this.keyFunc, obj));
      this.queueAction(action, obj);
    }
    const { fromQueue, fromKnown } =
      this.o.replaceTombstonesQueuedKeys === false ? this.legacyReplaceDeletions(newKeys) : this.replaceDeletions(newKeys);
    if (!this.state.populated) {
      this.state.populated = true;
      this.state.initialPopulationCount = (this.o.initialPopulationCountsListItems ? list.length : newKeys.size) + fromQueue + fromKnown;
    }
    this.emit({ t: this.now(), type: 'fifo.replace', items: list.length, tombstonesFromQueue: fromQueue, tombstonesFromKnown: fromKnown, atomic: false });
    this.state.check();
  }

  /** v0.27+: queued keys first (newest queued object, unwrapped), then known keys with nothing queued. */
  private replaceDeletions(newKeys: Set<string>): { fromQueue: number; fromKnown: number } {
    let fromQueue = 0;
    for (const key of [...this.items.keys()]) {
      if (newKeys.has(key)) continue;
      const deltas = this.items.get(key) as Delta[];
      let last = deltas[deltas.length - 1].object;
      if (isTombstone(last)) last = last.obj;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, last as KubeObject | undefined), 'replace-queued');
      fromQueue++;
    }
    let fromKnown = 0;
    for (const key of this.o.knownObjects?.listKeys() ?? []) {
      if (newKeys.has(key) || this.items.has(key)) continue;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, this.knownObjectForTombstone(key)), 'replace-known');
      fromKnown++;
    }
    return { fromQueue, fromKnown };
  }

  /**
   * ≤v0.26: with knownObjects only known keys get tombstones (queued-only keys are missed); without,
   * queued keys get one wrapping the newest object as is, even if that is already a tombstone.
   */
  private legacyReplaceDeletions(newKeys: Set<string>): { fromQueue: number; fromKnown: number } {
    const known = this.o.knownObjects;
    if (!known) {
      let fromQueue = 0;
      for (const key of [...this.items.keys()]) {
        if (newKeys.has(key)) continue;
        const deltas = this.items.get(key) as Delta[];
        const newest = deltas[deltas.length - 1].object as KubeObject | undefined;
        this.queueAction('Deleted', new DeletedFinalStateUnknown(key, newest), 'replace-queued');
        fromQueue++;
      }
      return { fromQueue, fromKnown: 0 };
    }
    let fromKnown = 0;
    for (const key of known.listKeys()) {
      if (newKeys.has(key)) continue;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, this.knownObjectForTombstone(key)), 'replace-known');
      fromKnown++;
    }
    return { fromQueue: 0, fromKnown };
  }

  private knownObjectForTombstone(key: string): KubeObject | undefined {
    const obj = this.o.knownObjects?.getByKey(key);
    if (obj === undefined) {
      this.log('Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object', key);
      return undefined;
    }
    return isTombstone(obj) ? obj.obj : obj;
  }

  /** Queues Sync for every known object whose key has nothing queued (a stale object must not overtake a pending change). */
  resync(): void {
    const known = this.o.knownObjects;
    if (!known) return;
    let queued = 0;
    let skippedBusy = 0;
    for (const knownKey of known.listKeys()) {
      const obj = known.getByKey(knownKey);
      if (obj === undefined) {
        this.log('Key does not exist in known objects store, unable to queue object for sync', knownKey);
        continue;
      }
      const key = fifoKeyOf(this.keyFunc, obj);
      if (this.items.has(key)) {
        skippedBusy++;
        this.emit({ t: this.now(), type: 'fifo.drop', key, delta: 'Sync', why: 'sync-busy' });
        continue;
      }
      this.queueAction('Sync', obj);
      queued++;
    }
    this.emit({ t: this.now(), type: 'fifo.resync', queued, skippedBusy, atomic: false });
  }

  protected isEmpty(): boolean {
    return this.queue.length === 0;
  }

  /** The oldest key with all its deltas. */
  protected take(isInInitialList: boolean): Delta[] {
    const key = this.queue.shift() as string;
    const deltas = this.items.get(key) as Delta[];
    this.items.delete(key);
    this.totalDeltas -= deltas.length;
    this.state.popInitial();
    const t = this.now();
    const types = deltas.map((d) => d.type);
    if (this.packer?.packPop(t, key, types, isInInitialList, this.queue.length, this.totalDeltas)) return deltas;
    this.emit({ t, type: 'fifo.pop', key, deltas: types, isInInitialList, depthKeys: this.queue.length, depthDeltas: this.totalDeltas });
    return deltas;
  }

  depthKeys(): number {
    return this.queue.length;
  }

  private emitEnqueue(key: string, delta: DeltaType, rv: string, tombstone: TombstoneOrigin | undefined): void {
    const t = this.now();
    if (!tombstone && this.packer?.packEnqueue(t, key, delta, rv, this.queue.length, this.totalDeltas)) return;
    this.emit({ t, type: 'fifo.enqueue', key, delta, rv, depthKeys: this.queue.length, depthDeltas: this.totalDeltas, ...(tombstone ? { tombstone } : {}) });
  }

  depthDeltas(): number {
    return this.totalDeltas;
  }

  protected queueAction(type: DeltaType, given: StoreObject, tombstone?: TombstoneOrigin): void {
    const key = fifoKeyOf(this.keyFunc, given);
    const obj = this.transformed(type, given);
    const existing = this.items.get(key);
    if (this.o.dropsSyncAfterDelete && type === 'Sync' && existing?.[existing.length - 1].type === 'Deleted') {
      this.emit({ t: this.now(), type: 'fifo.drop', key, delta: 'Sync', why: 'sync-after-delete' });
      return;
    }
    const deltas = existing ?? [];
    deltas.push({ type, object: obj });
    this.totalDeltas++;
    const kept = dedupDeltas(deltas);
    if (kept) this.totalDeltas--;
    if (!existing) {
      this.items.set(key, deltas);
      this.queue.push(key);
    }
    this.emitEnqueue(key, type, resourceVersionOf(obj), tombstone);
    if (kept) this.emit({ t: this.now(), type: 'fifo.dedup', key, kept });
    this.wakeup.notify();
  }

  private log(msg: string, key: string): void {
    this.emit({ t: this.now(), type: 'log', level: 'info', msg, kv: { key } });
  }
}

/**
 * Merges the last two deltas in place when both are deletes; returns which one survived.
 * A real final state beats a tombstone; between two real ones the first wins.
 */
export function dedupDeltas(deltas: Delta[]): 'older' | 'newer' | undefined {
  const n = deltas.length;
  if (n < 2) return undefined;
  const older = deltas[n - 2];
  const newer = deltas[n - 1];
  if (older.type !== 'Deleted' || newer.type !== 'Deleted') return undefined;
  const keepNewer = isTombstone(older.object);
  deltas.splice(n - 2, 2, keepNewer ? newer : older);
  return keepNewer ? 'newer' : 'older';
}
