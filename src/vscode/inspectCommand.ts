/**
 * "Inspect informer", one multi-step input (title, step n of m, Back, stays open on focus loss):
 * context (kubectl's current first; or the SIMULATED sandbox → storyline) → resource (from
 * discovery, CRDs included, searchable) → namespace (the context's first; a typed name is kept as
 * typed) → one optional selectors step → profile. Each step defaults to the last choice and can be
 * given as a command argument instead. Every failure ends in one error message, never a throw.
 */
import * as vscode from 'vscode';
import { DEFAULT_PROFILE, PROFILES, profileNamed } from '../app/profiles';
import type { SessionRegistry } from '../app/registry';
import { connect, listableResources, loadKubeconfigs, NoKubeconfigError, resourceLabel, resourceNamed } from '../app/resources';
import type { InformerSession } from '../app/session';
import { createSession, DEFAULT_STORYLINE, startSandboxConnection, STORYLINES, STORYLINE_DESCRIPTIONS } from '../app/sessions';
import type { ApiResource, KubeconfigSet, KubeConnection } from '../kube';
import type { Sandbox } from '../sources/sandbox';
import { askPick, askText, BACK, Cancelled } from './multiStep';
import { namespaceProblem, parseSelectors } from './inspectInput';
import type { KubernetesToolsState } from './kubernetesToolsState';

const SANDBOX_ITEM = 'Built-in sandbox cluster (SIMULATED)';
const ALL_NAMESPACES = 'All namespaces';
const TITLE = 'Inspect informer';
const MEMORY_KEY = 'informerInspector.lastInspect';

interface Remembered {
  context?: string;
  resource?: string;
  /** As typed or picked; "" = all namespaces. */
  namespace?: string;
  /** The selectors step as typed. */
  selectors?: string;
  profile?: string;
  storyline?: string;
}

/**
 * Arguments for keybindings, walkthrough links and other extensions; each one given skips its
 * step (`namespace: ""` means all namespaces; `selectors` is the selectors step's text).
 */
export interface InspectArgs {
  sandbox?: string;
  context?: string;
  resource?: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  selectors?: string;
  profile?: string;
}

type StepName = 'context' | 'storyline' | 'resource' | 'namespace' | 'selectors' | 'profile';

