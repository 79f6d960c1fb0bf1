/**
 * What DeltaFIFO and RealFIFO share: options, key computation, the wake-up for a waiting Pop,
 * the populated / initialPopulationCount bookkeeping behind HasSynced (spec §3.8), and FifoBase:
 * Add / Update, Pop's wait and lock, HasSynced and Close, written once for both.
 */
import { plainObject } from './lazyObject';
import type { Clock } from './clock';
import type { DeltaType, EventSink, TraceEvent } from '../format/events';
import { emitterOf, isRecorded, packerOf, type TracePacker } from './sink';
import { FIFOClosedError, type Delta, type ProcessFunc } from './fifo';
import { isTombstone, type KubeObject, type StoreObject } from './objects';
import { KeyError, metaNamespaceKeyFunc, type KeyFunc, type KeyListerGetter } from './store';

export interface FifoOptions {
  clock: Clock;
  sink?: EventSink;
  /** Default MetaNamespaceKeyFunc (what the informer passes). */
  keyFunc?: KeyFunc;
  /** The informer's indexer: the source of Replace tombstones and Resync objects. */
  knownObjects?: KeyListerGetter;
  /** Called once, when hasSynced() first becomes observable as true. */
  onSynced?: () => void;
  /**
   * The informer's SetTransform function: applied when an object is queued (client-go calls the
   * transformer in queueActionLocked / addToItems_locked), never to a tombstone or a Sync (those
   * objects come from the indexer and were transformed already).
   */
  transform?: (obj: KubeObject) => KubeObject;
}

/** Why Replace queued a tombstone: for a key still queued, or for one only the indexer knows. */
export type TombstoneOrigin = 'replace-queued' | 'replace-known';

/** Resolves every pending wait() on the next notify(). */
export class Wakeup {
  private waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  notify(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }
}

/** KeyOf for a queued object: a tombstone carries its key, anything else goes through keyFunc. */
export function fifoKeyOf(keyFunc: KeyFunc, obj: StoreObject): string {
  if (isTombstone(obj)) return obj.key;
  try {
    return keyFunc(obj);
  } catch (e) {
    throw new KeyError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * populated / initialPopulationCount and the single "synced" signal. `processing` models the
 * FIFO lock that client-go holds while process runs: a HasSynced caller would block on it, so
 * while processing we report the state from before the pop completed.
 */
export class SyncState {
  populated = false;
  initialPopulationCount = 0;
  processing = false;
  private signalled = false;

  constructor(
    private readonly emit: (e: TraceEvent) => void,
    private readonly clock: Clock,
    private readonly onSynced?: () => void,
  ) {}

  /** The flag itself, as Pop sees it under the lock. */
  synced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  /** What an outside caller of HasSynced observes; once true it stays true. */
  observable(): boolean {
    return this.signalled || (this.synced() && !this.processing);
  }

  /** Pop took an item that counts toward the initial population, if any are left. */
  popInitial(): void {
    if (this.initialPopulationCount > 0) this.initialPopulationCount--;
  }

  /** Emits fifo.synced and calls onSynced the first time the flag is observable. */
  check(): void {
    if (this.signalled || !this.observable()) return;
    this.signalled = true;
    this.emit({ t: this.clock.now(), type: 'fifo.synced' });
    this.onSynced?.();
  }
}

export function makeEmitter(sink: EventSink | undefined): (e: TraceEvent) => void {
  return emitterOf(sink);
}

/**
 * The queue-independent half of a FIFO. Pop waits while the queue is empty, takes the next item
 * (take(), the subclass's), and runs process as if under client-go's FIFO lock: HasSynced callers
 * see the state from before the pop until process has returned.
 */
export abstract class FifoBase<O extends FifoOptions> {
  protected readonly emit: (e: TraceEvent) => void;
  /** Whether the sink keeps events (isRecorded): the per-item events are built only then. */
  protected readonly tracing: boolean;
  /** The sink's TracePacker, if it has one: the per-item events go to it first. */
  protected readonly packer: TracePacker | undefined;
  protected readonly keyFunc: KeyFunc;
  protected readonly state: SyncState;
  /** Notified whenever something is queued, and on close. */
  protected readonly wakeup = new Wakeup();
  private closed = false;

  constructor(protected readonly o: O) {
    this.emit = makeEmitter(o.sink);
    this.tracing = isRecorded(o.sink);
    this.packer = packerOf(o.sink);
    this.keyFunc = o.keyFunc ?? metaNamespaceKeyFunc;
    this.state = new SyncState(this.emit, o.clock, o.onSynced);
  }

  add(obj: KubeObject): void {
    this.queueChange('Added', obj);
  }

  /** TransformingStore (client-go v0.34+ hands it to the watch-list's temporary store). */
  transformer(): ((obj: KubeObject) => KubeObject) | undefined {
    return this.o.transform;
  }

  /** What a queued delta carries: the transformed object, except for tombstones and Syncs. */
  protected transformed(type: DeltaType, obj: StoreObject): StoreObject {
    const t = this.o.transform;
    if (!t || type === 'Sync' || isTombstone(obj)) return obj;
    // A transform gets the parsed object (it may copy or change it).
    return t(plainObject(obj as KubeObject));
  }

  update(obj: KubeObject): void {
    this.queueChange('Updated', obj);
  }

  async pop(process: ProcessFunc): Promise<void> {
    if (this.isEmpty()) {
      while (this.isEmpty()) {
        if (this.closed) throw new FIFOClosedError();
        await this.wakeup.wait();
      }
      // A woken Pop runs after the producer's burst: client-go's popper only gets the CPU once the
      // reflector blocks, so every event available at this instant is queued first and deltas of
      // one key accumulate (seen in the oracles: fifo-same-instant-regroup).
      await this.o.clock.sleep(0);
    }
    const isInInitialList = !this.state.synced();
    const deltas = this.take(isInInitialList);
    // client-go holds the FIFO lock across process; HasSynced callers see the result afterwards.
    this.state.processing = true;
    try {
      const pending = process(deltas, isInInitialList);
      if (pending) await pending;
    } finally {
      this.state.processing = false;
      this.afterProcess();
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

  /** A change from the reflector: marks the FIFO populated and queues one delta. */
  protected queueChange(type: DeltaType, obj: StoreObject): void {
    this.state.populated = true;
    this.queueAction(type, obj);
    this.state.check();
  }

  /** Queues one delta and wakes a waiting Pop. */
  protected abstract queueAction(type: DeltaType, obj: StoreObject, tombstone?: TombstoneOrigin): void;

  protected abstract isEmpty(): boolean;

  /** Removes the next item (the queue is not empty), emits fifo.pop and returns its deltas. */
  protected abstract take(isInInitialList: boolean): Delta[];

  /** Runs under the lock after process returned (or threw), before the synced check. */
  protected afterProcess(): void {}

  protected now(): number {
    return this.o.clock.now();
  }
}
