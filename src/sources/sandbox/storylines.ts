/**
 * The sandbox's built-in scripts. Each storyline keeps a modest, deterministic churn of
 * ConfigMaps (and now and then a Widget) going and adds one kind of trouble on a schedule
 * short enough to show within a minute:
 * - restart-storm: the apiserver restarts (connections dropped, refused for a few seconds).
 *   Profile v1.15 relists after the refused re-watch and delivers identical updates; v1.36
 *   backs off and re-watches.
 * - etcd-lost-delete: an object vanishes from storage without a DELETED event; the watch cache
 *   then reinitialises, the client's re-watch gets 410 and its relist yields a tombstone.
 * - watch-expiry: the watch cache reinitialises repeatedly; every re-watch gets 410 Expired
 *   `too old resource version` and relists.
 * - calm: churn only; watches end at their timeoutSeconds and resume.
 * Every timer belongs to the storyline and stop() cancels them all.
 */
import type { Clock, TimerHandle } from '../../engine/clock';
import type { KubeObject } from '../../engine/objects';
import { seededRand } from '../seededRand';
import { objectKey, type SandboxStorage } from './storage';

export const STORYLINES = ['restart-storm', 'etcd-lost-delete', 'watch-expiry', 'calm'] as const;
export type StorylineName = (typeof STORYLINES)[number];
export const DEFAULT_STORYLINE: StorylineName = 'restart-storm';

export function isStorylineName(name: string): name is StorylineName {
  return (STORYLINES as readonly string[]).includes(name);
}

export const STORYLINE_DESCRIPTIONS: Record<StorylineName, string> = {
  'restart-storm': 'the apiserver restarts every 20 s (refusing connections for 3 s): relists and identical updates under v1.15, re-watches under v1.36',
  'etcd-lost-delete': 'a delete is lost by etcd (no DELETED event); the next relist turns it into a DeletedFinalStateUnknown tombstone',
  'watch-expiry': 'the watch cache is compacted every 15 s: re-watches get 410 "too old resource version" and relist',
  calm: 'steady churn only; watches end at their timeoutSeconds and resume',
};

/** What a storyline may do to the sandbox. */
export interface StoryControls {
  storage: SandboxStorage;
  clock: Clock;
  restartApiserver(downMs: number): Promise<void>;
  /** Ends every open watch cleanly (the cacher's reaction to a watch-cache reinitialisation). */
  endWatches(): void;
  log(line: string): void;
}

/** Schedule of one storyline; all times in ms from the sandbox start. */
export const TIMINGS = {
  churnEveryMs: 2000,
  restartFirstAtMs: 8000,
  restartEveryMs: 20_000,
  restartDownMs: 3000,
  lostDeleteFirstAtMs: 6000,
  lostDeleteCycleMs: 30_000,
  /** Within a lost-delete cycle: create the victim at 0, lose its delete, then force the relist. */
  lostDeleteAfterMs: 6000,
  relistAfterLossMs: 6000,
  expiryFirstAtMs: 8000,
  expiryEveryMs: 15_000,
} as const;

const NAMESPACES = ['default', 'team-a', 'team-b'];
const CONFIGMAPS = 'configmaps';
const MIN_CONFIGMAPS = 9;
const MAX_CONFIGMAPS = 15;

function configMap(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return { metadata: { namespace, name, labels: { app: name.split('-')[0], tier: namespace === 'default' ? 'shared' : 'team' } }, data };
}

/** The objects every sandbox starts with. */
export function seedSandbox(storage: SandboxStorage): void {
  for (const ns of NAMESPACES) storage.create('namespaces', { metadata: { name: ns }, status: { phase: 'Active' } });
  const names = ['web-config', 'feature-flags', 'db-settings', 'cache-tuning'];
  for (const ns of NAMESPACES) for (const name of names) storage.create(CONFIGMAPS, configMap(ns, name, { revision: '1' }));
  for (const ns of NAMESPACES.slice(1)) {
    storage.create('pods', {
      metadata: { namespace: ns, name: `worker-${ns}`, labels: { app: 'worker' } },
      spec: { containers: [{ name: 'worker', image: 'registry.example/worker:1.0' }] },
      status: { phase: 'Running' },
    });
  }
  for (const [ns, name] of [['default', 'blue'], ['team-a', 'green'], ['team-b', 'red']]) {
    storage.create('widgets.demo.example.com', { metadata: { namespace: ns, name }, spec: { size: 1 } });
  }
}

