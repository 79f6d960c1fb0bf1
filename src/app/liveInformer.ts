/**
 * One live inspection, assembled the same way for the CLI (`record`, `check-consistency`) and the
 * extension: HTTP ListerWatcher (GET only) → selectors → fault injector → engine
 * SharedIndexInformer, with a TraceRecorder as the sink, plus the consistency check on its Indexer.
 *
 * The consistency check lists through selectors → HTTP only: injected faults must not distort it,
 * and its LISTs are not the informer's (so they stay out of the request log).
 */
import { RealClock, type Clock } from '../engine/clock';
import type { ListerWatcher, ListOptions, WatchOptions } from '../engine/listWatch';
import type { Profile } from '../engine/profiles';
import { SharedIndexInformer } from '../engine/sharedInformer';
import { HttpListerWatcher, type ApiResource, type KubeConnection } from '../kube';
import { requestLine, type LogLine } from '../scenario/notificationLog';
import { FaultInjectingListerWatcher } from '../sources/faults';
import { SANDBOX_CONTEXT } from '../sources/sandbox';
import { checkConsistency, type ConsistencyResult } from '../trace/consistency';
import { TraceRecorder } from '../trace/recorder';
import { SegmentFile, type SpillOptions } from '../trace/segments';
import { traceHeader } from './headers';
import { resourceLabel, typeDescription } from './resources';

/** What names a live informer once cluster and resource are known. */
export interface LiveTarget {
  conn: KubeConnection;
  resource: ApiResource;
  profile: Profile;
  /** "" = all namespaces. */
  namespace: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** The informer's default resync period; 0 = none. */
  resyncPeriodMs?: number;
}

export interface LiveOptions {
  clock?: Clock;
  /** The engine's jitter source; default Math.random. */
  rand?: () => number;
  /** Trace recorder cap (events): its memory window. */
  cap?: number;
  /** Where the recorder spills past its memory window (default: it drops); release() deletes the segment. */
  spill?: SpillOptions;
  /**
   * Receives every request the informer sends as a notification-log line, before anything can
   * fail it: the chain is informer → request log → fault injector → selectors → HTTP, so a
   * request the injector refuses is still logged (the informer did send it).
   */
  requestLog?: LogLine[];
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
  /** Stops the informer and waits for it and its handlers to end; the spill segment takes no more. */
  stop(): Promise<void>;
  /** Deletes the spill segment, if any (the trace's spilled events with it). */
  release(): void;
}

/**
 * A live informer (not started) on the target. The trace says 'sandbox' when the connection is
 * the sandbox's (whoever started it), else 'cluster'.
 */
export function openLive(target: LiveTarget, options: LiveOptions = {}): LiveInformer {
  const o = { ...target, ...options };
  const clock = o.clock ?? new RealClock();
  const r = o.resource;
  const header = traceHeader({
    profile: o.profile,
    resource: { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced },
    source: o.conn.context.name === SANDBOX_CONTEXT ? 'sandbox' : 'cluster',
    context: o.conn.context.name,
    namespace: o.namespace,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    cap: o.cap,
  });
  const segment = o.spill ? new SegmentFile(o.spill) : undefined;
  const recorder = new TraceRecorder(header, header.cap, segment);
  const http = withSelectors(new HttpListerWatcher(o.conn, r, {
      namespace: o.namespace,
      clock,
      restClient: o.profile,
      onRetry: (x) => recorder.emit({ t: clock.now(), type: 'rest.retry', ...x }),
    }), o.labelSelector, o.fieldSelector);
  const faults = new FaultInjectingListerWatcher(http, { clock, sink: recorder });
  const informer = new SharedIndexInformer({
    listerWatcher: o.requestLog ? logged(faults, o.requestLog) : faults,
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
      try {
        await running;
      } finally {
        segment?.close();
      }
    },
    release() {
      segment?.remove();
    },
  };
}

/** A live session's title: resource, where, profile, and SIMULATED on the sandbox. */
export function liveTitle(target: Pick<LiveTarget, 'conn' | 'resource' | 'namespace' | 'profile'>): string {
  const where = target.namespace ? `ns ${target.namespace}` : 'all namespaces';
  const simulated = target.conn.context.name === SANDBOX_CONTEXT;
  return `${resourceLabel(target.resource)} (${where}, ${target.profile.name})${simulated ? ' SIMULATED' : ''}`;
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

/** Logs every request as a request line, then passes it on. */
function logged(lw: ListerWatcher, log: LogLine[]): ListerWatcher {
  return {
    get url() {
      return lw.url;
    },
    get watchListSupported() {
      return lw.watchListSupported;
    },
    list(opts, signal) {
      log.push(requestLine('list', opts));
      return lw.list(opts, signal);
    },
    watch(opts, signal) {
      log.push(requestLine('watch', opts));
      return lw.watch(opts, signal);
    },
  };
}