export async function inspectInformer(
  context: vscode.ExtensionContext,
  registry: SessionRegistry,
  args: InspectArgs = {},
  /** The Kubernetes extension's kubeconfig and current context, when it is installed. */
  k8sTools?: KubernetesToolsState,
): Promise<InformerSession | undefined> {
  const kubeconfigPath = k8sTools?.kubeconfigPath();
  const memory = context.globalState.get<Remembered>(MEMORY_KEY) ?? {};
  let sandbox: Sandbox | undefined;
  // What the steps decided so far.
  let kubeconfig: KubeconfigSet | undefined;
  let kubeconfigProblem = 'No kubeconfig found (KUBECONFIG or ~/.kube/config).';
  let conn: KubeConnection | undefined;
  let useSandbox = args.sandbox !== undefined;
  let storyline = args.sandbox || undefined;
  let resources: ApiResource[] | undefined;
  let resource: ApiResource | undefined;
  let namespace = args.namespace;
  // Scripted use (a resource given) asks no selectors unless they are given too.
  const selectorsGiven = args.selectors !== undefined || args.labelSelector !== undefined || args.fieldSelector !== undefined || args.resource !== undefined;
  let selectors = args.selectors ?? (selectorsGiven ? `${args.labelSelector ?? ''}${args.fieldSelector ? `; ${args.fieldSelector}` : ''}` : undefined);
  let profileName = args.profile;

  const stopSandbox = async () => {
    await sandbox?.stop();
    sandbox = undefined;
    conn = undefined;
    resources = undefined;
  };

  /** The steps still to be asked, in order (a step given as an argument is skipped). */
  const plan = (): StepName[] => {
    const steps: StepName[] = [];
    if (!args.context && args.sandbox === undefined) steps.push('context');
    if (useSandbox && !args.sandbox) steps.push('storyline');
    if (!args.resource) steps.push('resource');
    if (args.namespace === undefined && (resource?.namespaced ?? true)) steps.push('namespace');
    if (!selectorsGiven) steps.push('selectors');
    if (!args.profile) steps.push('profile');
    return steps;
  };

  /** Connects (or starts the sandbox) and discovers, once per choice of cluster. */
  const ensureResources = async (): Promise<ApiResource[]> => {
    if (resources) return resources;
    if (useSandbox) {
      if (!sandbox) ({ sandbox, conn } = await startSandboxConnection(storyline ?? DEFAULT_STORYLINE));
    } else if (!conn) {
      conn = args.context ? connect({ context: args.context, kubeconfigPath }) : kubeconfig!.connect(memory.context);
    }
    const discovery = await discoverWithRetry(conn!);
    resources = discovery.resources.filter((r) => r.verbs.includes('list') && r.verbs.includes('watch'));
    if (resources.length === 0) throw new Error(`no listable and watchable resources found in ${conn!.context.name}`);
    return resources;
  };

  try {
    if (!args.context && args.sandbox === undefined) {
      try {
        kubeconfig = loadKubeconfigs(kubeconfigPath ? { kubeconfigPath } : {});
      } catch (e) {
        kubeconfigProblem = e instanceof NoKubeconfigError ? kubeconfigProblem : `The kubeconfig cannot be used: ${(e as Error).message}.`;
      }
    }
    let i = 0;
    for (;;) {
      const steps = plan();
      if (i >= steps.length) break;
      const name = steps[i];
      const info = { title: TITLE, step: i + 1, totalSteps: steps.length };
      let answer: unknown;
      switch (name) {
        case 'context': {
          // The current context first (the Kubernetes extension's if it switched, else kubectl's), then the others in file order.
          const current = k8sTools?.currentContext() ?? kubeconfig?.currentContext ?? '';
          const contexts = kubeconfig ? [...kubeconfig.contexts()].sort((a, b) => Number(b.name === current) - Number(a.name === current)) : [];
          const items: vscode.QuickPickItem[] = contexts.map((c) => ({
            label: c.name,
            description: c.name === current ? `${c.server} (current)` : c.server,
            detail: c.namespace ? `namespace ${c.namespace}` : undefined,
          }));
          items.push({ label: SANDBOX_ITEM, description: 'a simulated API server on loopback', detail: items.length ? undefined : kubeconfigProblem });
          const r = await askPick(info, items, items.length > 1 ? 'Kubernetes context' : `${kubeconfigProblem} Use the built-in sandbox?`, {
            activeLabel: current || memory.context,
          });
          answer = r;
          if (r === BACK) break;
          const label = r.item!.label;
          await stopSandbox();
          useSandbox = label === SANDBOX_ITEM;
          if (!useSandbox) conn = kubeconfig!.connect(label);
          resources = undefined;
          resource = undefined;
          memory.context = label;
          break;
        }
        case 'storyline': {
          const r = await askPick(info, STORYLINES.map((s) => ({ label: s, detail: STORYLINE_DESCRIPTIONS[s] })), 'Sandbox storyline (what goes wrong in the simulated cluster)', {
            activeLabel: memory.storyline ?? DEFAULT_STORYLINE,
          });
          answer = r;
          if (r === BACK) break;
          if (storyline !== r.item!.label) await stopSandbox();
          storyline = memory.storyline = r.item!.label;
          break;
        }
        case 'resource': {
          const all = await ensureResources();
          const items = all.map((r) => ({
            label: resourceLabel(r),
            description: `${r.group ? r.group + '/' : ''}${r.version} ${r.kind}${r.namespaced ? '' : ' (cluster-scoped)'}`,
            detail: r.shortNames.length > 0 ? `short names: ${r.shortNames.join(', ')}` : undefined,
            resource: r,
          }));
          const r = await askPick(info, items, `Resource to inform on in ${conn!.context.name} (type to search; CRDs included)`, { activeLabel: memory.resource ?? 'configmaps' });
          answer = r;
          if (r === BACK) break;
          resource = r.item!.resource;
          memory.resource = resourceLabel(resource);
          break;
        }
        case 'namespace': {
          const ctxNs = conn?.context.namespace ?? 'default';
          const items: vscode.QuickPickItem[] = [{ label: ctxNs, description: 'the context namespace' }, { label: ALL_NAMESPACES }];
          if (memory.namespace && memory.namespace !== ctxNs) items.splice(1, 0, { label: memory.namespace, description: 'last used' });
          const r = await askPick(info, items, 'Namespace (pick, or type a name)', {
            activeLabel: memory.namespace === '' ? ALL_NAMESPACES : (memory.namespace ?? ctxNs),
            typed: { description: 'namespace as typed', validate: namespaceProblem },
          });
          answer = r;
          if (r === BACK) break;
          namespace = r.typed ?? (r.item!.label === ALL_NAMESPACES ? '' : r.item!.label);
          memory.namespace = namespace;
          break;
        }
        case 'selectors': {
          const r = await askText(info, 'Selectors (optional): a label selector, then "; " and a field selector', selectors ?? memory.selectors ?? '', 'e.g. app=web,tier!=db; metadata.name=x — empty: everything');
          answer = r;
          if (r === BACK) break;
          selectors = memory.selectors = r;
          break;
        }
        case 'profile': {
          const r = await askPick(
            info,
            PROFILES.map((p) => ({ label: p.name, description: `client-go ${p.clientGo} (Kubernetes ${p.kubernetes})`, detail: p.summary })),
            'client-go behaviour profile',
            { activeLabel: memory.profile ?? DEFAULT_PROFILE },
          );
          answer = r;
          if (r === BACK) break;
          profileName = memory.profile = r.item!.label;
          break;
        }
      }
      i = answer === BACK ? Math.max(0, i - 1) : i + 1;
    }

    const all = await ensureResources();
    if (!resource) resource = resourceNamed(conn!, all, args.resource!);
    const profile = profileNamed(profileName ?? DEFAULT_PROFILE);
    await context.globalState.update(MEMORY_KEY, memory);
    const { labelSelector, fieldSelector } = parseSelectors(selectors ?? '');

    const resyncPeriodMs = vscode.workspace.getConfiguration('informerInspector').get<number>('resyncPeriodSeconds', 0) * 1000;
    const target = {
      conn: conn!,
      resource,
      namespace: resource.namespaced ? (namespace ?? conn!.context.namespace ?? 'default') : '',
      labelSelector,
      fieldSelector,
      profile,
      resyncPeriodMs,
    };
    const owned = sandbox;
    sandbox = undefined; // owned by the session now (stopped by it, also when it fails to start)
    const session = await createSession(registry.newId(), owned ? { kind: 'sandbox', sandbox: owned, ...target } : { kind: 'cluster', ...target });
    registry.add(session);
    return session;
  } catch (e) {
    await sandbox?.stop();
    if (e instanceof Cancelled) return undefined;
    void vscode.window.showErrorMessage(`Inspect informer: ${(e as Error).message}`);
    return undefined;
  }
}

export const RETRY = 'Retry';

/**
 * Discovery in a cancellable progress notification; a failure (refused connection, 401, TLS)
 * is shown with a Retry action instead of ending the flow. Cancel or dismiss ends it quietly.
 */
async function discoverWithRetry(conn: KubeConnection): Promise<Awaited<ReturnType<typeof listableResources>>> {
  for (;;) {
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Discovering resources of ${conn.context.name}…`, cancellable: true },
        (_progress, token) => {
          const abort = new AbortController();
          token.onCancellationRequested(() => abort.abort());
          return listableResources(conn, abort.signal).catch((e: unknown) => {
            if (abort.signal.aborted) throw new Cancelled();
            throw e;
          });
        },
      );
    } catch (e) {
      if (e instanceof Cancelled) throw e;
      const choice = await vscode.window.showErrorMessage(
        `Inspect informer: discovery at ${conn.server} (context ${conn.context.name}) failed: ${(e as Error).message}`,
        RETRY,
      );
      if (choice !== RETRY) throw new Cancelled();
    }
  }
}

