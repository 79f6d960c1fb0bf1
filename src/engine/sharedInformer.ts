/**
 * sharedIndexInformer (client-go shared_informer.go, spec §2, §4): a reflector fills a FIFO, the
 * pop loop applies each delta to the indexer and distributes a notification to every listener.
 *
 * ENGINE API CONTRACT (with src/engine/reflector.ts; additive changes only). Additions so far:
 * SharedInformerOptions.reflectorFactory (test doubles; default the real Reflector) and .expectedGVK
 * (passed to the reflector);
 * the ResourceEventHandler type lives in processorListener.ts and is re-exported here.
 */
import type { Clock } from './clock';
import { Controller, type ReflectorFactory, type ReflectorRunner } from './controller';
import { DeltaFIFO } from './deltaFifo';
import { compareUpdate, type UpdateComparison } from './diff';
import type { DeltaType, EventSink, TraceEvent } from '../format/events';
import { emitterOf, isRecorded, nullSink, packerOf, type TracePacker } from './sink';
import type { Delta, Queue } from './fifo';
import type { ListerWatcher } from './listWatch';
import { lazyStateOf } from './lazyObject';
import { DeletedFinalStateUnknown, resourceVersionOfLazy, type KubeObject, type StoreObject } from './objects';
import { ProcessorListener, SyncTracker, type Notification, type ResourceEventHandler } from './processorListener';
import type { Profile } from './profiles';
import { InformerLog } from './informerLogs';
import { RealFIFO } from './realFifo';
import { Reflector } from './reflector';
import { SharedProcessor } from './sharedProcessor';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  NamespaceIndex,
  newIndexer,
  type Indexer,
  type Indexers,
} from './store';

export type { ResourceEventHandler } from './processorListener';

/** Stands in for the update comparison when no trace is kept (the notification's `change` is then read by nobody). */
const UNTRACED: UpdateComparison = { change: 'other', diff: [], total: 0 };

/** shared_informer.go minimumResyncPeriod. */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;

export interface SharedInformerOptions {
  listerWatcher: ListerWatcher;
  profile: Profile;
  clock: Clock;
  sink?: EventSink;
  rand?: () => number;
  /** The informer's default handler resync period and initial resync check period. 0 = none. */
  resyncPeriodMs?: number;
  typeDescription?: string;
  name?: string;
  /** Default: the namespace index. */
  indexers?: Indexers;
  /** SetTransform before start (Profile.hasSetTransform): applied as objects are queued (fifoSupport.ts). */
  transform?: (obj: KubeObject) => KubeObject;
  /** Addition: builds the reflector. Default: the real Reflector. */
  reflectorFactory?: ReflectorFactory;
  /** Addition: passed to the reflector (unstructured GVK check, spec §1.7). */
  expectedGVK?: { apiVersion: string; kind: string };
}

export interface HandlerRegistration {
  readonly name: string;
  hasSynced(): boolean;
}

class Registration implements HandlerRegistration {
  constructor(
    readonly name: string,
    readonly listener: ProcessorListener,
  ) {}
  hasSynced(): boolean {
    return this.listener.hasSynced();
  }
}

export class SharedIndexInformer {
  private readonly indexer: Indexer;
  private readonly processor: SharedProcessor;
  private readonly emitFn: (e: TraceEvent) => void;
  /** Whether the sink keeps events: per-event trace work (the update comparison among it) is done only then. */
  private readonly tracing: boolean;
  /** The sink's TracePacker, if it has one (the processor's distribute events and every listener's notify events go to it first). */
  private readonly packer: TracePacker | undefined;
  private readonly log: InformerLog;
  private readonly defaultHandlerResyncMs: number;
  private resyncCheckPeriodMs: number;
  private started = false;
  private stopped = false;
  private fifo: Queue | undefined;
  private reflector: ReflectorRunner | undefined;

