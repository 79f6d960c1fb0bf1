/**
 * An observation (docs/observe.md), for the extension and the CLI: the observing proxy for a kubeconfig
 * context, the kubeconfig the observed process uses (written to a private temporary directory),
 * and one InformerSession per reconstructed informer, added to the registry as the process's
 * reflectors appear. Stopping any of those sessions, or the observation, stops the proxy and
 * ends them all. The sessions are of kind 'observed'; they come from here rather than from
 * createSession because one observation yields one session per reflector, as they appear.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Profile } from '../engine/profiles';
import type { KubeConnection } from '../kube';
import type { ObserveFinding } from '../observe/reconstruct';
import type { ProxyNotice } from '../observe/exchange';
import { ObserveSession } from '../observe/session';
import { InformerSession } from './session';

export { notReconstructedWhy, ObserveSession, profileFromGoMod, type NotReconstructed, type ObserveSummary } from '../observe/session';
export { ProxyError } from '../observe/proxy';
export type { ProxyNotice } from '../observe/exchange';
export type { ObserveFinding, ObservedLogLine } from '../observe/reconstruct';

export interface ObservationOptions {
  conn: KubeConnection;
  profile: Profile;
  /** Names the observation in session titles (the debug session's name, or "process"). */
  label: string;
  newId: () => string;
  /** A session for a newly seen reflector of the process. */
  onSession: (s: InformerSession) => void;
  onNotice?: (n: ProxyNotice) => void;
  onFinding?: (f: ObserveFinding) => void;
}

export interface Observation {
  readonly kubeconfigPath: string;
  readonly proxyUrl: string;
  readonly sessions: readonly InformerSession[];
  /** Stops the proxy and the reconstruction; every session ends. Idempotent. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

export async function startObservation(o: ObservationOptions): Promise<Observation> {
  const dir = mkdtempSync(join(tmpdir(), 'informer-inspector-observe-'));
  const sessions: InformerSession[] = [];
  let stopping: Promise<void> | undefined;
  let observe: ObserveSession | undefined;
  const stopCore = (): Promise<void> =>
    (stopping ??= (async () => {
      await observe?.stop();
      rmSync(dir, { recursive: true, force: true });
    })());
  // A session's stop() marks it ended before it calls this, so the nested stops end at once.
  const stopAll = async (): Promise<void> => {
    await stopCore();
    await Promise.all(sessions.map((s) => s.stop()));
  };
  try {
    observe = await ObserveSession.start({
      conn: o.conn,
      profile: o.profile,
      onNotice: o.onNotice,
      onFinding: o.onFinding,
      onReflector: (r) => {
        const s = new InformerSession({
          id: o.newId(),
          kind: 'observed',
          // The reflector first: pickers and tabs cut long titles at the end.
          title: `${r.name} (${o.profile.name}), observed in ${o.label}`,
          simulated: false,
          recorder: r.recorder,
          informer: r.informer,
          clock: () => r.clock.now(),
          stop: stopAll,
        });
        sessions.push(s);
        o.onSession(s);
      },
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, observe.proxy.kubeconfigYaml(), { mode: 0o600 });
  const proxyUrl = observe.proxy.url;
  return {
    kubeconfigPath,
    proxyUrl,
    sessions,
    stop: stopAll,
    get stopped() {
      return stopping !== undefined;
    },
  };
}
