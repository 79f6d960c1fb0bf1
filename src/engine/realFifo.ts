/**
 * RealFIFO (client-go the_real_fifo.go, spec §3.10): a plain ordered log of deltas, one entry
 * per event. Nothing is merged or dropped — a watch DELETE of an unknown object still reaches
 * OnDelete — so a key can appear many times, and "depth" counts entries, not keys.
 *
 * Atomic mode (v0.36 AtomicFIFO): Replace appends one ReplacedAll, Resync one SyncAll, and
 * bookmarks become Bookmark entries; the informer then reconciles against its indexer itself.
 */
import type { DeltaType, TraceEvent } from '../format/events';
import type { Delta, Queue } from './fifo';
import { FifoBase, fifoKeyOf, type FifoOptions, type TombstoneOrigin } from './fifoSupport';
import { DeletedFinalStateUnknown, isTombstone, resourceVersionOf, type KubeObject, type StoreObject } from './objects';
import { RingGrowing } from './ringGrowing';

/**
 * A fifo.pop event's `deltas` (a RealFIFO pops one delta at a time): one frozen array per delta
 * type, shared by every such event instead of an array built and kept per event. Recorded events
 * are never changed after they are emitted.
 */
const ONE_DELTA = new Map<DeltaType, readonly DeltaType[]>();

function deltaTypes(type: DeltaType): DeltaType[] {
  let types = ONE_DELTA.get(type);
  if (types === undefined) {
    types = Object.freeze([type]);
    ONE_DELTA.set(type, types);
  }
  return types as DeltaType[];
}

export interface RealFIFOOptions extends FifoOptions {
  /** AtomicFIFO gate (v0.36): ReplacedAll / SyncAll / Bookmark entries. */
  atomic?: boolean;
  /**
   * v0.36 decrements initialPopulationCount after process returns; ≤v0.35 before, under the lock.
   * Either way an outside HasSynced caller sees the change only once process has returned.
   */
  syncAfterProcess?: boolean;
}

/** One log entry; `key` is "" for the atomic entries, which stand for no single object. */
interface Entry {
  key: string;
  delta: Delta;
}

export class RealFIFO extends FifoBase<RealFIFOOptions> implements Queue {
  private readonly items = new RingGrowing<Entry>(64);

  /** Never dropped, even for a key nobody has seen. */
  delete(obj: KubeObject): void {
    this.queueChange('Deleted', obj);
  }

  replace(list: KubeObject[], resourceVersion: string): void {
    let fromQueue = 0;
    let fromKnown = 0;
    if (this.o.atomic) {
      const objects = list.map((o) => this.transformed('Replaced', o) as KubeObject);
      this.appendEntry({ key: '', delta: { type: 'ReplacedAll', objects, resourceVersion } }, { objects: list.length });
    } else {
      ({ fromQueue, fromKnown } = this.reconcileReplacement(list));
    }
    if (!this.state.populated) {
      this.state.populated = true;
      // Counts log entries: what was already queued, the tombstones and the new items.
      this.state.initialPopulationCount = this.items.length;
    }
    this.emit({ t: this.now(), type: 'fifo.replace', items: list.length, tombstonesFromQueue: fromQueue, tombstonesFromKnown: fromKnown, atomic: !!this.o.atomic });
    this.state.check();
  }

