/**
 * What `record` and `check-consistency` share: the options that name the target and opening the
 * live informer on it through the app layer, with the command's clock and jitter, and (for
 * `record`) a request log.
 */
import { openLive, type LiveInformer, type LiveOptions } from '../app/liveInformer';
import { DEFAULT_PROFILE, profileNamed } from '../app/profiles';
import { connect, findResource } from '../app/resources';
import type { Profile } from '../engine/profiles';
import type { ApiResource, KubeConnection } from '../kube';
import type { LogLine } from '../scenario/notificationLog';
import { stringOption, type Parsed } from './args';
import { UsageError, type CliIo } from './io';

/** The options of every live command that say which informer to run, kubectl's names and short forms. */
export const LIVE_TARGET_OPTIONS = {
  resource: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  selector: { type: 'string', short: 'l' },
  'field-selector': { type: 'string' },
  profile: { type: 'string' },
} as const;

export interface LiveTargetArgs {
  resourceName: string;
  profile: Profile;
  kubeconfig?: string;
  context?: string;
  /** -n; absent: the context's namespace, else "default" (kubectl's rule). */
  namespace?: string;
  /** -A: every namespace. */
  allNamespaces: boolean;
  labelSelector?: string;
  fieldSelector?: string;
}

/** Reads LIVE_TARGET_OPTIONS: the resource (positional, or --resource) is required, an unknown --profile is bad input. */
export function liveTargetOf(command: string, parsed: Parsed): LiveTargetArgs {
  const positional = parsed.positionals[0];
  const option = stringOption(parsed, 'resource');
  if (positional && option && positional !== option) throw new UsageError(`${command}: two resources given ("${positional}" and --resource "${option}")`);
  const resourceName = positional ?? option;
  if (!resourceName) throw new UsageError(`${command}: which resource? (e.g. \`${command} configmaps\`; see \`informer-inspector ${command} --help\`)`);
  const namespace = stringOption(parsed, 'namespace');
  const allNamespaces = parsed.values['all-namespaces'] === true;
  if (allNamespaces && namespace !== undefined) throw new UsageError(`${command}: -n/--namespace and -A/--all-namespaces exclude each other`);
  return {
    resourceName,
    profile: profileNamed(stringOption(parsed, 'profile') ?? DEFAULT_PROFILE),
    kubeconfig: stringOption(parsed, 'kubeconfig'),
    context: stringOption(parsed, 'context'),
    namespace,
    allNamespaces,
    labelSelector: stringOption(parsed, 'selector'),
    fieldSelector: stringOption(parsed, 'field-selector'),
  };
}

/** The namespace an informer on `resource` watches: "" for all (-A, or a cluster-scoped resource), -n, the context's, "default". */
export function namespaceOf(target: LiveTargetArgs, conn: KubeConnection, resource: ApiResource): string {
  if (!resource.namespaced || target.allNamespaces) return '';
  return target.namespace ?? conn.context.namespace ?? 'default';
}

/**
 * Connects, finds the target's resource and opens its live informer (not started), on the
 * command's clock and jitter; `log` receives the informer's requests as notification-log lines.
 */
export async function openLiveInformer(
  target: LiveTargetArgs,
  io: Pick<CliIo, 'clock' | 'rand'>,
  log?: LogLine[],
  spill?: LiveOptions['spill'],
): Promise<{ conn: KubeConnection; resource: ApiResource; namespace: string; live: LiveInformer }> {
  const conn = connect({ kubeconfigPath: target.kubeconfig, context: target.context });
  const resource = await findResource(conn, target.resourceName);
  const namespace = namespaceOf(target, conn, resource);
  const live = openLive(
    { conn, resource, profile: target.profile, namespace, labelSelector: target.labelSelector, fieldSelector: target.fieldSelector },
    { clock: io.clock, rand: io.rand, ...(log ? { requestLog: log } : {}), ...(spill ? { spill } : {}) },
  );
  return { conn, resource, namespace, live };
}
