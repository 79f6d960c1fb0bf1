/**
 * Replays a scenario through a shared informer in virtual time and produces the notification
 * log (contracts §2) plus the engine's trace events. The informer is built by a factory so that
 * this file depends only on the informer's contract (src/engine/sharedInformer.ts, see
 * engineReplay.ts for the binding), which also lets unit tests drive it with a small fake.
 *
 * Determinism: the clock is a FakeClock started at 0 and the informer gets a seeded rand, so
 * one scenario, profile and seed always give the same log.
 */
import { FakeClock, settle, type Clock } from '../engine/clock';
import type { EventSink, TraceEvent } from '../format/events';
import type { ListerWatcher } from '../engine/listWatch';
import { isTombstone, resourceVersionOf, type KubeObject, type StoreObject } from '../engine/objects';
import { withGates, type Profile } from '../engine/profiles';
import { deletionHandlingMetaNamespaceKeyFunc } from '../engine/store';
import { canonicalOrder, virtualMs, type LogLine, type NotifyLine } from '../scenario/notificationLog';
import { objectDigest } from '../scenario/objectDigest';
import { ScriptedServer } from './scriptedServer';
import { seededRand } from './seededRand';
import type { HandlerSpec, Scenario } from '../scenario/types';
import { indexersFor, runActions, type ActionTarget } from './replayActions';

/** The jitter source a replay runs on (options.seed); also what tests seed live runs with. */
export { seededRand };

/** The part of ResourceEventHandler (sharedInformer.ts) that replay registers. */
export interface ReplayHandler {
  onAdd(obj: KubeObject, isInInitialList: boolean): void | Promise<void>;
  onUpdate(oldObj: KubeObject, newObj: KubeObject): void | Promise<void>;
  onDelete(obj: StoreObject): void | Promise<void>;
}

/** The part of SharedIndexInformer that replay uses. */
export interface ReplayInformer {
  addEventHandler(name: string, h: ReplayHandler, resyncPeriodMs?: number): unknown;
  run(signal: AbortSignal): Promise<void>;
  hasSynced(): boolean;
  /** Nothing queued in the FIFO, nothing pending or running in any listener. */
  isIdle(): boolean;
  /** The informer's store (for the v2 log's final `store` line) and its indexes (the `index` line). */
  getIndexer?(): { list(): StoreObject[]; listIndexFuncValues?(name: string): string[]; indexKeys?(name: string, value: string): string[] };
  /** Scenario actions (extension); absent on informers that cannot do them. */
  removeEventHandler?(reg: never): void;
  addIndexers?(indexers: Record<string, (obj: StoreObject) => string[]>): void;
}

export interface ReplayInformerOptions {
  listerWatcher: ListerWatcher;
  profile: Profile;
  clock: Clock;
  sink: EventSink;
  rand: () => number;
  resyncPeriodMs: number;
  typeDescription: string;
  name: string;
  /** The scenario's transform (catalogue.ts), set before start. */
  transform?: (obj: KubeObject) => KubeObject;
  /** The scenario's indexers (catalogue.ts), given at construction; absent: the informer's default. */
  indexers?: Record<string, (obj: StoreObject) => string[]>;
}

export type InformerFactory = (o: ReplayInformerOptions) => ReplayInformer;

/** What a replay transport gets to build the ListerWatcher the informer talks to. */
export interface ReplayTransportContext {
  /** The scenario's server (its steps, request lines, end of run). */
  scripted: ScriptedServer;
  scenario: Scenario;
  clock: FakeClock;
  /** The profile with the scenario's gates applied. */
  profile: Profile;
  sink: EventSink;
  /** Aborts when the run stops. */
  runSignal: AbortSignal;
}

/**
 * Builds the informer's ListerWatcher over the scripted server. Absent: the informer talks to
 * the ListerWatcher-level server directly (sandbox, replay). The conformance engine side passes
 * one that runs the real HttpListerWatcher over in-memory HTTP (test/conformance/httpTransport.ts).
 */
