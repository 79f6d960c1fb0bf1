/**
 * "Inspect informer": context → resource (from discovery, CRDs included, searchable) →
 * namespace → optional selectors → profile, each pick defaulting to the last choice. Without a
 * kubeconfig (or when chosen) it runs against the built-in SIMULATED sandbox cluster. Every
 * failure (broken kubeconfig, unreachable cluster) ends in one error message, never a throw.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_PROFILE, PROFILES, profileNamed } from '../app/profiles';
import type { SessionRegistry } from '../app/registry';
import { connect, listableResources, resourceLabel, resourceNamed } from '../app/resources';
import type { InformerSession } from '../app/session';
import { createSession, DEFAULT_STORYLINE, startSandboxConnection, STORYLINES, STORYLINE_DESCRIPTIONS } from '../app/sessions';
import type { ApiResource, KubeConnection } from '../kube';
import type { Sandbox } from '../sources/sandbox';

const SANDBOX_ITEM = 'Built-in sandbox cluster (SIMULATED)';

interface Remembered {
  context?: string;
  resource?: string;
  namespace?: string;
  profile?: string;
  storyline?: string;
}

/** Arguments for scripted use (tests, keybindings); anything absent is asked for. */
export interface InspectArgs {
  sandbox?: string;
  context?: string;
  resource?: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  profile?: string;
}

class Cancelled extends Error {}

async function pick<T extends vscode.QuickPickItem>(items: T[], placeholder: string, activeLabel?: string): Promise<T> {
  const qp = vscode.window.createQuickPick<T>();
  qp.items = items;
  qp.placeholder = placeholder;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  const active = items.find((i) => i.label === activeLabel);
  if (active) qp.activeItems = [active];
  try {
    return await new Promise<T>((resolve, reject) => {
      qp.onDidAccept(() => (qp.selectedItems[0] ? resolve(qp.selectedItems[0]) : undefined));
      qp.onDidHide(() => reject(new Cancelled()));
      qp.show();
    });
  } finally {
    qp.dispose();
  }
}

async function input(prompt: string, value: string, placeHolder: string): Promise<string> {
  const v = await vscode.window.showInputBox({ prompt, value, placeHolder, ignoreFocusOut: true });
  if (v === undefined) throw new Cancelled();
  return v.trim();
}

function kubeconfigExists(): boolean {
  const env = process.env.KUBECONFIG;
  if (env) return env.split(delimiter).some((p) => p !== '' && existsSync(p));
  return existsSync(join(homedir(), '.kube', 'config'));
}

export async function inspectInformer(
  context: vscode.ExtensionContext,
  registry: SessionRegistry,
  args: InspectArgs = {},
): Promise<InformerSession | undefined> {
  const memory = context.globalState.get<Remembered>('informerInspector.lastInspect') ?? {};
  let sandbox: Sandbox | undefined;
  try {
    let conn: KubeConnection | undefined;
    let useSandbox = args.sandbox !== undefined;
    if (!useSandbox && !args.context) {
      let loaded: KubeConnection | undefined;
      let problem = 'No kubeconfig found.';
      if (kubeconfigExists()) {
        try {
          loaded = connect();
        } catch (e) {
          problem = `The kubeconfig cannot be used: ${(e as Error).message}.`;
        }
      }
      const items: vscode.QuickPickItem[] = loaded
        ? loaded.contexts().map((c) => ({ label: c.name, description: c.name === loaded.context.name ? `${c.server} (current)` : c.server }))
        : [];
      items.push({ label: SANDBOX_ITEM, description: 'a simulated API server on loopback', detail: loaded ? undefined : problem });
      const chosen = await pick(items, loaded ? 'Kubernetes context' : `${problem} Use the built-in sandbox?`, memory.context ?? loaded?.context.name);
      if (chosen.label === SANDBOX_ITEM) useSandbox = true;
      else conn = loaded?.withContext(chosen.label);
      memory.context = chosen.label;
    } else if (args.context) {
      conn = connect({ context: args.context });
    }

    if (useSandbox) {
      const storyline =
        args.sandbox ||
        (
          await pick(
            STORYLINES.map((s) => ({ label: s, detail: STORYLINE_DESCRIPTIONS[s] })),
            'Sandbox storyline (what goes wrong in the simulated cluster)',
            memory.storyline ?? DEFAULT_STORYLINE,
          )
        ).label;
      memory.storyline = storyline;
      ({ sandbox, conn } = await startSandboxConnection(storyline));
    }
    if (!conn) return undefined;
    const connection = conn;

    const discovery = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Discovering resources of ${connection.context.name}…` },
      () => listableResources(connection),
    );
    const resources = discovery.resources.filter((r) => r.verbs.includes('list') && r.verbs.includes('watch'));
    if (resources.length === 0) throw new Error(`no listable and watchable resources found in ${connection.context.name}`);
    const resource = args.resource
      ? resourceNamed(connection, resources, args.resource, discovery.failures)
      : await pickResource(resources, memory.resource ?? 'configmaps');
    memory.resource = resourceLabel(resource);

    let namespace = args.namespace ?? '';
    if (args.namespace === undefined && resource.namespaced) {
      const ns = connection.context.namespace ?? 'default';
      const items: vscode.QuickPickItem[] = [{ label: 'All namespaces' }, { label: ns, description: 'context namespace' }, { label: 'Other namespace…' }];
      const chosen = await pick(items, 'Namespace', memory.namespace ?? 'All namespaces');
      namespace = chosen.label === 'All namespaces' ? '' : chosen.label === 'Other namespace…' ? await input('Namespace', ns, 'default') : chosen.label;
      memory.namespace = chosen.label;
    }
    const labelSelector = args.labelSelector ?? (args.resource ? '' : await input('Label selector (optional, e.g. app=web)', '', 'empty: everything'));
    const fieldSelector = args.fieldSelector ?? (args.resource ? '' : await input('Field selector (optional, e.g. metadata.name=x)', '', 'empty: everything'));
    const profileName =
      args.profile ??
      (
        await pick(
          PROFILES.map((p) => ({ label: p.name, description: `client-go ${p.clientGo} (Kubernetes ${p.kubernetes})`, detail: p.summary })),
          'client-go behaviour profile',
          memory.profile ?? DEFAULT_PROFILE,
        )
      ).label;
    const profile = profileNamed(profileName);
    memory.profile = profile.name;
    await context.globalState.update('informerInspector.lastInspect', memory);

    const resyncPeriodMs = vscode.workspace.getConfiguration('informerInspector').get<number>('resyncPeriodSeconds', 0) * 1000;
    const target = {
      conn: connection,
      resource,
      namespace,
      labelSelector: labelSelector || undefined,
      fieldSelector: fieldSelector || undefined,
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

async function pickResource(resources: ApiResource[], last: string): Promise<ApiResource> {
  const items = resources.map((r) => ({
    label: resourceLabel(r),
    description: `${r.group ? r.group + '/' : ''}${r.version} ${r.kind}${r.namespaced ? '' : ' (cluster-scoped)'}`,
    detail: r.shortNames.length > 0 ? `short names: ${r.shortNames.join(', ')}` : undefined,
    resource: r,
  }));
  return (await pick(items, 'Resource to inform on (type to search; CRDs included)', last)).resource;
}
