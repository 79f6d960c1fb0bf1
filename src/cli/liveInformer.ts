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
import { StatusError, TransportError, type ListerWatcher } from '../engine/listWatch';
import { DEFAULT_PROFILE, type Profile } from '../engine/profiles';
import { discoverResources, KubeConfigError, KubeConnection, redactedUrl, resolveResource, type ApiResource } from '../kube';
import { createLiveInformer, type LiveInformer } from '../live/liveInformer';
import { requestLine, type LogLine } from '../scenario/notificationLog';
import { SANDBOX_CONTEXT } from '../sources/sandbox';
import { profileNamed, stringOption, type Parsed } from './args';
import { closeResourceNames } from './resourceNames';
import { UsageError, type CliIo } from './io';

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
    source: conn.context.name === SANDBOX_CONTEXT ? 'sandbox' : 'cluster',
    clock: io.clock,
    rand: io.rand,
    ...(log ? { wrapSource: (lw: ListerWatcher) => logged(lw, log) } : {}),
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

export { resourceLabel, type LiveInformer } from '../live/liveInformer';
