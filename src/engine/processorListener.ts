/**
 * processorListener (client-go shared_informer.go, spec §4.4): one per event handler. Distribution
 * only ever appends to its buffer — a ring that starts at 1024 and doubles, never shrinking — so a
 * slow handler never blocks the informer; it just falls behind. The run loop hands notifications
 * to the handler one at a time and awaits each (a handler may return a Promise), like client-go's
 * run goroutine.
 */
import type { Clock } from './clock';
import type { TraceEvent, UpdateChange } from '../format/events';
import { notifyLiteral, type TracePacker } from './sink';
import type { LazyState } from './lazyObject';
import { isTombstone, resourceVersionOf, resourceVersionOfLazy, type KubeObject, type StoreObject } from './objects';
import { RingGrowing } from './ringGrowing';

export const INITIAL_BUFFER_SIZE = 1024;
/** A handler call longer than this (engine clock) is reported as handler.slow. */
export const SLOW_HANDLER_MS = 100;
/** After a handler throws, the listener waits this long before the next item (recovered panic). */
export const HANDLER_PANIC_PAUSE_MS = 1000;

export interface ResourceEventHandler {
  onAdd?(obj: KubeObject, isInInitialList: boolean): void | Promise<void>;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void | Promise<void>;
  /** obj may be a DeletedFinalStateUnknown. */
  onDelete?(obj: StoreObject): void | Promise<void>;
}

export type Notification =
  /** isSync is only ever true under the ≤1.17 'delta-type' rule (an add from a Sync delta). */
  | { op: 'add'; key: string; obj: KubeObject; isInInitialList: boolean; isSync: boolean }
  /**
   * oldLazy/newLazy: lazyStateOf of each object, read once by the informer (the trace events read
   * the resourceVersions through them); left out, the objects are asked (objects.ts's resourceVersionOfLazy).
   */
  | { op: 'update'; key: string; oldObj: KubeObject; newObj: KubeObject; oldLazy?: LazyState; newLazy?: LazyState; isSync: boolean; change: UpdateChange }
  | { op: 'delete'; key: string; obj: StoreObject };

/**
 * synctrack.SingleFileTracker: a handler has synced once the informer has and every initial-list
 * add handed to it has been handled.
 */
export class SyncTracker {
  private count = 0;
  constructor(private readonly upstreamHasSynced: () => boolean) {}
  start(): void {
    this.count++;
  }
  finished(): void {
    this.count--;
  }
  hasSynced(): boolean {
    return this.upstreamHasSynced() && this.count === 0;
  }
}

export interface ProcessorListenerOptions {
  name: string;
  handler: ResourceEventHandler;
  clock: Clock;
  emit: (e: TraceEvent) => void;
  requestedResyncMs: number;
  /** After determineResyncPeriod. 0 = never resync. */
  resyncPeriodMs: number;
  /** Profile has isInInitialList (v0.27+): the notify event carries initialList. */
  hasInitialListFlag: boolean;
  tracker: SyncTracker;
  /** Whether trace events are kept (isRecorded; default true): the notify events are built only then. */
  tracing?: boolean;
  /** The sink's TracePacker, if it has one: the notify events go to it first. */
  packer?: TracePacker;
}

export class ProcessorListener {
  readonly name: string;
  readonly requestedResyncMs: number;
  resyncPeriodMs: number;
  nextResyncMs: number;
  private readonly buffer = new RingGrowing<Notification>(INITIAL_BUFFER_SIZE);
  private running = false;
  private stopped = false;
  private wake: (() => void) | undefined;

  constructor(private readonly o: ProcessorListenerOptions) {
    this.name = o.name;
    this.requestedResyncMs = o.requestedResyncMs;
    this.resyncPeriodMs = o.resyncPeriodMs;
    this.nextResyncMs = o.clock.now() + o.resyncPeriodMs;
  }

