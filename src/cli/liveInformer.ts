/**
 * What `record` and `check-consistency` share: the options that name the target, connecting with
 * a kubeconfig, finding the resource by discovery, and assembling the live informer — HTTP ListerWatcher (GET only), label selector,
 * request log, fault injector, trace recorder — plus the consistency check on its Indexer.
 *
 * The request chain is informer → request log → fault injector → selector → HTTP, so that a
 * request the injector refuses is still logged (the informer did send it), and the consistency
 * check lists through selector → HTTP only: injected faults must not distort it, and its LISTs
 * are not the informer's, so they stay out of the notification log.
 */
import { RealClock, type Clock } from '../engine/clock';
import { StatusError, TransportError, type ListerWatcher, type ListOptions, type WatchOptions } from '../engine/listWatch';
import { DEFAULT_PROFILE, type Profile } from '../engine/profiles';
import { SharedIndexInformer } from '../engine/sharedInformer';
import { discoverResources, HttpListerWatcher, KubeConfigError, KubeConnection, redactedUrl, resolveResource, type ApiResource } from '../kube';
import { requestLine, type LogLine } from '../scenario/notificationLog';
import { FaultInjectingListerWatcher } from '../scenario/faults';
import { SANDBOX_CONTEXT } from '../scenario/sandbox';
import { checkConsistency, type ConsistencyResult } from '../trace/consistency';
import { TraceRecorder } from '../trace/recorder';
import { profileNamed, stringOption, type Parsed } from './args';
import { closeResourceNames } from './resourceNames';
import { UsageError, type CliIo } from './io';
import { TOOL_VERSION } from './version';

/** A run failed for a reason outside the tool (the server cannot be reached, discovery is refused): exit 1, one line. */
export class LiveRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LiveRunError';
  }
}

/** The options of every live command that say which informer to run: what, in which cluster, as which client-go. */
export const LIVE_TARGET_OPTIONS = {
  resource: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
  selector: { type: 'string' },
  profile: { type: 'string' },
} as const;

export interface LiveTarget {
  resourceName: string;
  profile: Profile;
  kubeconfig?: string;
  context?: string;
  /** "" = all namespaces. */
  namespace: string;
  labelSelector?: string;
}

/** Reads LIVE_TARGET_OPTIONS: --resource is required, an unknown --profile is bad input. */
export function liveTargetOf(command: string, parsed: Parsed): LiveTarget {
  const resourceName = stringOption(parsed, 'resource');
  if (!resourceName) throw new UsageError(`${command}: --resource PLURAL[.GROUP] is required`);
  return {
    resourceName,
    profile: profileNamed(stringOption(parsed, 'profile') ?? DEFAULT_PROFILE),
    kubeconfig: stringOption(parsed, 'kubeconfig'),
    context: stringOption(parsed, 'context'),
    namespace: stringOption(parsed, 'namespace') ?? '',
    labelSelector: stringOption(parsed, 'selector'),
  };
}

/**
 * Connects, finds the target's resource and assembles its live informer (not started), on the
 * command's clock and jitter; `log` receives the informer's requests as notification-log lines.
 */
export async function openLiveInformer(
  target: LiveTarget,
  io: Pick<CliIo, 'clock' | 'rand'>,
  log?: LogLine[],
): Promise<{ conn: KubeConnection; resource: ApiResource; live: LiveInformer }> {
  const conn = connect(target.kubeconfig, target.context);
  const resource = await findResource(conn, target.resourceName);
  const live = createLiveInformer({
    conn,
    resource,
    profile: target.profile,
    namespace: target.namespace,
    labelSelector: target.labelSelector,
    clock: io.clock,
    rand: io.rand,
    log,
  });
  return { conn, resource, live };
}

/** Loads the kubeconfig; every problem with it is bad input, reported on one line. */
export function connect(kubeconfigPath: string | undefined, context: string | undefined): KubeConnection {
  try {
    return KubeConnection.load({ kubeconfigPath, context });
  } catch (e) {
    if (!(e instanceof KubeConfigError)) throw e;
    // client-node's YAML errors run over several lines with a code excerpt; the first line says it.
    const first = e.message.replace(/^cannot load kubeconfig: /, '').split('\n')[0];
    const why = /ENOENT/.test(first) ? 'no such file' : /EISDIR/.test(first) ? 'is a directory' : first;
    const where = kubeconfigPath ?? process.env.KUBECONFIG ?? '~/.kube/config';
    throw new UsageError(e.message.startsWith('cannot load kubeconfig') ? `cannot load kubeconfig ${where}: ${why}` : first);
  }
}

