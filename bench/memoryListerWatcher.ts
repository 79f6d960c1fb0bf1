/**
 * An in-memory apiserver for one namespaced resource, for the benchmarks. It keeps only numbers
 * per object (resourceVersion, revision) and builds the objects when asked, so a LIST hands the
 * engine fresh objects that nothing else retains (the heap then measures what the cache keeps)
 * and a relist returns objects equal to the cached ones unless a watch event changed them.
 *
 * Watches follow a script queued with scheduleWatch(): N MODIFIED events, then either an ERROR
 * 410 Expired (the reflector relists) or a stream that stays open until stop(). Events come at
 * once, or `intervalMs` apart on the clock (so a recorded trace spreads over time as a busy
 * cluster's does, instead of piling onto a few instants of the FakeClock). A watch with
 * no script entry stays open and silent. Events of a watch are built before it is handed over,
 * so the engine's timing never includes building them; a gate holds delivery until release().
 */
import type { Clock } from '../src/engine/clock';
import type { ListerWatcher, ListOptions, ObjectList, StreamEnd, WatchEvent, Watcher } from '../src/engine/listWatch';
import type { KubeObject } from '../src/engine/objects';

export interface WatchScript {
  events: number;
  end: 'hold' | 'expire';
  /** Clock time between two events of this watch (needs the clock given to the constructor). */
  intervalMs?: number;
}

const NAMESPACES = ['default', 'team-a', 'team-b', 'team-c'];

/** A ConfigMap-like object of about 400 bytes of JSON, with labels and a data map. */
export function benchObject(i: number, rv: number, revision: number): KubeObject {
  const namespace = NAMESPACES[i % NAMESPACES.length];
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace,
      name: `settings-${i}`,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % 50}`, tier: i % 2 === 0 ? 'web' : 'worker' },
      annotations: { 'bench.informer-inspector/owner': 'bench' },
    },
    data: { revision: String(revision), mode: 'production', replicas: String(1 + (i % 5)), endpoint: `https://svc-${i % 50}.${namespace}.svc:8443/api` },
  };
}

/**
 * A Pod like the peer benchmark's (bench/peers), whose updates change what a kubelet's do: the
 * resourceVersion and the Ready condition's two timestamps; every third revision also the
 * container's restartCount and state, every fifth only the resourceVersion, every seventh a label.
 */
export function benchPod(i: number, rv: number, revision: number): KubeObject {
  const namespace = NAMESPACES[i % NAMESPACES.length];
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString().replace('.000Z', 'Z');
  const probe = revision % 5 === 4 ? at(revision - 1) : at(revision);
  const restarts = Math.floor(revision / 3);
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: `web-${i % 50}-7d9f8c6b5-${String(i).padStart(5, '0')}`,
      namespace,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % 50}`, tier: 'web', ...(revision % 7 === 6 ? { canary: 'true' } : {}) },
    },
    spec: { containers: [{ name: 'server', image: `registry.example.com/team/app-${i % 50}:v1.2.3`, ports: [{ name: 'http', containerPort: 8080 }] }], nodeName: `node-${i % 3}` },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True', lastProbeTime: probe, lastTransitionTime: probe },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: at(0) },
      ],
      containerStatuses: [{ name: 'server', state: { running: { startedAt: at(restarts) } }, ready: true, restartCount: restarts }],
    },
  };
}

/** Hands out events in order; `hold` keeps the stream open and silent once they are used up. */
class ScriptedWatcher implements Watcher {
  end?: StreamEnd;
  private next_ = 0;
  private wake?: () => void;
  /** Ends a pacing sleep when the watch is stopped (nobody advances the clock after that). */
  private readonly stopped = new AbortController();

  constructor(
    private readonly events: WatchEvent[],
    private readonly hold: boolean,
    private readonly gate: Promise<void>,
    private readonly pace?: { clock: Clock; ms: number },
  ) {}

  async next(): Promise<WatchEvent | null> {
    await this.gate;
    if (this.end) return null;
    if (this.pace && this.next_ < this.events.length) await this.pace.clock.sleep(this.pace.ms, this.stopped.signal).catch(() => undefined);
    if (this.end) return null;
    if (this.next_ < this.events.length) return this.events[this.next_++];
    if (!this.hold) {
      this.end = { kind: 'eof' };
      return null;
    }
    await new Promise<void>((resolve) => (this.wake = resolve));
    return null;
  }

  stop(): void {
    this.end ??= { kind: 'stopped' };
    this.stopped.abort();
    this.wake?.();
  }
}

export class MemoryListerWatcher implements ListerWatcher {
  readonly url = 'https://127.0.0.1:6443/api/v1/configmaps';
  /** The benchmarks compare FIFOs on the same LIST+WATCH path for every profile. */
  readonly watchListSupported = false;
  private rv = 1000;
  private readonly rvs: Float64Array;
  private readonly revisions: Uint32Array;
  private readonly scripts: WatchScript[] = [];
  private release_: () => void = () => undefined;
  private gate: Promise<void> = Promise.resolve();
  /** Watches opened so far. */
  watches = 0;

  constructor(
    readonly objects: number,
    private readonly clock?: Clock,
    /** The object at index i with its resourceVersion and revision (benchObject, or benchPod). */
    private readonly make: (i: number, rv: number, revision: number) => KubeObject = benchObject,
  ) {
    this.rvs = new Float64Array(objects);
    this.revisions = new Uint32Array(objects);
    for (let i = 0; i < objects; i++) this.rvs[i] = ++this.rv;
  }

  /** Queues the next watch's behaviour. */
  scheduleWatch(script: WatchScript): void {
    this.scripts.push(script);
  }

  /** Watches opened from now on deliver nothing until release(). */
  holdDelivery(): void {
    this.gate = new Promise<void>((resolve) => (this.release_ = resolve));
  }

  release(): void {
    this.release_();
  }

  async list(_o: ListOptions): Promise<ObjectList> {
    const items: KubeObject[] = new Array(this.objects);
    for (let i = 0; i < this.objects; i++) items[i] = this.make(i, this.rvs[i], this.revisions[i]);
    return { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: String(this.rv) }, items };
  }

  async watch(): Promise<Watcher> {
    this.watches++;
    const script = this.scripts.shift() ?? { events: 0, end: 'hold' };
    const events: WatchEvent[] = new Array(script.events);
    for (let k = 0; k < script.events; k++) {
      const i = k % this.objects;
      this.rvs[i] = ++this.rv;
      this.revisions[i]++;
      events[k] = { type: 'MODIFIED', object: this.make(i, this.rvs[i], this.revisions[i]) };
    }
    if (script.end === 'expire') {
      const message = `too old resource version: ${this.rv} (${this.rv + 1})`;
      events.push({ type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message } as unknown as KubeObject });
    }
    const pace = script.intervalMs && this.clock ? { clock: this.clock, ms: script.intervalMs } : undefined;
    return new ScriptedWatcher(events, script.end === 'hold', this.gate, pace);
  }
}
