/**
 * What DeltaFIFO and RealFIFO share: options, key computation, the wake-up for a waiting Pop,
 * and the populated / initialPopulationCount bookkeeping behind HasSynced (spec §3.8).
 */
import type { Clock } from './clock';
import type { EventSink, TraceEvent } from './events';
import { nullSink } from './events';
import { isTombstone, type StoreObject } from './objects';
import { KeyError, type KeyFunc, type KeyListerGetter } from './store';

export interface FifoOptions {
  clock: Clock;
  sink?: EventSink;
  /** Default MetaNamespaceKeyFunc (what the informer passes). */
  keyFunc?: KeyFunc;
  /** The informer's indexer: the source of Replace tombstones and Resync objects. */
  knownObjects?: KeyListerGetter;
  /** Called once, when hasSynced() first becomes observable as true. */
  onSynced?: () => void;
}

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

  /** Emits fifo.synced and calls onSynced the first time the flag is observable. */
  check(): void {
    if (this.signalled || !this.observable()) return;
    this.signalled = true;
    this.emit({ t: this.clock.now(), type: 'fifo.synced' });
    this.onSynced?.();
  }
}

export function makeEmitter(sink: EventSink | undefined): (e: TraceEvent) => void {
  const s = sink ?? nullSink;
  return (e) => s.emit(e);
}