export type ReplayTransport = (ctx: ReplayTransportContext) => ListerWatcher;

export interface ReplayOptions {
  /** How the informer reaches the scripted server (see ReplayTransport). */
  transport?: ReplayTransport;
  /** The profile to emulate; the scenario's gates are applied on top. */
  profile: Profile;
  /** Seed of the informer's rand (jitter, watch timeouts). Default 1. */
  seed?: number;
  /** Also receives every trace event as it happens (e.g. a trace recorder). */
  sink?: EventSink;
  /** Virtual time after which a run that has not ended is stopped. Default 24 h. */
  maxVirtualMs?: number;
  /** The informer's random numbers (jitter, watch timeouts); overrides `seed`. */
  rand?: () => number;
  /**
   * Write the notification log v2 (docs/notification-log-v2.md): `t` on every line, object
   * digests, the final `store` line, lines in canonicalOrder. Default: v1 lines.
   */
  logV2?: boolean;
}

/**
 * How the run finished: `ended` normally (steps exhausted or diverged); `limit` when virtual
 * time ran past maxVirtualMs; `blocked` when nothing could move any more (an engine bug);
 * `error` when the informer's run rejected.
 */
export type ReplayOutcome = 'ended' | 'limit' | 'blocked' | 'error';

export interface ReplayResult {
  log: LogLine[];
  events: TraceEvent[];
  diverged: boolean;
  outcome: ReplayOutcome;
  /** Set when outcome is `error`. */
  error?: string;
  /** Virtual ms at the end of the run. */
  durationMs: number;
}

/**
 * Wall-clock ms a run may go without any progress (and no timer) before it counts as blocked:
 * real I/O below the engine (in-memory HTTP, zlib on the thread pool) finishes in its own time.
 */
const STALL_WALL_MS = 2_000;

/** Turns of the event loop a run may go without any progress before it counts as blocked. */
const IDLE_POLL_LIMIT = 10_000;

