/**
 * Starts a live informer session: HTTP ListerWatcher (GET only) → fault injector → engine
 * SharedIndexInformer with the TraceRecorder as its sink. The sandbox, when used, belongs to the
 * session and stops with it. Free of 'vscode'.
 */
import { RealClock, type Clock } from '../engine/clock';
import type { ListerWatcher, ListOptions, WatchOptions } from '../engine/listWatch';
import type { Profile } from '../engine/profiles';
import { SharedIndexInformer } from '../engine/sharedInformer';
import type { ApiResource, KubeConnection } from '../kube';
import { HttpListerWatcher } from '../kube';
import { FaultInjectingListerWatcher } from '../scenario/faults';
import type { Sandbox } from '../scenario/sandbox';
import { TraceRecorder } from '../trace/recorder';
import { TOOL_VERSION } from '../cli/version';
import { checkConsistency } from '../trace/consistency';
import { InformerSession, type LiveControls } from './session';

export interface LiveSessionOptions {
  id: string;
  conn: KubeConnection;
  resource: ApiResource;
  /** "" = all namespaces. */
  namespace: string;
  labelSelector?: string;
  fieldSelector?: string;
  profile: Profile;
  resyncPeriodMs: number;
  sandbox?: Sandbox;
  clock?: Clock;
  cap?: number;
}

export function typeDescription(r: Pick<ApiResource, 'group' | 'version' | 'kind'>): string {
  return `${r.group ? r.group + '/' : '/'}${r.version}, Kind=${r.kind}`;
}

export function resourceLabel(r: Pick<ApiResource, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

export function startLiveSession(o: LiveSessionOptions): InformerSession {
  const clock = o.clock ?? new RealClock();
  const recorder = new TraceRecorder(
    {
      format: 'informer-trace/v1',
      tool: { name: 'informer-inspector', version: TOOL_VERSION },
      profile: o.profile.name,
      gates: { ...o.profile.gates },
      resource: { group: o.resource.group, version: o.resource.version, resource: o.resource.resource, kind: o.resource.kind, namespaced: o.resource.namespaced },
      ...(o.namespace ? { namespace: o.namespace } : {}),
      ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
      ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
      context: o.conn.context.name,
      source: o.sandbox ? 'sandbox' : 'cluster',
      startedAt: new Date().toISOString(),
      cap: o.cap ?? 200_000,
      redacted: true,
    },
    o.cap,
  );
  const http = withSelectors(new HttpListerWatcher(o.conn, o.resource, { namespace: o.namespace, clock }), o.labelSelector, o.fieldSelector);
  const faults = new FaultInjectingListerWatcher(http, { clock, sink: recorder });
  const informer = new SharedIndexInformer({
    listerWatcher: faults,
    profile: o.profile,
    clock,
    sink: recorder,
    resyncPeriodMs: o.resyncPeriodMs,
    typeDescription: typeDescription(o.resource),
    name: 'informer-inspector',
  });
  // The informer needs at least one handler to show notifications; "main" stands for the controller.
  informer.addEventHandler('main', {});
  const abort = new AbortController();
  const running = informer.run(abort.signal).catch(() => undefined);
  const where = o.namespace ? `ns ${o.namespace}` : 'all namespaces';
  const title = `${resourceLabel(o.resource)} (${where}, ${o.profile.name})${o.sandbox ? ' SIMULATED' : ''}`;
  let slowHandlers = 0;
  const controls: LiveControls = {
    addHandler: (name, resyncPeriodMs) => void informer.addEventHandler(name, {}, resyncPeriodMs),
    addSlowHandler: (ms) => {
      const name = `slow-${++slowHandlers}`;
      recorder.emit({ t: clock.now(), type: 'fault.injected', fault: 'slowHandler', detail: `${name} takes ${ms} ms per notification` });
      const wait = () => clock.sleep(ms, abort.signal).catch(() => undefined);
      informer.addEventHandler(name, { onAdd: wait, onUpdate: wait, onDelete: wait });
    },
    // The check lists through the plain HTTP ListerWatcher: injected faults must not distort it.
    checkConsistency: () =>
      checkConsistency({
        listerWatcher: http,
        cache: informer.getIndexer(),
        clock,
        sink: recorder,
        signal: abort.signal,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        lastSyncResourceVersion: () => informer.lastSyncResourceVersion(),
      }),
  };
  return new InformerSession({
    id: o.id,
    title,
    simulated: o.sandbox !== undefined,
    recorder,
    informer,
    faults,
    controls,
    clock: () => clock.now(),
    stop: async () => {
      abort.abort();
      await running;
      await o.sandbox?.stop();
    },
  });
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
