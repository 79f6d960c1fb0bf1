/**
 * What `record` and `check-consistency` share: the options that name the target and opening the
 * live informer on it through the app layer, with the command's clock and jitter, and (for
 * `record`) a request log.
 */
import { openLive, type LiveInformer } from '../app/liveInformer';
import { DEFAULT_PROFILE, profileNamed } from '../app/profiles';
import { connect, findResource } from '../app/resources';
import type { Profile } from '../engine/profiles';
import type { ApiResource, KubeConnection } from '../kube';
import type { LogLine } from '../scenario/notificationLog';
import { stringOption, type Parsed } from './args';
import { UsageError, type CliIo } from './io';

/** The options of every live command that say which informer to run: what, in which cluster, as which client-go. */
export const LIVE_TARGET_OPTIONS = {
  resource: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
  selector: { type: 'string' },
  profile: { type: 'string' },
} as const;

export interface LiveTargetArgs {
  resourceName: string;
  profile: Profile;
  kubeconfig?: string;
  context?: string;
  /** "" = all namespaces. */
  namespace: string;
  labelSelector?: string;
}

/** Reads LIVE_TARGET_OPTIONS: --resource is required, an unknown --profile is bad input. */
export function liveTargetOf(command: string, parsed: Parsed): LiveTargetArgs {
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
 * Connects, finds the target's resource and opens its live informer (not started), on the
 * command's clock and jitter; `log` receives the informer's requests as notification-log lines.
 */
export async function openLiveInformer(
  target: LiveTargetArgs,
  io: Pick<CliIo, 'clock' | 'rand'>,
  log?: LogLine[],
): Promise<{ conn: KubeConnection; resource: ApiResource; live: LiveInformer }> {
  const conn = connect({ kubeconfigPath: target.kubeconfig, context: target.context });
  const resource = await findResource(conn, target.resourceName);
  const live = openLive(
    { conn, resource, profile: target.profile, namespace: target.namespace, labelSelector: target.labelSelector },
    { clock: io.clock, rand: io.rand, ...(log ? { requestLog: log } : {}) },
  );
  return { conn, resource, live };
}
