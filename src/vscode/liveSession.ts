/**
 * Starts a live informer session in the extension: the live informer the CLI uses too
 * (src/live/liveInformer.ts: HTTP ListerWatcher (GET only) → fault injector → engine
 * SharedIndexInformer with the TraceRecorder as its sink) wrapped as an InformerSession with its
 * controls. The sandbox, when used, belongs to the session and stops with it. Free of 'vscode'.
 */
import type { Clock } from '../engine/clock';
import type { Profile } from '../engine/profiles';
import type { ApiResource, KubeConnection } from '../kube';
import { createLiveInformer, resourceLabel } from '../live/liveInformer';
import type { Sandbox } from '../sources/sandbox';
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

export { resourceLabel, typeDescription } from '../live/liveInformer';

export function startLiveSession(o: LiveSessionOptions): InformerSession {
  const live = createLiveInformer({
    conn: o.conn,
    resource: o.resource,
    profile: o.profile,
    namespace: o.namespace,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    resyncPeriodMs: o.resyncPeriodMs,
    source: o.sandbox ? 'sandbox' : 'cluster',
    clock: o.clock,
    cap: o.cap,
  });
  const { clock, informer } = live;
  // The informer needs at least one handler to show notifications; "main" stands for the controller.
  informer.addEventHandler('main', {});
  live.start();
  const where = o.namespace ? `ns ${o.namespace}` : 'all namespaces';
  const title = `${resourceLabel(o.resource)} (${where}, ${o.profile.name})${o.sandbox ? ' SIMULATED' : ''}`;
  const controls: LiveControls = {
    addHandler: (name, resyncPeriodMs) => void informer.addEventHandler(name, {}, resyncPeriodMs),
    addSlowHandler: (ms) => live.addSlowHandler(ms),
    checkConsistency: () => live.checkConsistency(),
  };
  return new InformerSession({
    id: o.id,
    title,
    simulated: o.sandbox !== undefined,
    recorder: live.recorder,
    informer,
    faults: live.faults,
    controls,
    clock: () => clock.now(),
    stop: async () => {
      await live.stop().catch(() => undefined);
      await o.sandbox?.stop();
    },
  });
}
