/**
 * Test doubles for the reflector: a scripted ListerWatcher that answers calls in order from a
 * step list (like the scenario format, but in-process), a store that records what it was told,
 * and a sink that records trace events. Time is a FakeClock; nothing sleeps for real.
 */
import { abortError, FakeClock } from '../../../src/engine/clock';
import type { ReflectorStore } from '../../../src/engine/fifo';
import {
  StatusError,
  TransportError,
  transportErrorText,
  type ListerWatcher,
  type ListOptions,
  type ObjectList,
  type Status,
  type StreamEnd,
  type TransportErrorKind,
  type WatchEvent,
  type Watcher,
  type WatchOptions,
} from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { findProfile, withGates, type Gates, type Profile } from '../../../src/engine/profiles';
import { Reflector, type ReflectorOptions } from '../../../src/engine/reflector';
import { CaptureSink } from './informerFixtures';

export const URL = 'https://127.0.0.1:6443/api/v1/configmaps';

export type Step =
  | { on: 'list'; rv: string; items?: KubeObject[]; continue?: string; kind?: string; apiVersion?: string }
  | { on: 'list' | 'watch'; status: Status }
  | { on: 'list' | 'watch'; network: TransportErrorKind }
  /** A watch stream: events at open (or at atMs), closing `durationMs` after open as `close` says. */
  | { on: 'watch'; events?: (WatchEvent & { atMs?: number })[]; close?: StreamEnd['kind'] | 'never'; durationMs?: number; endMessage?: string; openDelayMs?: number };

export function cm(name: string, rv: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, resourceVersion: rv }, ...extra };
}

export function bookmark(rv: string, initialEventsEnd = false): WatchEvent {
  return {
    type: 'BOOKMARK',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: rv, ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) } },
  };
}

