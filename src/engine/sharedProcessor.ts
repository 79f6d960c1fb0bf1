/**
 * sharedProcessor (client-go shared_informer.go, spec §2, §4.3): the set of listeners, each with
 * its "syncing" flag. A sync notification (a resync, or an update whose RV did not change) goes
 * only to listeners whose flag is set; everything else goes to all of them.
 */
import type { Clock } from './clock';
import type { FieldChange, TraceEvent } from '../format/events';
import type { TracePacker } from './sink';
import type { Notification, ProcessorListener } from './processorListener';
import { resourceVersionOf, resourceVersionOfLazy } from './objects';

export class SharedProcessor {
  /** listener → syncing. A new listener starts syncing so it sees the syncs until the first check. */
  private readonly listeners = new Map<ProcessorListener, boolean>();
  private readonly runs = new Map<ProcessorListener, Promise<void>>();
  private started = false;

  constructor(
    private readonly clock: Clock,
    private readonly emit: (e: TraceEvent) => void,
    /** Whether trace events are kept (isRecorded): the distribute events are built only then. */
    private readonly tracing = true,
    /** The sink's TracePacker, if it has one: an update's distribute event goes to it first. */
    private readonly packer?: TracePacker,
  ) {}

  addListener(l: ProcessorListener): void {
    this.listeners.set(l, true);
    if (this.started) this.runs.set(l, l.run());
  }

  removeListener(l: ProcessorListener): void {
    if (!this.listeners.delete(l)) return;
    l.stop();
  }

  all(): ProcessorListener[] {
    return [...this.listeners.keys()];
  }

  distribute(n: Notification, sync: boolean, diff?: FieldChange[]): void {
    let delivered = 0;
    let skipped = 0;
    for (const [l, syncing] of this.listeners) {
      if (sync && !syncing) {
        skipped++;
        continue;
      }
      l.add(n);
      delivered++;
    }
    if (!this.tracing) return;
    const t = this.clock.now();
    if (n.op === 'update') {
      const oldRv = resourceVersionOfLazy(n.oldObj, n.oldLazy);
      const rv = resourceVersionOfLazy(n.newObj, n.newLazy);
      if (this.packer?.packDistribute(t, 'update', n.key, sync, delivered, skipped, n.change, diff ?? [], oldRv, rv)) return;
      this.emit({ t, type: 'distribute', op: 'update', key: n.key, isSync: sync, delivered, skipped, change: n.change, diff: diff ?? [], oldRv, rv });
    } else {
      const rv = resourceVersionOf(n.obj);
      if (this.packer?.packDistribute(t, n.op, n.key, sync, delivered, skipped, undefined, undefined, undefined, rv)) return;
      this.emit({ t, type: 'distribute', op: n.op, key: n.key, isSync: sync, delivered, skipped, rv });
    }
  }

  /**
   * Sets every listener's syncing flag to "due now" and moves a due listener's next resync on.
   * True if any is due (the reflector then calls the FIFO's Resync).
   */
  shouldResync(): boolean {
    const now = this.clock.now();
    let any = false;
    for (const l of this.listeners.keys()) {
      const due = l.shouldResync(now);
      this.listeners.set(l, due);
      if (due) {
        any = true;
        l.determineNextResync(now);
      }
      this.emit({ t: now, type: 'resync.check', handler: l.name, due, nextResyncMs: l.nextResyncMs });
    }
    return any;
  }

  /**
   * Recomputes each listener's effective period after the informer's check period was lowered.
   * As in client-go, the next resync time already set is kept.
   */
  resyncCheckPeriodChanged(effective: (requested: number) => number): void {
    for (const l of this.listeners.keys()) l.resyncPeriodMs = effective(l.requestedResyncMs);
  }

  run(): void {
    this.started = true;
    for (const l of this.listeners.keys()) if (!this.runs.has(l)) this.runs.set(l, l.run());
  }

  isIdle(): boolean {
    for (const l of this.listeners.keys()) if (!l.isIdle()) return false;
    return true;
  }

  /** Stops every listener and resolves once each run loop has exited. */
  async stop(): Promise<void> {
    for (const l of this.listeners.keys()) l.stop();
    this.listeners.clear();
    await Promise.all(this.runs.values());
    this.runs.clear();
  }
}
