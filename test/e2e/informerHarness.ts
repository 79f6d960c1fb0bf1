/**
 * Runs the engine's SharedIndexInformer with the project's HttpListerWatcher against the e2e
 * cluster and keeps every trace event, so tests can assert the engine's decisions (requests,
 * watch endings, relists, identical updates) and compare its store with a fresh LIST.
 */
import { strict as assert } from 'node:assert';
import { RealClock } from '../../src/engine/clock';
import type { TraceEvent } from '../../src/format/events';
import type { ListerWatcher, WatchOptions } from '../../src/engine/listWatch';
import { findProfile } from '../../src/engine/profiles';
import { SharedIndexInformer } from '../../src/engine/sharedInformer';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { HttpListerWatcher, type HttpRequestInfo } from '../../src/kube/listerWatcher';
import type { E2ECluster } from './cluster';
import { FaultProxy } from './faultProxy';
import { CONFIGMAPS, diffMaps, rvMap, waitFor } from './helpers';

export interface RunningInformer {
  informer: SharedIndexInformer;
  events: TraceEvent[];
  http: HttpRequestInfo[];
  of<T extends TraceEvent['type']>(type: T, since?: number): Extract<TraceEvent, { type: T }>[];
  stop(): Promise<void>;
  /** Waits until the store holds exactly what a fresh consistent LIST returns (keys and resourceVersions). */
  waitConsistent(c: E2ECluster, timeoutMs?: number): Promise<void>;
}

export interface InformerOptions {
  profile: string;
  namespace: string;
  /** The API server URL the engine talks to (a fault proxy); default the apiserver itself. */
  server?: string;
  /**
   * Leave out timeoutSeconds on watches, so kube-apiserver picks the watch timeout from
   * --min-request-timeout (client-go always sends 300–599 s, which would take minutes to expire).
   */
  serverChosenWatchTimeout?: boolean;
  /** rest.Config.Timeout: a client-side limit on each whole request, watches included. */
  requestTimeoutMs?: number;
}

export function startInformer(c: E2ECluster, o: InformerOptions): RunningInformer {
  const profile = findProfile(o.profile);
  if (!profile) throw new Error(`no profile ${o.profile}`);
  const conn = KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml({ server: o.server }) });
  const http: HttpRequestInfo[] = [];
  const clock = new RealClock();
  const base = new HttpListerWatcher(conn, CONFIGMAPS, {
    namespace: o.namespace,
    clock,
    requestTimeoutMs: o.requestTimeoutMs,
    onRequest: (r) => http.push(r),
  });
  const lw: ListerWatcher = o.serverChosenWatchTimeout
    ? {
        url: base.url,
        list: (opts, s) => base.list(opts, s),
        watch: (opts: WatchOptions, s) => base.watch({ ...opts, timeoutSeconds: undefined }, s),
      }
    : base;
  const events: TraceEvent[] = [];
  const informer = new SharedIndexInformer({
    listerWatcher: lw,
    profile,
    clock,
    sink: { emit: (e) => events.push(e) },
    typeDescription: '/v1, Kind=ConfigMap',
    name: `e2e-${o.profile}`,
  });
  informer.addEventHandler('main', {});
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const of = <T extends TraceEvent['type']>(type: T, since = 0) =>
    events.slice(since).filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type);
  return {
    informer,
    events,
    http,
    of,
    async stop() {
      ac.abort();
      await running;
    },
    async waitConsistent(cl: E2ECluster, timeoutMs = 30_000) {
      let last = '';
      try {
        await waitFor(
          'the store to equal a fresh consistent LIST',
          async () => {
            const fresh = rvMap((await cl.consistentList(`/api/v1/namespaces/${o.namespace}/configmaps`)).items);
            const store = rvMap(informer.getIndexer().list() as Array<{ metadata?: { namespace?: string; name?: string; resourceVersion?: string } }>);
            last = diffMaps(store, fresh);
            return last === '' && informer.hasSynced();
          },
          timeoutMs,
          250,
        );
      } catch (e) {
        assert.fail(`${(e as Error).message}: ${last}`);
      }
    },
  };
}

/** The engine's outcome sequence of watch endings, e.g. "1:rewatch 6:rewatch-after-backoff". */
export function watchEnds(r: RunningInformer, since = 0): string[] {
  return r.of('watch.end', since).map((e) => `${e.row}:${e.outcome}`);
}

/**
 * Per-test plumbing for a describe(): a fresh fault proxy in front of the cluster before each
 * test, and after it every informer started with `start` is stopped and the proxy closed.
 */
export function useInformers(cluster: () => E2ECluster): { start: typeof startInformer; proxy: () => FaultProxy } {
  const running: RunningInformer[] = [];
  let proxy: FaultProxy | undefined;
  beforeEach(async () => {
    proxy = new FaultProxy({ host: '127.0.0.1', port: cluster().port });
    await proxy.listen();
  });
  afterEach(async () => {
    for (const r of running.splice(0)) await r.stop();
    await proxy?.close();
  });
  return {
    start: (c, o) => {
      const r = startInformer(c, o);
      running.push(r);
      return r;
    },
    proxy: () => {
      if (!proxy) throw new Error('no fault proxy outside a test');
      return proxy;
    },
  };
}