export function errorEvent(status: Status): WatchEvent {
  return { type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', ...status } as unknown as KubeObject };
}

export const expired: Status = { code: 410, reason: 'Expired', message: 'too old resource version: 5 (10)' };
export const gone: Status = { code: 410, reason: 'Gone', message: 'gone' };
export const tooMany: Status = { code: 429, reason: 'TooManyRequests', message: 'too many requests, please try again later' };
export const tooLarge: Status = {
  code: 504,
  reason: 'Timeout',
  message: 'Timeout: Too large resource version: 99, current: 20',
  details: { causes: [{ type: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
};

class ScriptedWatcher implements Watcher {
  private queue: WatchEvent[] = [];
  private waiters: ((e: WatchEvent | null) => void)[] = [];
  private closed = false;
  private timers: { cancel(): void }[] = [];
  end?: StreamEnd;

  constructor(clock: FakeClock, step: Extract<Step, { on: 'watch'; events?: unknown }>) {
    const duration = step.durationMs ?? 1500;
    for (const e of step.events ?? []) {
      if (e.atMs === undefined) this.queue.push(e);
      else this.timers.push(clock.setTimer(e.atMs, () => this.push(e)));
    }
    if (step.close !== 'never') {
      const kind = step.close ?? 'eof';
      const end = (kind === 'reset' || kind === 'timeout' || kind === 'open-retries-exhausted'
        ? { kind, message: step.endMessage ?? 'read: connection reset by peer' }
        : { kind }) as StreamEnd;
      this.timers.push(clock.setTimer(duration, () => this.finish(end)));
    }
  }

  private push(e: WatchEvent): void {
    if (this.closed) return;
    const w = this.waiters.shift();
    if (w) w(e);
    else this.queue.push(e);
  }

  private finish(end: StreamEnd): void {
    if (this.closed) return;
    this.closed = true;
    this.end = end;
    for (const t of this.timers) t.cancel();
    // Events already queued are still delivered before the close, like a channel drained then closed.
    if (this.queue.length === 0) for (const w of this.waiters.splice(0)) w(null);
  }

  next(): Promise<WatchEvent | null> {
    const e = this.queue.shift();
    if (e) return Promise.resolve(e);
    if (this.closed) return Promise.resolve(null);
    return new Promise((r) => this.waiters.push(r));
  }

  stop(): void {
    this.queue = [];
    this.finish(this.end ?? { kind: 'stopped' });
    for (const w of this.waiters.splice(0)) w(null);
  }
}

export class ScriptedListerWatcher implements ListerWatcher {
  readonly url = URL;
  readonly calls: { verb: 'list' | 'watch'; options: ListOptions | WatchOptions }[] = [];
  readonly watchers: ScriptedWatcher[] = [];
  divergence: string | undefined;

  constructor(
    private readonly clock: FakeClock,
    private readonly steps: Step[],
    readonly watchListSupported?: boolean,
  ) {}

  /** Steps not yet consumed. */
  remaining(): number {
    return this.steps.length;
  }

  private take(verb: 'list' | 'watch', options: ListOptions | WatchOptions, signal: AbortSignal): Promise<Step> {
    this.calls.push({ verb, options: { ...options } });
    const step = this.steps[0];
    if (!step || step.on !== verb) {
      if (step) this.divergence = `expected ${step.on}, got ${verb}`;
      // Out of script: block until stopped, like the scenario server at the end of a run.
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(abortError()), { once: true }));
    }
    this.steps.shift();
    return Promise.resolve(step);
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList> {
    const step = await this.take('list', options, signal);
    if ('status' in step) throw new StatusError(step.status);
    if ('network' in step) throw new TransportError(step.network, transportErrorText(step.network, this.url));
    const s = step as Extract<Step, { on: 'list'; rv: string }>;
    return { apiVersion: s.apiVersion ?? 'v1', kind: s.kind ?? 'ConfigMapList', metadata: { resourceVersion: s.rv, ...(s.continue ? { continue: s.continue } : {}) }, items: s.items ?? [] };
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    const step = await this.take('watch', options, signal);
    if ('status' in step) throw new StatusError(step.status);
    if ('network' in step) throw new TransportError(step.network, transportErrorText(step.network, this.url));
    const s = step as Extract<Step, { on: 'watch'; events?: unknown }>;
    if (s.openDelayMs) await this.clock.sleep(s.openDelayMs, signal);
    const w = new ScriptedWatcher(this.clock, s);
    this.watchers.push(w);
    return w;
  }
}

export type StoreCall = { op: 'add' | 'update' | 'delete'; key: string; rv: string } | { op: 'replace'; keys: string[]; rv: string } | { op: 'resync' } | { op: 'bookmark'; rv: string };

export class MemoryStore implements ReflectorStore {
  readonly calls: StoreCall[] = [];
  failResync: Error | undefined;
  failReplace: Error | undefined;
  failAdd: Error | undefined;
  private static key(o: KubeObject): string {
    return `${o.metadata?.namespace ? o.metadata.namespace + '/' : ''}${o.metadata?.name ?? ''}`;
  }
  add(o: KubeObject): void {
    this.calls.push({ op: 'add', key: MemoryStore.key(o), rv: o.metadata?.resourceVersion ?? '' });
    if (this.failAdd) throw this.failAdd;
  }
  update(o: KubeObject): void {
    this.calls.push({ op: 'update', key: MemoryStore.key(o), rv: o.metadata?.resourceVersion ?? '' });
  }
  delete(o: KubeObject): void {
    this.calls.push({ op: 'delete', key: MemoryStore.key(o), rv: o.metadata?.resourceVersion ?? '' });
  }
  replace(list: KubeObject[], rv: string): void {
    if (this.failReplace) throw this.failReplace;
    this.calls.push({ op: 'replace', keys: list.map(MemoryStore.key), rv });
  }
  resync(): void {
    this.calls.push({ op: 'resync' });
    if (this.failResync) throw this.failResync;
  }
}

/** A store with the v0.36 ReflectorBookmarkStore method. */
export class BookmarkingStore extends MemoryStore {
  bookmark(rv: string): void {
    this.calls.push({ op: 'bookmark', rv });
  }
}

/** CaptureSink that also reads request events back. */
export class RecordingSink extends CaptureSink {
  /** request events as compact strings: "list rv=0 limit=500", "watch rv=10". */
  requests(): string[] {
    return this.of('request').map((r) => {
      const parts = [r.verb, `rv=${r.rv}`];
      if (r.limit) parts.push(`limit=${r.limit}`);
      if (r.continue) parts.push(`continue=${r.continue}`);
      if (r.sendInitialEvents) parts.push('sendInitialEvents');
      if (r.resourceVersionMatch) parts.push(`rvm=${r.resourceVersionMatch}`);
      return parts.join(' ');
    });
  }
}

/** A fixed-sequence rand (cycled); 0 gives the minimal jitter and a 300 s watch timeout. */
export function seq(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length];
}

export interface Rig {
  clock: FakeClock;
  lw: ScriptedListerWatcher;
  store: MemoryStore;
  sink: RecordingSink;
  reflector: Reflector;
  abort: AbortController;
  done: Promise<void>;
  /** Runs virtual time until `until` is true (or the script is out and everything is blocked). */
  runUntil(until: () => boolean, maxMs?: number): Promise<string>;
  /** Aborts and waits for run() to resolve; asserts nothing is left behind. */
  stop(): Promise<void>;
}

export function profile(name: string, gates?: Partial<Gates>): Profile {
  const p = findProfile(name);
  if (!p) throw new Error(`no profile ${name}`);
  return withGates(p, gates);
}

export function rig(
  steps: Step[],
  opts: Partial<Omit<ReflectorOptions, 'listerWatcher' | 'store' | 'clock' | 'sink'>> & { store?: MemoryStore; watchListSupported?: boolean; profileName?: string; gates?: Partial<Gates> } = {},
): Rig {
  const clock = new FakeClock(0);
  const lw = new ScriptedListerWatcher(clock, steps, opts.watchListSupported);
  const store = opts.store ?? new MemoryStore();
  const sink = new RecordingSink();
  const reflector = new Reflector({
    name: 'test-reflector',
    typeDescription: '/v1, Kind=ConfigMap',
    resyncPeriodMs: 0,
    rand: () => 0,
    ...opts,
    profile: opts.profile ?? profile(opts.profileName ?? 'v1.34', { WatchListClient: false, ...opts.gates }),
    listerWatcher: lw,
    store,
    clock,
    sink,
  });
  const abort = new AbortController();
  const done = reflector.run(abort.signal);
  return {
    clock,
    lw,
    store,
    sink,
    reflector,
    abort,
    done,
    runUntil: (until, maxMs = 3600_000) => clock.runUntilIdle(until, maxMs),
    stop: async () => {
      abort.abort();
      await clock.runUntilIdle(() => false, 1000);
      await done;
      if (clock.pendingTimers() !== 0) throw new Error(`${clock.pendingTimers()} timers left behind`);
    },
  };
}