export async function replayWith(factory: InformerFactory, scenario: Scenario, options: ReplayOptions): Promise<ReplayResult> {
  const profile = withGates(options.profile, scenario.gates);
  const clock = new FakeClock(0);
  const v2 = options.logV2 === true;
  const rawLog: LogLine[] = [];
  const handlerOrder: string[] = [];
  const log = {
    /** `at`: the virtual time to stamp (default now). */
    push(line: LogLine, at = clock.now()) {
      rawLog.push(v2 ? ({ ...line, t: virtualMs(at) } as LogLine) : line);
    },
    get length() {
      return rawLog.length;
    },
  };
  const events: TraceEvent[] = [];
  const sink: EventSink = {
    emit(e) {
      events.push(e);
      options.sink?.emit(e);
      // v2 gives `synced` its exact instant: every FIFO step emits a trace event.
      if (v2) checkSynced();
    },
  };
  const stop = new AbortController();
  let informer: ReplayInformer | undefined;
  let synced = false;
  let diverged = false;
  let ended = false;
  let runError: unknown;

  const checkSynced = () => {
    if (!synced && informer?.hasSynced()) {
      synced = true;
      log.push({ kind: 'synced' });
    }
  };
  const notify = (line: NotifyLine) => {
    checkSynced();
    log.push(line);
  };
  const waitIdle = async () => {
    for (let i = 0; informer && !informer.isIdle() && i < IDLE_POLL_LIMIT; i++) await settle(1);
  };
  const registrations = new Map<string, unknown>();
  const addHandler = (h: HandlerSpec) => {
    if (!handlerOrder.includes(h.name)) handlerOrder.push(h.name);
    const reg = informer?.addEventHandler(h.name, slowedBy(loggingHandler(h.name, profile, notify, v2), h.delayMs ?? 0, clock), h.resyncPeriodMs);
    registrations.set(h.name, reg);
    return reg;
  };
  const indexNames = new Set(Object.keys(scenario.informer.indexers ?? {}));
  let endRun: () => void = () => undefined;
  // One jitter source for every informer of the run, as client-go's informers share math/rand.
  const rand = options.rand ?? seededRand(options.seed ?? 1);
  /** Every informer's run (a restart action adds one); the current informer's stop. */
  const runs: Promise<void>[] = [];
  let stopCurrent = new AbortController();
  stop.signal.addEventListener('abort', () => stopCurrent.abort(), { once: true });

  const server = new ScriptedServer(scenario, clock, {
    onRequest(line) {
      checkSynced();
      log.push(line);
    },
    async addHandler(h) {
      await waitIdle();
      addHandler(h);
    },
    onEnd(divergence) {
      if (divergence) {
        diverged = true;
        log.push(divergence);
      }
      void (async () => {
        await waitIdle();
        checkSynced();
        // index, store and end carry the instant the informer was found idle and stopped.
        const stoppedAt = clock.now();
        stop.abort();
        await Promise.all(runs);
        if (v2 && indexNames.size) log.push(indexLine(), stoppedAt);
        if (v2) log.push(storeLine(), stoppedAt);
        log.push({ kind: 'end' }, stoppedAt);
        ended = true;
      })();
    },
  }, profile);

  const listerWatcher = options.transport ? options.transport({ scripted: server, scenario, clock, profile, sink, runSignal: stop.signal }) : server;
  /**
   * A fresh informer on the same server (the scenario's transform, indexers and handlers), run
   * until the run stops or a restart action replaces it.
   */
  const startInformer = () => {
    informer = factory({
      listerWatcher,
      profile,
      clock,
      sink,
      rand,
      resyncPeriodMs: scenario.informer.resyncPeriodMs ?? 0,
      typeDescription: '*unstructured.Unstructured',
      name: `scenario/${scenario.name}`,
      ...indexersFor(scenario),
    });
    registrations.clear();
    for (const h of scenario.informer.handlers) addHandler(h);
    runs.push(
      informer.run(stopCurrent.signal).catch((e: unknown) => {
        runError = e;
      }),
    );
  };
  startInformer();
  endRun = () => server.endNow();
  const target: ActionTarget = {
    // The current informer: a restart action replaces it.
    get informer() {
      return informer as ReplayInformer;
    },
    addHandler,
    registration: (name) => registrations.get(name),
    indexAdded: (name) => indexNames.add(name),
    stop: () => endRun(),
    restart: async () => {
      // client-go cannot run a stopped informer again: a new one takes its place once the
      // stopped one's run has returned (so its reflector's last backoff draw comes first). Its
      // synced line, registrations and added indexes go with it.
      const stopped = runs[runs.length - 1];
      stopCurrent.abort();
      await stopped;
      stopCurrent = new AbortController();
      synced = false;
      indexNames.clear();
      for (const name of Object.keys(scenario.informer.indexers ?? {})) indexNames.add(name);
      startInformer();
    },
  };
  void runActions(scenario.actions ?? [], clock, stop.signal, target);

  let outcome = await driveClock(clock, () => ended || runError !== undefined, options.maxVirtualMs ?? 24 * 3600_000, () => log.length + events.length);
  if (runError !== undefined) outcome = 'error';
  if (!ended) {
    // Stop what is left; whatever still runs after that is not waited for.
    stop.abort();
    await Promise.race([Promise.all(runs), settle(20)]);
    if (v2) log.push(storeLine());
    log.push({ kind: 'end' });
  }
  function indexLine(): LogLine {
    const idx = informer?.getIndexer?.();
    const indexes: Record<string, Record<string, string[]>> = {};
    for (const name of [...indexNames].sort()) {
      const values: Record<string, string[]> = {};
      for (const v of [...(idx?.listIndexFuncValues?.(name) ?? [])].sort()) values[v] = [...(idx?.indexKeys?.(name, v) ?? [])].sort();
      indexes[name] = values;
    }
    return { kind: 'index', indexes };
  }
  function storeLine(): LogLine {
    const objects: Record<string, string> = {};
    for (const o of informer?.getIndexer?.().list() ?? []) objects[keyOf(o)] = objectDigest(isTombstone(o) ? o.obj : o);
    return { kind: 'store', objects };
  }
  return {
    log: v2 ? canonicalOrder(rawLog, handlerOrder) : rawLog,
    events,
    diverged,
    outcome: ended && runError === undefined ? 'ended' : outcome,
    ...(runError !== undefined ? { error: runError instanceof Error ? runError.message : String(runError) } : {}),
    durationMs: clock.now(),
  };
}