  /** Never blocks. An initial-list add is counted by the tracker until the handler has returned. */
  add(n: Notification): void {
    if (this.stopped) return;
    if (n.op === 'add' && n.isInInitialList) this.o.tracker.start();
    this.buffer.push(n);
    this.wake?.();
  }

  /** Due for a resync at `now`? (sharedProcessor.shouldResync decides the syncing flag from this.) */
  shouldResync(now: number): boolean {
    return this.resyncPeriodMs !== 0 && now >= this.nextResyncMs;
  }

  determineNextResync(now: number): void {
    this.nextResyncMs = now + this.resyncPeriodMs;
  }

  pending(): number {
    return this.buffer.length;
  }

  bufferCapacity(): number {
    return this.buffer.capacity;
  }

  isIdle(): boolean {
    return this.buffer.length === 0 && !this.running;
  }

  hasSynced(): boolean {
    return this.o.tracker.hasSynced();
  }

  /** Stops taking notifications; anything still buffered is dropped (client-go closes addCh). */
  stop(): void {
    this.stopped = true;
    while (this.buffer.shift() !== undefined);
    this.wake?.();
  }

  /** Resolves once stopped and the handler call in progress, if any, has returned. */
  async run(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const n = this.buffer.shift();
      if (n === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.running = true;
      try {
        await this.deliver(n);
      } finally {
        this.running = false;
      }
    }
  }

  private async deliver(n: Notification): Promise<void> {
    const { clock, emit, handler } = this.o;
    if (this.o.tracing !== false) this.traceNotify(n, clock.now());
    const start = clock.now();
    let panic: unknown;
    try {
      if (n.op === 'add') await handler.onAdd?.(n.obj, n.isInInitialList);
      else if (n.op === 'update') await handler.onUpdate?.(n.oldObj, n.newObj);
      else await handler.onDelete?.(n.obj);
    } catch (e) {
      panic = e;
    }
    const took = clock.now() - start;
    if (took > SLOW_HANDLER_MS) emit({ t: clock.now(), type: 'handler.slow', handler: this.name, durationMs: took });
    // A panicking initial add is never marked finished, so that handler never reports synced.
    if (n.op === 'add' && n.isInInitialList && panic === undefined) this.o.tracker.finished();
    if (panic !== undefined) {
      // client-go crashes by default; we behave like a process configured to recover from it.
      const text = panic instanceof Error ? panic.message : String(panic);
      emit({ t: clock.now(), type: 'log', level: 'error', msg: 'Observed a panic', kv: { handler: this.name, panic: text } });
      await clock.sleep(HANDLER_PANIC_PAUSE_MS).catch(() => undefined);
    }
  }

  /** The notify event: its fields read once, handed to the packer, or emitted as its literal when the packer did not take them. */
  private traceNotify(n: Notification, t: number): void {
    const pending = this.buffer.length;
    switch (n.op) {
      case 'add':
        return this.notify(t, n.key, pending, 'add', resourceVersionOf(n.obj), undefined, n.isSync, this.o.hasInitialListFlag ? n.isInInitialList : undefined, undefined, undefined);
      case 'update':
        return this.notify(t, n.key, pending, 'update', resourceVersionOfLazy(n.newObj, n.newLazy), resourceVersionOfLazy(n.oldObj, n.oldLazy), n.isSync, undefined, undefined, n.change);
      case 'delete':
        return this.notify(t, n.key, pending, 'delete', resourceVersionOf(n.obj), undefined, false, undefined, isTombstone(n.obj) ? true : undefined, undefined);
    }
  }

  private notify(
    t: number, key: string, pending: number, op: 'add' | 'update' | 'delete', rv: string, oldRv: string | undefined,
    isSync: boolean, initialList: boolean | undefined, tombstone: true | undefined, change: UpdateChange | undefined,
  ): void {
    if (this.o.packer?.packNotify(t, this.name, key, pending, op, rv, oldRv, isSync, initialList, tombstone, change)) return;
    this.o.emit(notifyLiteral(t, this.name, key, pending, op, rv, oldRv, isSync, initialList, tombstone, change));
  }
}
