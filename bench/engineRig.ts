/**
 * One informer as the benchmarks run it: the real Reflector, FIFO, Indexer and listeners of the
 * chosen profile over a MemoryListerWatcher, on a FakeClock (backoff and resync cost no wall
 * time), with handlers that only count. The sink is either the null sink or a TraceRecorder.
 */
import { FakeClock } from '../src/engine/clock';
import type { EventSink } from '../src/format/events';
import { nullSink } from '../src/engine/sink';
import { findProfile, type Profile } from '../src/engine/profiles';
import { SharedIndexInformer } from '../src/engine/sharedInformer';
import { TraceRecorder } from '../src/trace/recorder';
import type { TraceHeader } from '../src/format/trace';
import { MemoryListerWatcher } from './memoryListerWatcher';

export const BENCH_PROFILES = ['v1.15', 'v1.32', 'v1.34', 'v1.36'] as const;
export type BenchProfile = (typeof BENCH_PROFILES)[number];

export function profile(name: BenchProfile): Profile {
  const p = findProfile(name);
  if (!p) throw new Error(`no profile ${name}`);
  return p;
}

/** The header a recorder needs; the fields only label the trace. */
export function benchHeader(profileName: string, cap?: number): Omit<TraceHeader, 'dropped'> {
  const p = profile(profileName as BenchProfile);
  return {
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: '0.1.0' },
    profile: p.name,
    gates: { ...p.gates },
    resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    source: 'scenario',
    startedAt: '2026-01-01T00:00:00.000Z',
    cap: cap ?? 200_000,
    redacted: true,
  };
}

export interface RigOptions {
  profile: BenchProfile;
  objects: number;
  handlers: number;
  sink: 'null' | 'recorder';
  recorderCap?: number;
  /** The recorder implementation (default: the working tree's; the bench may pass a baseline revision's). */
  recorderClass?: typeof TraceRecorder;
}

/**
 * Virtual time, except that a zero-delay sleep (a woken FIFO Pop yielding until the producer's
 * burst at this instant is queued) is one macrotask turn instead of a FakeClock timer: the same
 * order (every microtask of the burst runs first) without a runUntilIdle round per hop, whose
 * cost would otherwise swamp the computation being measured.
 */
class BenchClock extends FakeClock {
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms > 0) return super.sleep(ms, signal);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) reject(new Error('aborted'));
      else setImmediate(resolve);
    });
  }
}

export class EngineRig {
  readonly clock: FakeClock = new BenchClock();
  readonly lw: MemoryListerWatcher;
  readonly informer: SharedIndexInformer;
  readonly recorder?: TraceRecorder;
  /** Update notifications per handler. */
  readonly updates: number[];
  private readonly abort = new AbortController();
  private running?: Promise<void>;
  private waiter?: { count: number; resolve: () => void };

  constructor(o: RigOptions) {
    this.lw = new MemoryListerWatcher(o.objects, this.clock);
    const Recorder = o.recorderClass ?? TraceRecorder;
    this.recorder = o.sink === 'recorder' ? new Recorder(benchHeader(o.profile, o.recorderCap), o.recorderCap) : undefined;
    const sink: EventSink = this.recorder ?? nullSink;
    this.informer = new SharedIndexInformer({ listerWatcher: this.lw, profile: profile(o.profile), clock: this.clock, sink, rand: () => 0.5, name: 'bench' });
    this.updates = new Array<number>(o.handlers).fill(0);
    for (let h = 0; h < o.handlers; h++) {
      this.informer.addEventHandler(`handler-${h}`, {
        onUpdate: () => {
          this.updates[h]++;
          this.checkWaiter();
        },
      });
    }
  }

  start(): void {
    this.running = this.informer.run(this.abort.signal);
  }

  /** Runs virtual time until the initial list has been handed to every handler and a watch is open. */
  async untilSyncedAndWatching(): Promise<void> {
    const r = await this.clock.runUntilIdle(() => this.informer.hasSynced() && this.lw.watches > 0 && this.informer.isIdle(), 3_600_000);
    if (r !== 'done') throw new Error(`the informer did not sync (${r})`);
  }

  /** Resolves once every handler has seen `count` updates in total. */
  updatesReached(count: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiter = { count, resolve };
      this.checkWaiter();
    });
  }

  /** Stops the informer; virtual time keeps running until it has (a paced watch may be mid-sleep). */
  async stop(): Promise<void> {
    this.abort.abort();
    let finished = false;
    const done = this.running?.then(() => void (finished = true));
    await this.clock.runUntilIdle(() => finished, 3_600_000);
    await done;
  }

  private checkWaiter(): void {
    const w = this.waiter;
    if (w && this.updates.every((n) => n >= w.count)) {
      this.waiter = undefined;
      w.resolve();
    }
  }
}