  constructor(private readonly o: SharedInformerOptions) {
    this.emitFn = emitterOf(o.sink);
    this.tracing = isRecorded(o.sink);
    this.packer = packerOf(o.sink);
    this.log = new InformerLog(o.profile, o.clock, this.emitFn);
    this.defaultHandlerResyncMs = o.resyncPeriodMs ?? 0;
    this.resyncCheckPeriodMs = this.defaultHandlerResyncMs;
    this.indexer = newIndexer({
      keyFunc: deletionHandlingMetaNamespaceKeyFunc,
      indexers: o.indexers ?? { [NamespaceIndex]: metaNamespaceIndexFunc },
      tracksResourceVersion: this.usesAtomicFifo(),
      keepsEmptyIndexSets: o.profile.keepsEmptyIndexSets,
    });
    if (o.transform && !o.profile.hasSetTransform) throw new Error(`client-go ${o.profile.clientGo} has no SetTransform`);
    this.processor = new SharedProcessor(o.clock, this.emitFn, this.tracing, this.packer);
  }

  /** Before start, a period below the check period lowers it; after start it is raised to it. */
  addEventHandler(name: string, handler: ResourceEventHandler, resyncPeriodMs?: number): HandlerRegistration {
    if (this.stopped) throw new Error(`handler ${name} was not added to shared informer because it has stopped already`);
    const requested = resyncPeriodMs ?? this.defaultHandlerResyncMs;
    let period = requested;
    if (period > 0) {
      if (period < MINIMUM_RESYNC_PERIOD_MS) {
        this.log.resyncTooSmall(period, MINIMUM_RESYNC_PERIOD_MS);
        period = MINIMUM_RESYNC_PERIOD_MS;
      }
      if (period < this.resyncCheckPeriodMs) {
        if (this.started) {
          this.log.resyncBelowCheckAfterStart(period, this.resyncCheckPeriodMs);
          period = this.resyncCheckPeriodMs;
        } else {
          this.resyncCheckPeriodMs = period;
          const check = period;
          this.processor.resyncCheckPeriodChanged((p) => this.determineResyncPeriod(p, check));
        }
      }
    }
    const listener = new ProcessorListener({
      name,
      handler,
      clock: this.o.clock,
      emit: this.emitFn,
      requestedResyncMs: period,
      resyncPeriodMs: this.determineResyncPeriod(period, this.resyncCheckPeriodMs),
      hasInitialListFlag: this.o.profile.hasInitialListFlag,
      tracker: new SyncTracker(() => this.hasSynced()),
      tracing: this.tracing,
      packer: this.packer,
    });
    this.processor.addListener(listener);
    // Deltas are processed synchronously, so nothing can interleave with these synthetic adds
    // (client-go holds blockDeltas for the same reason).
    const existing = this.started ? this.indexer.list() : [];
    for (const obj of existing) {
      listener.add({ op: 'add', key: this.keyOf(obj), obj: obj as KubeObject, isInInitialList: true, isSync: false });
    }
    this.emitFn({
      t: this.o.clock.now(),
      type: 'handler.added',
      handler: name,
      requestedResyncMs: requested,
      effectiveResyncMs: listener.resyncPeriodMs,
      afterStart: this.started,
      syntheticAdds: existing.length,
    });
    return new Registration(name, listener);
  }

  removeEventHandler(reg: HandlerRegistration): void {
    if (!this.o.profile.hasRemoveEventHandler) throw new Error(`client-go ${this.o.profile.clientGo} has no RemoveEventHandler`);
    if (reg instanceof Registration) this.processor.removeListener(reg.listener);
  }

  /** AddIndexers: refused once stopped, and after start where the release does not allow it (Profile.addIndexersAfterStart). */
  addIndexers(indexers: Indexers): void {
    if (this.stopped) throw new Error('indexer was not added because it has stopped already');
    if (this.started && !this.o.profile.addIndexersAfterStart) throw new Error('informer has already started');
    this.indexer.addIndexers(indexers);
  }