/** The resource by any name kubectl takes; an unknown name lists the close ones. */
export async function findResource(conn: KubeConnection, name: string): Promise<ApiResource> {
  let discovery;
  try {
    discovery = await discoverResources(conn);
  } catch (e) {
    throw unreachable(conn, e);
  }
  let resource: ApiResource | undefined;
  try {
    resource = resolveResource(discovery.resources, name);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (resource) return resource;
  const close = closeResourceNames(discovery.resources, name);
  const hint = close.length ? `; close names: ${close.join(', ')}` : '; `kubectl api-resources --verbs=list,watch` lists the names';
  const down = discovery.failures.length ? ` (discovery failed for ${discovery.failures.map((f) => f.groupVersion).join(', ')})` : '';
  throw new UsageError(`unknown resource "${name}" in context ${conn.context.name}: no resource by that name supports list and watch${down}${hint}`);
}

function unreachable(conn: KubeConnection, e: unknown): Error {
  const where = `the API server ${redactedUrl(conn.server)} (context ${conn.context.name})`;
  if (e instanceof TransportError) return new LiveRunError(`cannot reach ${where}: ${e.message}`);
  if (e instanceof StatusError) return new LiveRunError(`discovery at ${where} failed: ${e.status.code ? `${e.status.code} ` : ''}${e.message}`);
  return e instanceof Error ? e : new Error(String(e));
}

export interface LiveInformerOptions {
  conn: KubeConnection;
  resource: ApiResource;
  profile: Profile;
  namespace: string;
  labelSelector?: string;
  clock?: Clock;
  /** The engine's jitter source; default Math.random. */
  rand?: () => number;
  /** Where the informer's requests are logged as notification-log request lines. */
  log?: LogLine[];
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

export function resourceLabel(r: Pick<ApiResource, 'resource' | 'group'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

export function createLiveInformer(o: LiveInformerOptions): LiveInformer {
  const clock = o.clock ?? new RealClock();
  const r = o.resource;
  const recorder = new TraceRecorder({
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: TOOL_VERSION },
    profile: o.profile.name,
    gates: { ...o.profile.gates },
    resource: { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced },
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
    context: o.conn.context.name,
    source: o.conn.context.name === SANDBOX_CONTEXT ? 'sandbox' : 'cluster',
    startedAt: new Date().toISOString(),
    cap: 200_000,
    redacted: true,
  });
  const http = withSelector(new HttpListerWatcher(o.conn, r, { namespace: o.namespace, clock }), o.labelSelector);
  const faults = new FaultInjectingListerWatcher(http, { clock, sink: recorder });
  const informer = new SharedIndexInformer({
    listerWatcher: o.log ? logged(faults, o.log) : faults,
    profile: o.profile,
    clock,
    ...(o.rand ? { rand: o.rand } : {}),
    sink: recorder,
    typeDescription: `${r.group ? r.group + '/' : ''}${r.version}, Kind=${r.kind}`,
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
        lastSyncResourceVersion: () => informer.lastSyncResourceVersion(),
      }),
    start() {
      running ??= informer.run(stop.signal);
    },
    async stop() {
      stop.abort();
      await running;
    },
  };
}

/** Adds the label selector to every list and watch request. */
function withSelector(lw: ListerWatcher, selector: string | undefined): ListerWatcher {
  if (!selector) return lw;
  const sel = <T extends ListOptions | WatchOptions>(opts: T): T => ({ ...opts, labelSelector: selector });
  return {
    url: lw.url,
    watchListSupported: lw.watchListSupported,
    list: (opts, signal) => lw.list(sel(opts), signal),
    watch: (opts, signal) => lw.watch(sel(opts), signal),
  };
}

/** Logs every request the informer sends as a request line, before anything can fail it. */
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
