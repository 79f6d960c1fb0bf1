/**
 * The built-in SANDBOX cluster: a simulated Kubernetes API server over real HTTP on loopback, so
 * that someone without a kubeconfig can watch relists, 410s, tombstones and identical updates
 * within a minute. It speaks enough of the real API (discovery, LIST with resourceVersion
 * semantics and pagination, WATCH with bookmarks and watch-list) for the project's HTTP
 * ListerWatcher and kubectl-style clients. It is read-only from outside (non-GET → 405); its
 * objects change only through the selected storyline. Everything it runs stops with stop() or
 * after maxLifetimeMs. It is always labelled SIMULATED.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, RealClock, type TimerHandle } from '../engine/clock';
import { SandboxApiServer } from './sandbox/server';
import { SandboxStorage } from './sandbox/storage';
import { DEFAULT_STORYLINE, STORYLINES, Storyline, type StorylineName, isStorylineName, seedSandbox } from './sandbox/storylines';

export { STORYLINES, STORYLINE_DESCRIPTIONS, DEFAULT_STORYLINE, type StorylineName } from './sandbox/storylines';

export const SANDBOX_CONTEXT = 'informer-inspector-sandbox';

export interface SandboxOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Storyline name (restart-storm, etcd-lost-delete, watch-expiry, calm); default restart-storm. */
  scenario?: string;
  /** Drives the storyline, bookmarks and watch timeouts; default RealClock. */
  clock?: Clock;
  /** Write the kubeconfig to a temp file (removed again by stop()). */
  writeKubeconfig?: boolean;
  /** The sandbox stops itself after this long; default 2 h. */
  maxLifetimeMs?: number;
  /** false: seed the objects but run no storyline (tests drive the storage themselves). */
  runStoryline?: boolean;
  /** One line per storyline step ("t=8.0s apiserver restarting…"). */
  onLog?: (line: string) => void;
  /** Changes the watch-cache window keeps; default 200. */
  windowSize?: number;
  /** Periodic bookmark interval; default 10 s (the real cacher: ~1 min, scaled down). */
  bookmarkIntervalMs?: number;
  /** Watch length when the client sends no timeoutSeconds; default 30 min like --min-request-timeout. */
  defaultWatchTimeoutMs?: number;
  /** The server's WatchList gate; default true (apiserver 1.34+). */
  watchListEnabled?: boolean;
}

export interface Sandbox {
  url: string;
  port: number;
  kubeconfigYaml: string;
  kubeconfigPath?: string;
  label: 'SIMULATED';
  scenario: StorylineName;
  /** The simulated storage, for tests and tools that script their own changes. */
  storage: SandboxStorage;
  /** Resolves once the sandbox has stopped, by stop() or at the end of its lifetime. */
  stopped: Promise<void>;
  stop(): Promise<void>;
  /** Drops all connections and refuses new ones for downMs, then listens again on the same port. */
  restartApiserver(downMs: number): Promise<void>;
  /**
   * Ends every open watch, lets two changes land that no watcher sees, and compacts the window:
   * every re-watch from an RV the client had gets 410 Expired (as in the watch-expiry story).
   */
  reinitialiseWatchCache(): void;
}

export function sandboxKubeconfig(url: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${SANDBOX_CONTEXT}`,
    '  cluster:',
    `    server: ${url}`,
    'contexts:',
    `- name: ${SANDBOX_CONTEXT}`,
    '  context:',
    `    cluster: ${SANDBOX_CONTEXT}`,
    `    user: ${SANDBOX_CONTEXT}`,
    '    namespace: default',
    `current-context: ${SANDBOX_CONTEXT}`,
    'users:',
    `- name: ${SANDBOX_CONTEXT}`,
    '  user: {}',
    'preferences: {}',
    '',
  ].join('\n');
}

const DEFAULT_LIFETIME_MS = 2 * 3600_000;
const LISTEN_RETRIES = 5;

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const scenario = opts.scenario ?? DEFAULT_STORYLINE;
  if (!isStorylineName(scenario)) throw new Error(`unknown sandbox scenario "${scenario}" (one of: ${STORYLINES.join(', ')})`);
  const clock = opts.clock ?? new RealClock();
  const startedAt = clock.now();
  const wallOffset = Date.now() - startedAt;
  const log = (line: string) => opts.onLog?.(`t=${((clock.now() - startedAt) / 1000).toFixed(1)}s ${line}`);

  const storage = new SandboxStorage({ windowSize: opts.windowSize, wallClock: () => wallOffset + clock.now() });
  seedSandbox(storage);
  const server = new SandboxApiServer(storage, {
    clock,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 10_000,
    bookmarkBeforeTimeoutMs: 2000,
    defaultTimeoutMs: opts.defaultWatchTimeoutMs ?? 1800_000,
    watchListEnabled: opts.watchListEnabled ?? true,
  });
  const port = await server.listen(opts.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  const kubeconfigYaml = sandboxKubeconfig(url);
  let kubeconfigDir: string | undefined;
  let kubeconfigPath: string | undefined;
  if (opts.writeKubeconfig) {
    kubeconfigDir = await mkdtemp(join(tmpdir(), 'informer-inspector-sandbox-'));
    kubeconfigPath = join(kubeconfigDir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigYaml, { mode: 0o600 });
  }

  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const lifetime: TimerHandle = clock.setTimer(opts.maxLifetimeMs ?? DEFAULT_LIFETIME_MS, () => {
    log('maximum lifetime reached: stopping the sandbox');
    void stop();
  });

  // Aborted by stop(), so no restart or retry outlives the sandbox.
  const life = new AbortController();

  async function relisten(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await server.listen(port);
        return;
      } catch (e) {
        if (attempt >= LISTEN_RETRIES || stopping) throw e;
        log(`port ${port} not free yet (${(e as Error).message}); retrying in 1 s`);
        await clock.sleep(1000, life.signal);
      }
    }
  }

  async function restartApiserver(downMs: number): Promise<void> {
    if (stopping) return;
    if (restarting) return restarting;
    restarting = (async () => {
      log(`apiserver restarting: ${server.openWatches} watch(es) and all connections dropped, refusing connections for ${(downMs / 1000).toFixed(1)} s`);
      await server.close();
      await clock.sleep(downMs, life.signal).catch(() => undefined);
      if (stopping) return;
      try {
        await relisten();
        log(`apiserver listening again on ${url}`);
      } catch (e) {
        // Storyline restarts are fire-and-forget: report instead of rejecting into nowhere.
        if (!stopping) log(`apiserver could not listen again on port ${port}: ${(e as Error).message}`);
      }
    })().finally(() => (restarting = undefined));
    return restarting;
  }

  const storyline = new Storyline(scenario, { storage, clock, restartApiserver, endWatches: () => server.endWatches(), log });

  function stop(): Promise<void> {
    stopping ??= (async () => {
      life.abort();
      storyline.stop();
      lifetime.cancel();
      await server.close();
      if (kubeconfigDir) await rm(kubeconfigDir, { recursive: true, force: true });
      resolveStopped();
    })();
    return stopping;
  }

  if (opts.runStoryline !== false) storyline.start();
  return { url, port, kubeconfigYaml, kubeconfigPath, label: 'SIMULATED', scenario, storage, stopped, stop, restartApiserver,
    reinitialiseWatchCache: () => storyline.reinitialiseWatchCache() };
}
