/**
 * Observing a process from VS Code (docs/observe.md):
 *  - a DebugConfigurationProvider for every debug type: when the setting
 *    `informerInspector.observeDebugSessions` is on, or the launch configuration says
 *    `"informerInspector": {"observe": true}`, it starts an observation (the observing proxy for
 *    the current kubeconfig context, or `"informerInspector": {"context": "…"}`), sets `KUBECONFIG`
 *    in the launch environment, opens the timeline of the process's first reflector, and stops
 *    when the debug session ends;
 *  - the command "Observe a process": starts an observation and shows the kubeconfig path to
 *    run a process with by hand.
 * The profile: `"informerInspector": {"profile": "v1.32"}`, else the k8s.io/client-go version in
 * the workspace folder's go.mod, else the default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { notReconstructedWhy, profileFromGoMod, startObservation, type Observation, type ProxyNotice } from '../app/observation';
import { DEFAULT_PROFILE, profileNamed } from '../app/profiles';
import type { SessionRegistry } from '../app/registry';
import { connect } from '../app/resources';
import type { InformerSession } from '../app/session';
import type { Profile } from '../engine/profiles';

/** The key under which a resolved launch configuration names its observation. */
const OBSERVATION_KEY = '__informerInspectorObservation';

interface LaunchOptions {
  observe?: boolean;
  context?: string;
  profile?: string;
}

export class ObserveDebug implements vscode.DebugConfigurationProvider, vscode.Disposable {
  private readonly observations = new Map<string, Observation>();
  private readonly byDebugSession = new Map<string, string>();
  private counter = 0;
  private readonly unreadableShown = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly registry: SessionRegistry,
    private readonly show: (s: InformerSession) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.debug.onDidStartDebugSession((d) => {
        const id = d.configuration[OBSERVATION_KEY] as string | undefined;
        if (id && this.observations.has(id)) this.byDebugSession.set(d.id, id);
      }),
      vscode.debug.onDidTerminateDebugSession((d) => {
        const id = this.byDebugSession.get(d.id) ?? (d.configuration[OBSERVATION_KEY] as string | undefined);
        if (id) void this.stop(id);
      }),
    );
  }

  async resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    const own = (config.informerInspector ?? {}) as LaunchOptions;
    const enabled = own.observe ?? vscode.workspace.getConfiguration('informerInspector').get<boolean>('observeDebugSessions', false);
    if (!enabled || config[OBSERVATION_KEY]) return config;
    try {
      const conn = connect(own.context ? { context: own.context } : {});
      const profile = chooseProfile(own.profile, folder);
      const id = `o${++this.counter}`;
      let shown = false;
      const obs = await startObservation({
        conn,
        profile,
        label: String(config.name ?? 'debug session'),
        newId: () => this.registry.newId(),
        onSession: (s) => {
          this.registry.add(s);
          this.log.info(`observing ${s.title}`);
          if (!shown) {
            shown = true;
            this.show(s);
          }
        },
        onNotice: (n) => this.notice(String(config.name ?? 'debug session'), n),
        onFinding: (f) => this.log.warn(`observe finding [${f.reflector}]: ${f.title}. ${f.detail}`),
      });
      this.observations.set(id, obs);
      this.log.info(`observing debug session "${config.name}" through ${obs.proxyUrl} (context ${conn.context.name}, profile ${profile.name})`);
      return { ...config, env: { ...(config.env ?? {}), KUBECONFIG: obs.kubeconfigPath }, [OBSERVATION_KEY]: id };
    } catch (e) {
      void vscode.window.showErrorMessage(`Informer Inspector: cannot observe "${config.name}": ${(e as Error).message.split('\n')[0]}`);
      return config;
    }
  }

  /** Logs a notice of the proxy; a reflector it cannot reconstruct is also shown, once per reflector. */
  private notice(label: string, n: ProxyNotice): void {
    if (n.kind !== 'unreadable') {
      this.log.info(`observe: ${n.kind}${'path' in n ? ` ${n.method} ${n.path}` : ''}`);
      return;
    }
    this.log.warn(`observe: cannot reconstruct ${n.reflector} (${n.method} ${n.path}): ${notReconstructedWhy(n.accept)}`);
    if (this.unreadableShown.has(n.reflector)) return;
    this.unreadableShown.add(n.reflector);
    void vscode.window.showWarningMessage(`Informer Inspector: "${label}": cannot reconstruct ${n.reflector}: ${notReconstructedWhy(n.accept)}`);
  }

  /** "Observe a process": an observation for a process started by hand. */
  async observeProcess(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const conn = connect();
    const profile = chooseProfile(undefined, folder);
    const id = `o${++this.counter}`;
    const obs = await startObservation({
      conn,
      profile,
      label: 'process',
      newId: () => this.registry.newId(),
      onSession: (s) => {
        this.registry.add(s);
        this.show(s);
      },
      onNotice: (n) => this.notice('process', n),
      onFinding: (f) => this.log.warn(`observe finding [${f.reflector}]: ${f.title}. ${f.detail}`),
    });
    this.observations.set(id, obs);
    this.log.info(`observing through ${obs.proxyUrl}; kubeconfig ${obs.kubeconfigPath}`);
    const pick = await vscode.window.showInformationMessage(
      `Observing context ${conn.context.name} (profile ${profile.name}). Run your process with KUBECONFIG=${obs.kubeconfigPath}`,
      'Copy path',
      'Stop observing',
    );
    if (pick === 'Copy path') await vscode.env.clipboard.writeText(obs.kubeconfigPath);
    if (pick === 'Stop observing') await this.stop(id);
  }

  private async stop(id: string): Promise<void> {
    const obs = this.observations.get(id);
    if (!obs) return;
    this.observations.delete(id);
    for (const [k, v] of this.byDebugSession) if (v === id) this.byDebugSession.delete(k);
    await obs.stop();
    this.log.info('observation stopped');
  }

  dispose(): void {
    for (const id of [...this.observations.keys()]) void this.stop(id);
    for (const d of this.disposables) d.dispose();
  }
}

function chooseProfile(name: string | undefined, folder: vscode.WorkspaceFolder | undefined): Profile {
  if (name) return profileNamed(name);
  const goMod = folder ? join(folder.uri.fsPath, 'go.mod') : undefined;
  if (goMod && existsSync(goMod)) {
    const fromMod = profileFromGoMod(readFileSync(goMod, 'utf8'));
    if (fromMod) return fromMod.profile;
  }
  return profileNamed(DEFAULT_PROFILE);
}