  /** Resolves once the signal has aborted and the reflector, the pop loop and every listener have exited. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) {
      this.log.runTwice();
      return;
    }
    const factory: ReflectorFactory = this.o.reflectorFactory ?? ((config) => new Reflector(config));
    const fifo = this.buildFifo();
    this.fifo = fifo;
    this.reflector = factory({
      name: this.o.name ?? 'sharedIndexInformer',
      typeDescription: this.o.typeDescription ?? '*unstructured.Unstructured',
      listerWatcher: this.o.listerWatcher,
      store: fifo,
      profile: this.o.profile,
      clock: this.o.clock,
      sink: this.o.sink ?? nullSink,
      rand: this.o.rand,
      resyncPeriodMs: this.resyncCheckPeriodMs,
      shouldResync: () => this.processor.shouldResync(),
      expectedGVK: this.o.expectedGVK,
    });
    const controller = new Controller({
      queue: fifo,
      reflector: this.reflector,
      process: (deltas, isInInitialList) => this.processDeltas(deltas, isInInitialList),
      clock: this.o.clock,
      emit: this.emitFn,
    });
    this.started = true;
    const gates = this.o.profile.gates;
    this.emitFn({
      t: this.o.clock.now(),
      type: 'informer.start',
      profile: this.o.profile.name,
      fifo: gates.InOrderInformers ? 'RealFIFO' : 'DeltaFIFO',
      atomic: this.usesAtomicFifo(),
      watchList: gates.WatchListClient && this.o.listerWatcher.watchListSupported !== false,
      resyncCheckPeriodMs: this.resyncCheckPeriodMs,
    });
    this.processor.run();
    try {
      await controller.run(signal);
    } finally {
      // Listeners stop only after the controller, as in client-go.
      await this.processor.stop();
      this.stopped = true;
      this.emitFn({ t: this.o.clock.now(), type: 'informer.stop' });
    }
  }

  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  getIndexer(): Indexer {
    return this.indexer;
  }

  /** Nothing queued in the FIFO, nothing pending or running in any listener. */
  isIdle(): boolean {
    return (this.fifo === undefined || this.fifo.depthDeltas() === 0) && this.processor.isIdle();
  }

  private usesAtomicFifo(): boolean {
    return this.o.profile.gates.InOrderInformers && this.o.profile.gates.AtomicFIFO;
  }

  private buildFifo(): Queue {
    const p = this.o.profile;
    const common = {
      clock: this.o.clock,
      sink: this.o.sink,
      keyFunc: metaNamespaceKeyFunc,
      onSynced: () => this.emitFn({ t: this.o.clock.now(), type: 'synced' }),
      transform: this.o.transform,
    };
    if (p.gates.InOrderInformers) {
      const atomic = this.usesAtomicFifo();
      // Atomic RealFIFO reconciles against the indexer while processing, so it gets no knownObjects.
      return new RealFIFO({ ...common, atomic, knownObjects: atomic ? undefined : this.indexer, syncAfterProcess: p.realFifoSyncAfterProcess });
    }
    return new DeltaFIFO({
      ...common,
      knownObjects: this.indexer,
      emitDeltaTypeReplaced: p.replaceEmitsReplaced,
      replaceTombstonesQueuedKeys: p.replaceTombstonesQueuedKeys,
      dropsSyncAfterDelete: p.dropsSyncAfterDelete,
      initialPopulationCountsListItems: p.initialPopulationCountsListItems,
    });
  }

