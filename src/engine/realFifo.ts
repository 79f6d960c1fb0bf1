/**
 * RealFIFO (client-go the_real_fifo.go, spec §3.10): a plain ordered log of deltas, one entry
 * per event. Nothing is merged or dropped — a watch DELETE of an unknown object still reaches
 * OnDelete — so a key can appear many times, and "depth" counts entries, not keys.
 *
 * Atomic mode (v0.36 AtomicFIFO): Replace appends one ReplacedAll, Resync one SyncAll, and
 * bookmarks become Bookmark entries; the informer then reconciles against its indexer itself.
 */
import type { DeltaType, TraceEvent } from './events';
import { FIFOClosedError, type Delta, type ProcessFunc, type Queue } from './fifo';
import { fifoKeyOf, makeEmitter, SyncState, Wakeup, type FifoOptions } from './fifoSupport';
import { DeletedFinalStateUnknown, isTombstone, resourceVersionOf, type KubeObject, type StoreObject } from './objects';
import { RingGrowing } from './ringGrowing';
import { metaNamespaceKeyFunc, type KeyFunc } from './store';

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

type TombstoneOrigin = 'replace-queued' | 'replace-known';

export class RealFIFO implements Queue {
  private readonly items = new RingGrowing<Entry>(64);
  private closed = false;
  private readonly wakeup = new Wakeup();
  private readonly state: SyncState;
  private readonly emit: (e: TraceEvent) => void;
  private readonly keyFunc: KeyFunc;

  constructor(private readonly o: RealFIFOOptions) {
    this.emit = makeEmitter(o.sink);
    this.keyFunc = o.keyFunc ?? metaNamespaceKeyFunc;
    this.state = new SyncState(this.emit, o.clock, o.onSynced);
  }

  add(obj: KubeObject): void {
    this.state.populated = true;
    this.append('Added', obj);
    this.state.check();
  }

  update(obj: KubeObject): void {
    this.state.populated = true;
    this.append('Updated', obj);
    this.state.check();
  }

  /** Never dropped, even for a key nobody has seen. */
  delete(obj: KubeObject): void {
    this.state.populated = true;
    this.append('Deleted', obj);
    this.state.check();
  }

  replace(list: KubeObject[], resourceVersion: string): void {
    let fromQueue = 0;
    let fromKnown = 0;
    if (this.o.atomic) {
      this.appendEntry({ key: '', delta: { type: 'ReplacedAll', objects: [...list], resourceVersion } }, { objects: list.length });
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
      this.append('Deleted', new DeletedFinalStateUnknown(key, last.object as KubeObject | undefined), 'replace-queued');
      fromQueue++;
    }
    let fromKnown = 0;
    for (const key of this.o.knownObjects?.listKeys() ?? []) {
      if (newKeys.has(key) || lastQueued.has(key)) continue;
      const obj = this.o.knownObjects?.getByKey(key);
      if (obj === undefined) {
        this.log('Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object', key);
      }
      this.append('Deleted', new DeletedFinalStateUnknown(key, isTombstone(obj) ? obj.obj : obj), 'replace-known');
      fromKnown++;
    }
    for (const obj of list) this.append('Replaced', obj);
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
      this.append('Sync', obj);
      queued++;
    }
    this.emit({ t: this.now(), type: 'fifo.resync', queued, skippedBusy, atomic: false });
  }

  /** ReflectorBookmarkStore: only atomic mode records bookmarks. */
  bookmark(resourceVersion: string): void {
    if (!this.o.atomic) return;
    this.appendEntry({ key: '', delta: { type: 'Bookmark', resourceVersion } });
  }

  async pop(process: ProcessFunc): Promise<void> {
    if (this.items.length === 0) {
      while (this.items.length === 0) {
        if (this.closed) throw new FIFOClosedError();
        await this.wakeup.wait();
      }
      // As in DeltaFIFO: a woken Pop runs after the producer's burst at this instant.
      await this.o.clock.sleep(0);
    }
    const isInInitialList = !this.state.synced();
    const entry = this.items.shift() as Entry;
    if (!this.o.syncAfterProcess) this.decrementInitial();
    this.emit({
      t: this.now(),
      type: 'fifo.pop',
      key: entry.key,
      deltas: [entry.delta.type],
      isInInitialList,
      depthKeys: this.items.length,
      depthDeltas: this.items.length,
    });
    this.state.processing = true;
    try {
      const pending = process([entry.delta], isInInitialList);
      if (pending) await pending;
    } finally {
      this.state.processing = false;
      if (this.o.syncAfterProcess) this.decrementInitial();
      this.state.check();
    }
  }

  hasSynced(): boolean {
    return this.state.observable();
  }

  close(): void {
    this.closed = true;
    this.wakeup.notify();
  }

  depthKeys(): number {
    return this.items.length;
  }

  depthDeltas(): number {
    return this.items.length;
  }

  private decrementInitial(): void {
    if (this.state.initialPopulationCount > 0) this.state.initialPopulationCount--;
  }

  private append(type: DeltaType, obj: StoreObject, tombstone?: TombstoneOrigin): void {
    const key = fifoKeyOf(this.keyFunc, obj);
    this.appendEntry({ key, delta: { type, object: obj } }, tombstone ? { tombstone } : {});
  }

  private appendEntry(entry: Entry, extra: { tombstone?: TombstoneOrigin; objects?: number } = {}): void {
    this.items.push(entry);
    const d = entry.delta;
    this.emit({
      t: this.now(),
      type: 'fifo.enqueue',
      key: entry.key,
      delta: d.type,
      rv: d.object !== undefined ? resourceVersionOf(d.object) : (d.resourceVersion ?? ''),
      depthKeys: this.items.length,
      depthDeltas: this.items.length,
      ...extra,
    });
    this.wakeup.notify();
  }

  private log(msg: string, key: string): void {
    this.emit({ t: this.now(), type: 'log', level: 'error', msg, kv: { key } });
  }

  private now(): number {
    return this.o.clock.now();
  }
}
