/**
 * One live inspection, assembled the same way for the CLI (`record`, `check-consistency`) and the
 * extension: HTTP ListerWatcher (GET only) → selectors → fault injector → engine
 * SharedIndexInformer, with a TraceRecorder as the sink, plus the consistency check on its Indexer.
 *
 * The consistency check lists through selectors → HTTP only: injected faults must not distort it,
 * and its LISTs are not the informer's. `wrapSource` lets a caller put something between the
 * informer and the fault injector (the CLI's request log), so a request the injector refuses is
 * still seen as sent.
 */
import { RealClock, type Clock } from '../engine/clock';
import type { ListerWatcher, ListOptions, WatchOptions } from '../engine/listWatch';
import type { Profile } from '../engine/profiles';
import { SharedIndexInformer } from '../engine/sharedInformer';
import { HttpListerWatcher, type ApiResource, type KubeConnection } from '../kube';
import { FaultInjectingListerWatcher } from '../sources/faults';
import { checkConsistency, type ConsistencyResult } from '../trace/consistency';
import { DEFAULT_TRACE_CAP, TraceRecorder } from '../trace/recorder';
import { TOOL_VERSION } from '../cli/version';

export interface LiveInformerOptions {
  conn: KubeConnection;
  resource: ApiResource;
  profile: Profile;
  /** "" = all namespaces. */
  namespace: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** The informer's default resync period; 0 = none. */
  resyncPeriodMs?: number;
  source: 'cluster' | 'sandbox';
  clock?: Clock;
  /** The engine's jitter source; default Math.random. */
  rand?: () => number;
  /** Trace recorder cap (events). */
  cap?: number;
  /** Wraps the informer's ListerWatcher (outside the fault injector), e.g. to log requests. */
  wrapSource?: (lw: ListerWatcher) => ListerWatcher;
}

export interface LiveInformer {
  clock: Clock;
  recorder: TraceRecorder;
  informer: SharedIndexInformer;
  faults: FaultInjectingListerWatcher;
  /** Aborts the consistency checks and slow handlers too. */
  readonly stopSignal: AbortSignal;
  /** Adds a handler that takes ms per notification, recorded as fault 'slowHandler'. */
  addSlowHandler(ms: number): void;
  checkConsistency(): Promise<ConsistencyResult>;
  start(): void;
  /** Stops the informer and waits for it and its handlers to end. */
  stop(): Promise<void>;
}

/** client-go's GroupVersionKind.String(): "/v1, Kind=ConfigMap" for the core group. */
export function typeDescription(r: Pick<ApiResource, 'group' | 'version' | 'kind'>): string {
  return `${r.group}/${r.version}, Kind=${r.kind}`;
}

/** "configmaps", or "widgets.demo.example.com" for a named group. */
export function resourceLabel(r: Pick<ApiResource, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

export function createLiveInformer(o: LiveInformerOptions): LiveInformer {
  const clock = o.clock ?? new RealClock();
  const r = o.resource;
  const cap = o.cap ?? DEFAULT_TRACE_CAP;
  const recorder = new TraceRecorder(
    {
      format: 'informer-trace/v1',
      tool: { name: 'informer-inspector', version: TOOL_VERSION },
      profile: o.profile.name,
      gates: { ...o.profile.gates },
      resource: { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced },
      ...(o.namespace ? { namespace: o.namespace } : {}),
      ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
      ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
      context: o.conn.context.name,
      source: o.source,
      startedAt: new Date().toISOString(),
      cap,
      redacted: true,
    },
    cap,
  );
  const http = withSelectors(new HttpListerWatcher(o.conn, r, { namespace: o.namespace, clock }), o.labelSelector, o.fieldSelector);
  const faults = new FaultInjectingListerWatcher(http, { clock, sink: recorder });
  const informer = new SharedIndexInformer({
    listerWatcher: o.wrapSource ? o.wrapSource(faults) : faults,
    profile: o.profile,
    clock,
    ...(o.rand ? { rand: o.rand } : {}),
    sink: recorder,
    resyncPeriodMs: o.resyncPeriodMs ?? 0,
    typeDescription: typeDescription(r),
    name: 'informer-inspector',
  });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let slowHandlers = 0;
  return {
    clock,
    recorder,
    informer,
    faults,
    stopSignal: stop.signal,
    addSlowHandler(ms) {
      const name = `slow-${++slowHandlers}`;
      recorder.emit({ t: clock.now(), type: 'fault.injected', fault: 'slowHandler', detail: `${name} takes ${ms} ms per notification` });
      const wait = () => clock.sleep(ms, stop.signal).catch(() => undefined);
      informer.addEventHandler(name, { onAdd: wait, onUpdate: wait, onDelete: wait });
    },
    checkConsistency: () =>
      checkConsistency({
        listerWatcher: http,
        cache: informer.getIndexer(),
        clock,
        sink: recorder,
        signal: stop.signal,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        lastSyncResourceVersion: () => informer.lastSyncResourceVersion(),
      }),
    start() {
      if (running) return;
      running = informer.run(stop.signal);
      // Marked handled here (a live session must never leave an unhandled rejection in the
      // extension host); stop() still reports it to its caller.
      running.catch(() => undefined);
    },
    async stop() {
      stop.abort();
      await running;
    },
  };
}

/** Adds the user's label/field selectors to every list and watch request. */
function withSelectors(lw: ListerWatcher, labelSelector: string | undefined, fieldSelector: string | undefined): ListerWatcher {
  if (!labelSelector && !fieldSelector) return lw;
  const sel = <T extends ListOptions | WatchOptions>(opts: T): T => ({
    ...opts,
    ...(labelSelector ? { labelSelector } : {}),
    ...(fieldSelector ? { fieldSelector } : {}),
  });
  return {
    url: lw.url,
    watchListSupported: lw.watchListSupported,
    list: (opts, signal) => lw.list(sel(opts), signal),
    watch: (opts, signal) => lw.watch(sel(opts), signal),
  };
}