  /** handleDeltas / processDeltas (§4.2). Synchronous: it only writes the indexer and the listeners' buffers. */
  private processDeltas(deltas: Delta[], isInInitialList: boolean): void {
    for (const d of deltas) {
      switch (d.type) {
        case 'Sync':
        case 'Replaced':
        case 'Added':
        case 'Updated': {
          const obj = d.object as KubeObject;
          const old = this.indexer.get(obj);
          if (old !== undefined) {
            this.indexer.update(obj);
            this.onUpdate(old as KubeObject, obj, d.type);
          } else {
            this.indexer.add(obj);
            this.onAdd(obj, isInInitialList, d.type);
          }
          break;
        }
        case 'Deleted': {
          const obj = d.object as StoreObject;
          this.indexer.delete(obj);
          this.onDelete(obj);
          break;
        }
        case 'ReplacedAll':
          this.processReplacedAll(d.objects ?? [], d.resourceVersion ?? '', isInInitialList);
          break;
        case 'SyncAll':
          // The rest of the Deltas is ignored; in practice a SyncAll always comes alone.
          for (const obj of this.indexer.list()) this.onUpdate(obj as KubeObject, obj as KubeObject, 'Sync');
          return;
        case 'Bookmark':
          this.indexer.bookmark(d.resourceVersion ?? '');
          break;
      }
    }
  }

  /** Atomic relist: tombstones for indexer keys not listed, one indexer Replace, then deletes, then adds/updates in list order. */
  private processReplacedAll(objects: KubeObject[], resourceVersion: string, isInInitialList: boolean): void {
    const newKeys = new Set(objects.map((o) => this.keyOf(o)));
    const tombstones: DeletedFinalStateUnknown[] = [];
    for (const key of this.indexer.listKeys()) {
      if (!newKeys.has(key)) tombstones.push(new DeletedFinalStateUnknown(key, this.indexer.getByKey(key) as KubeObject | undefined));
    }
    const replacements = objects.map((obj) => ({ obj, old: this.indexer.get(obj) as KubeObject | undefined }));
    this.indexer.replace(objects, resourceVersion);
    for (const t of tombstones) this.onDelete(t);
    for (const r of replacements) {
      if (r.old !== undefined) this.onUpdate(r.old, r.obj, 'Replaced');
      else this.onAdd(r.obj, isInInitialList, 'Replaced');
    }
  }

  private onAdd(obj: KubeObject, isInInitialList: boolean, type: DeltaType): void {
    const sync = this.o.profile.syncRule === 'delta-type' && type === 'Sync';
    const initial = this.o.profile.hasInitialListFlag && isInInitialList;
    this.processor.distribute({ op: 'add', key: this.keyOf(obj), obj, isInInitialList: initial, isSync: sync }, sync);
  }

  /** Never filtered by content: whether a listener gets it depends only on the sync rule and its syncing flag. */
  private onUpdate(oldObj: KubeObject, newObj: KubeObject, type: DeltaType): void {
    const oldLazy = lazyStateOf(oldObj);
    const newLazy = lazyStateOf(newObj);
    const sync =
      this.o.profile.syncRule === 'delta-type' ? type === 'Sync' : resourceVersionOfLazy(oldObj, oldLazy) === resourceVersionOfLazy(newObj, newLazy);
    // The comparison only feeds the trace (notify and distribute events); nobody sees it otherwise.
    const cmp = this.tracing ? compareUpdate(oldObj, newObj, oldLazy, newLazy) : UNTRACED;
    const n: Notification = { op: 'update', key: this.keyOf(newObj), oldObj, newObj, oldLazy, newLazy, isSync: sync, change: cmp.change };
    this.processor.distribute(n, sync, cmp.diff);
  }

  private onDelete(obj: StoreObject): void {
    this.processor.distribute({ op: 'delete', key: this.keyOf(obj), obj }, false);
  }

  private keyOf(obj: StoreObject): string {
    return deletionHandlingMetaNamespaceKeyFunc(obj);
  }

  private determineResyncPeriod(desired: number, check: number): number {
    if (desired === 0) return 0;
    if (check === 0) {
      this.log.resyncUnsupported(desired);
      return 0;
    }
    if (desired < check) {
      this.log.resyncIncreased(desired, check);
      return check;
    }
    return desired;
  }
}