/**
 * runUntilIdle until `done`, tolerating moments where no timer is pending but promise chains are
 * still moving (e.g. the end of the run stopping the informer): only a stretch with neither
 * timers nor progress counts as blocked.
 */
async function driveClock(clock: FakeClock, done: () => boolean, maxMs: number, progress: () => number): Promise<ReplayOutcome> {
  const limit = clock.now() + maxMs;
  let stalls = 0;
  let stalledSince = Date.now();
  for (;;) {
    const before = progress();
    const r = await clock.runUntilIdle(done, Math.max(0, limit - clock.now()));
    if (r === 'done') return 'ended';
    if (r === 'limit') return 'limit';
    await settle(5);
    if (done()) return 'ended';
    if (progress() !== before || clock.pendingTimers() > 0 || clock.held()) {
      stalls = 0;
      stalledSince = Date.now();
    } else if (++stalls > 20 && Date.now() - stalledSince > STALL_WALL_MS) return 'blocked';
  }
}

/** A handler that records each call as a notify line (field rules in docs/scenario-format.md). */
export function loggingHandler(name: string, profile: Profile, notify: (line: NotifyLine) => void, digests = false): ReplayHandler {
  const digest = (o: StoreObject) => (digests ? { digest: objectDigest(isTombstone(o) ? o.obj : o) } : {});
  return {
    onAdd(obj, isInInitialList) {
      notify({
        kind: 'notify',
        handler: name,
        op: 'add',
        key: keyOf(obj),
        rv: resourceVersionOf(obj),
        ...(profile.hasInitialListFlag ? { initialList: isInInitialList } : {}),
        ...digest(obj),
      });
    },
    onUpdate(oldObj, newObj) {
      notify({
        kind: 'notify',
        handler: name,
        op: 'update',
        key: keyOf(newObj),
        oldRv: resourceVersionOf(oldObj),
        rv: resourceVersionOf(newObj),
        ...(digests ? { oldDigest: objectDigest(oldObj) } : {}),
        ...digest(newObj),
      });
    },
    onDelete(obj) {
      notify({
        kind: 'notify',
        handler: name,
        op: 'delete',
        key: keyOf(obj),
        rv: resourceVersionOf(obj),
        ...(isTombstone(obj) ? { tombstone: true } : {}),
        ...digest(obj),
      });
    },
  };
}

/**
 * delayMs (docs/scenario-format.md): each call logs first, then takes `delayMs` of virtual time.
 * The listener awaits the call, so the handler falls behind while the informer goes on.
 */
export function slowedBy(h: ReplayHandler, delayMs: number, clock: Clock): ReplayHandler {
  if (delayMs <= 0) return h;
  return {
    onAdd: (obj, isInInitialList) => after(h.onAdd(obj, isInInitialList), delayMs, clock),
    onUpdate: (oldObj, newObj) => after(h.onUpdate(oldObj, newObj), delayMs, clock),
    onDelete: (obj) => after(h.onDelete(obj), delayMs, clock),
  };
}

async function after(call: void | Promise<void>, delayMs: number, clock: Clock): Promise<void> {
  await call;
  await clock.sleep(delayMs);
}

/** The informer indexer's key (tombstones give their own key); "" when the object has no meta. */
function keyOf(obj: StoreObject): string {
  try {
    return deletionHandlingMetaNamespaceKeyFunc(obj);
  } catch {
    return '';
  }
}