/** Runs one storyline until stop(). */
export class Storyline {
  private readonly timers = new Set<TimerHandle>();
  /** Seeded, so every run of a storyline makes the same changes. */
  private readonly random = seededRand(20260101);
  private stopped = false;
  private tick = 0;
  private victims = 0;

  constructor(
    readonly name: StorylineName,
    private readonly c: StoryControls,
  ) {}

  start(): void {
    this.c.log(`storyline ${this.name}: ${STORYLINE_DESCRIPTIONS[this.name]}`);
    this.every(TIMINGS.churnEveryMs, TIMINGS.churnEveryMs, () => this.churn());
    if (this.name === 'restart-storm') {
      this.every(TIMINGS.restartFirstAtMs, TIMINGS.restartEveryMs, () => void this.c.restartApiserver(TIMINGS.restartDownMs));
    } else if (this.name === 'etcd-lost-delete') {
      this.every(TIMINGS.lostDeleteFirstAtMs, TIMINGS.lostDeleteCycleMs, () => this.lostDeleteCycle());
    } else if (this.name === 'watch-expiry') {
      this.every(TIMINGS.expiryFirstAtMs, TIMINGS.expiryEveryMs, () => this.reinitialiseWatchCache());
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
  }

  /** Ends all watches, lets a few writes land that no watcher sees, then compacts past them. */
  reinitialiseWatchCache(): void {
    const { storage } = this.c;
    this.c.endWatches();
    // Same synchronous turn as endWatches: no re-watch can arrive before the compaction, so
    // every client's last RV is now older than the window.
    this.churn();
    this.churn();
    storage.compact();
    this.c.log(`watch cache reinitialised after etcd compaction at RV ${storage.currentRV}: open watches ended; re-watches from older RVs get 410 Expired`);
  }

  private lostDeleteCycle(): void {
    const { storage } = this.c;
    const key = objectKey('team-a', `doomed-config-${++this.victims}`);
    const [namespace, name] = key.split('/');
    storage.create(CONFIGMAPS, configMap(namespace, name, { note: 'etcd will lose the delete of this object' }));
    this.c.log(`created configmap ${key}`);
    this.after(TIMINGS.lostDeleteAfterMs, () => {
      storage.delete(CONFIGMAPS, key, { lost: true });
      this.c.log(`etcd lost the delete of configmap ${key} (RV ${storage.currentRV}): it is gone from storage but no DELETED event was sent`);
      this.after(TIMINGS.relistAfterLossMs, () => this.reinitialiseWatchCache());
    });
  }

  /** One deterministic change: mostly updates, creates/deletes keep the count in bounds. */
  private churn(): void {
    const { storage } = this.c;
    this.tick++;
    if (this.tick % 5 === 0) {
      const widgets = storage.keys('widgets.demo.example.com');
      const key = widgets[this.tick % widgets.length];
      storage.update('widgets.demo.example.com', key, (w) => ({ ...w, spec: { size: this.tick % 7 } }));
      return;
    }
    const keys = storage.keys(CONFIGMAPS).filter((k) => !k.includes('doomed-config'));
    const roll = this.random();
    if (keys.length < MIN_CONFIGMAPS || (roll < 0.15 && keys.length < MAX_CONFIGMAPS)) {
      const ns = NAMESPACES[Math.floor(this.random() * NAMESPACES.length)];
      const name = `job-${this.tick}-settings`;
      storage.create(CONFIGMAPS, configMap(ns, name, { revision: '1' }));
    } else if (keys.length > MAX_CONFIGMAPS || roll < 0.3) {
      storage.delete(CONFIGMAPS, keys[Math.floor(this.random() * keys.length)]);
    } else {
      const key = keys[Math.floor(this.random() * keys.length)];
      storage.update(CONFIGMAPS, key, (cm) => ({ ...cm, data: { ...(cm.data as Record<string, string>), revision: String(this.tick) } }));
    }
  }

  private after(ms: number, fn: () => void): void {
    const handle = this.c.clock.setTimer(ms, () => {
      this.timers.delete(handle);
      if (!this.stopped) fn();
    });
    this.timers.add(handle);
  }

  /** Runs fn at firstMs and then every periodMs, until stop(). */
  private every(firstMs: number, periodMs: number, fn: () => void): void {
    this.after(firstMs, () => {
      fn();
      this.every(periodMs, periodMs, fn);
    });
  }
}