  /**
   * Non-atomic Replace: tombstones first — for queued keys missing from the list whose last entry
   * is not already a delete (first-appearance order), then for known keys missing from the list
   * and absent from the log — and only then Replaced for every new item, in list order.
   */
  private reconcileReplacement(list: KubeObject[]): { fromQueue: number; fromKnown: number } {
    const newKeys = new Set(list.map((obj) => fifoKeyOf(this.keyFunc, obj)));
    const lastQueued = new Map<string, Delta>();
    for (const e of this.items) lastQueued.set(e.key, e.delta);
    let fromQueue = 0;
    for (const [key, last] of lastQueued) {
      if (newKeys.has(key) || last.type === 'Deleted') continue;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, last.object as KubeObject | undefined), 'replace-queued');
      fromQueue++;
    }
    let fromKnown = 0;
    for (const key of this.o.knownObjects?.listKeys() ?? []) {
      if (newKeys.has(key) || lastQueued.has(key)) continue;
      const obj = this.o.knownObjects?.getByKey(key);
      if (obj === undefined) {
        this.log('Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object', key);
      }
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, isTombstone(obj) ? obj.obj : obj), 'replace-known');
      fromKnown++;
    }
    for (const obj of list) this.queueAction('Replaced', obj);
    return { fromQueue, fromKnown };
  }

  resync(): void {
    if (this.o.atomic) {
      this.appendEntry({ key: '', delta: { type: 'SyncAll' } });
      this.emit({ t: this.now(), type: 'fifo.resync', queued: 1, skippedBusy: 0, atomic: true });
      return;
    }
    const known = this.o.knownObjects;
    if (!known) return;
    const keysInLog = new Set<string>();
    for (const e of this.items) keysInLog.add(e.key);
    let queued = 0;
    let skippedBusy = 0;
    for (const key of known.listKeys()) {
      if (keysInLog.has(key)) {
        skippedBusy++;
        this.emit({ t: this.now(), type: 'fifo.drop', key, delta: 'Sync', why: 'sync-busy' });
        continue;
      }
      const obj = known.getByKey(key);
      if (obj === undefined) {
        this.log('Key does not exist in known objects store, unable to queue object for sync', key);
        continue;
      }
      this.queueAction('Sync', obj);
      queued++;
    }
    this.emit({ t: this.now(), type: 'fifo.resync', queued, skippedBusy, atomic: false });
  }

  /** ReflectorBookmarkStore: only atomic mode records bookmarks. */
  bookmark(resourceVersion: string): void {
    if (!this.o.atomic) return;
    this.appendEntry({ key: '', delta: { type: 'Bookmark', resourceVersion } });
  }

  protected isEmpty(): boolean {
    return this.items.length === 0;
  }

  /** The oldest log entry, alone. */
  protected take(isInInitialList: boolean): Delta[] {
    const entry = this.items.shift() as Entry;
    if (!this.o.syncAfterProcess) this.state.popInitial();
    if (this.tracing) {
      const depth = this.items.length;
      const t = this.now();
      const deltas = deltaTypes(entry.delta.type);
      if (this.packer?.packPop(t, entry.key, deltas, isInInitialList, depth, depth)) return [entry.delta];
      this.emit({ t, type: 'fifo.pop', key: entry.key, deltas, isInInitialList, depthKeys: depth, depthDeltas: depth });
    }
    return [entry.delta];
  }

  protected override afterProcess(): void {
    if (this.o.syncAfterProcess) this.state.popInitial();
  }

  depthKeys(): number {
    return this.items.length;
  }

  depthDeltas(): number {
    return this.items.length;
  }

  protected queueAction(type: DeltaType, obj: StoreObject, tombstone?: TombstoneOrigin): void {
    const key = fifoKeyOf(this.keyFunc, obj);
    this.appendEntry({ key, delta: { type, object: this.transformed(type, obj) } }, tombstone ? { tombstone } : undefined);
  }

  private appendEntry(entry: Entry, extra?: { tombstone?: TombstoneOrigin; objects?: number }): void {
    this.items.push(entry);
    if (this.tracing) this.emitEnqueue(entry, extra);
    this.wakeup.notify();
  }

  private emitEnqueue(entry: Entry, extra: { tombstone?: TombstoneOrigin; objects?: number } | undefined): void {
    const d = entry.delta;
    const depth = this.items.length;
    const rv = d.object !== undefined ? resourceVersionOf(d.object) : (d.resourceVersion ?? '');
    const t = this.now();
    if (extra === undefined && this.packer?.packEnqueue(t, entry.key, d.type, rv, depth, depth)) return;
    const e: TraceEvent & { type: 'fifo.enqueue' } = { t, type: 'fifo.enqueue', key: entry.key, delta: d.type, rv, depthKeys: depth, depthDeltas: depth };
    if (extra?.tombstone !== undefined) e.tombstone = extra.tombstone;
    if (extra?.objects !== undefined) e.objects = extra.objects;
    this.emit(e);
  }

  private log(msg: string, key: string): void {
    this.emit({ t: this.now(), type: 'log', level: 'error', msg, kv: { key } });
  }
}
