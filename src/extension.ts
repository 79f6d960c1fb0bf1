/**
 * Wiring only: registers commands, the timeline and compare panel serializers, the bottom-panel view, the
 * trace editor, the status bar and the log channel; everything goes to context.subscriptions.
 */
import * as vscode from 'vscode';
import { FAULTS } from './app/faults';
import { SessionRegistry } from './app/registry';
import type { InformerSession } from './app/session';
import { compareCommand, type CompareArgs } from './vscode/compareCommand';
import { ComparePanel, ComparePanelSerializer } from './vscode/comparePanel';
import { addHandlerCommand, checkCacheCommand, exportPerfettoCommand, exportTraceCommand, injectFault, stopInformer } from './vscode/commands';
import { inspectInformer, type InspectArgs } from './vscode/inspectCommand';
import { AUTOSTART_ENV, parseAutostart } from './vscode/autostartRequest';
import { watchAccess } from './vscode/accessAlert';
import { watchReachability } from './vscode/reachabilityAlert';
import { connectKubernetesTools } from './vscode/kubernetesTools';
import type { KubernetesToolsState } from './vscode/kubernetesToolsState';
import { attachLog } from './vscode/logChannel';
import { ObserveDebug } from './vscode/observeDebug';
import { configureSpill } from './vscode/spillStorage';
import { InformerStatusBar } from './vscode/statusBar';
import { TimelinePanel, TimelinePanelSerializer } from './vscode/timelinePanel';
import { nodeTimers } from './vscode/timelineStream';
import { TimelineViewProvider } from './vscode/timelineView';
import { TraceEditorProvider } from './vscode/traceEditor';
import { pickAndOpenTrace, replayScenarioFile } from './vscode/traceCommands';

export function activate(context: vscode.ExtensionContext): void {
  const registry = new SessionRegistry();
  // The Kubernetes extension's API, asked for on first use only (activating it costs time).
  let tools: Promise<KubernetesToolsState> | undefined;
  const kubernetesTools = () => (tools ??= connectKubernetesTools().then((t) => (context.subscriptions.push(t), t)));
  const log = vscode.window.createOutputChannel('Informer Inspector', { log: true });
  const uri = context.extensionUri;
  const showSession = (s: InformerSession) => {
    TimelinePanel.createOrShow(uri, registry, s);
  };
  const cmd = (id: string, fn: (...args: never[]) => unknown) =>
    vscode.commands.registerCommand(`informerInspector.${id}`, async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        void vscode.window.showErrorMessage(`Informer Inspector: ${(e as Error).message}`);
        return undefined;
      }
    });

  // Context keys for menus: faults, stop and the cache check only while a live informer runs.
  const updateContextKeys = () => {
    void vscode.commands.executeCommand('setContext', 'informerInspector.running', registry.running().length > 0);
    void vscode.commands.executeCommand('setContext', 'informerInspector.hasSession', registry.all().length > 0);
  };
  updateContextKeys();

  const observe = new ObserveDebug(registry, showSession, log);
  const viewProvider = new TimelineViewProvider(uri, registry);
  // When the extension stops, this host's segment folder is deleted (the registry's dispose closes the sessions).
  context.subscriptions.push(configureSpill(context));
  context.subscriptions.push(
    registry.onDidChange(updateContextKeys),
    registry,
    log,
    observe,
    vscode.debug.registerDebugConfigurationProvider('*', observe),
    cmd('observeProcess', () => observe.observeProcess()),
    new InformerStatusBar(registry),
    viewProvider,
    { dispose: () => TimelinePanel.disposeAll() },
    vscode.window.registerWebviewPanelSerializer(TimelinePanel.viewType, new TimelinePanelSerializer(uri, registry)),
    vscode.window.registerWebviewPanelSerializer(ComparePanel.viewType, new ComparePanelSerializer(uri, registry)),
    vscode.window.registerWebviewViewProvider(TimelineViewProvider.viewId, viewProvider),
    vscode.window.registerCustomEditorProvider(TraceEditorProvider.viewType, new TraceEditorProvider(uri, registry, log, vscode.Uri.joinPath(context.globalStorageUri, 'companions').fsPath), {
      supportsMultipleEditorsPerDocument: true,
    }),
    cmd('inspect', async (args?: InspectArgs) => {
      const s = await inspectInformer(context, registry, args ?? {}, await kubernetesTools());
      if (!s) return undefined;
      const detach = attachLog(log, s);
      s.onEnded(detach);
      const unwatch = watchAccess(s, {
        showError: (message, ...actions) => vscode.window.showErrorMessage(message, ...actions),
        log: (line) => log.error(line),
        showLog: () => log.show(true),
      });
      s.onEnded(unwatch);
      const unwatchReach = watchReachability(s, {
        showWarning: (message) => void vscode.window.showWarningMessage(message),
        showInfo: (message) => void vscode.window.showInformationMessage(message),
        log: (line) => log.warn(line),
        ...nodeTimers,
      });
      s.onEnded(unwatchReach);
      s.onEnded(() => {
        if (s.failure === undefined) return;
        log.error(`${s.title} failed: ${s.failure}`);
        void vscode.window.showErrorMessage(`Informer Inspector: ${s.title} failed: ${s.failure}`);
      });
      log.info(`started ${s.title}`);
      showSession(s);
      return s.id;
    }),
    // "Inspect informer" on a resource kind in the Kubernetes extension's cluster explorer.
    cmd('inspectKind', async (node?: unknown) => {
      const resource = (await kubernetesTools()).resourceOf(node);
      return vscode.commands.executeCommand('informerInspector.inspect', resource ? { resource, selectors: '' } : undefined);
    }),
    cmd('stop', () => stopInformer(registry)),
    cmd('exportTrace', () => exportTraceCommand(registry)),
    cmd('exportPerfetto', () => exportPerfettoCommand(registry)),
    cmd('openTrace', (file?: vscode.Uri) =>
      file instanceof vscode.Uri ? vscode.commands.executeCommand('vscode.openWith', file, TraceEditorProvider.viewType) : pickAndOpenTrace(),
    ),
    cmd('replayScenario', async (file?: vscode.Uri) => {
      const target =
        file ??
        (await vscode.window.showOpenDialog({ title: 'Replay scenario', canSelectMany: false, filters: { 'Informer scenario': ['json'] } }))?.[0];
      if (!target) return;
      const s = await replayScenarioFile(registry, target);
      showSession(s);
    }),
    cmd('addHandler', () => addHandlerCommand(registry)),
    cmd('checkCache', () => checkCacheCommand(registry)),
    cmd('showTimeline', () => TimelineViewProvider.reveal()),
    cmd('compare', (args?: CompareArgs) => compareCommand(uri, registry, args)),
    ...FAULTS.map((f) => cmd(`fault.${f.command}`, () => injectFault(registry, f))),
    vscode.debug.onDidStartDebugSession(() => {
      if (vscode.workspace.getConfiguration('informerInspector').get<boolean>('revealOnDebug', false)) void viewProvider.revealRunning();
    }),
  );
  void autostart();
}

/**
 * `npm start` (scripts/start.sh) names what to open in INFORMER_INSPECTOR_AUTOSTART. A window
 * reload runs this again: the informer died with the old extension host, so a fresh one starts
 * (and takes over the restored panel).
 */
async function autostart(): Promise<void> {
  const request = parseAutostart(process.env[AUTOSTART_ENV]);
  switch (request.kind) {
    case 'none':
      return;
    case 'invalid':
      void vscode.window.showWarningMessage(`Informer Inspector: ${request.message}`);
      return;
    case 'cluster':
      await vscode.commands.executeCommand('informerInspector.inspect');
      return;
    case 'sandbox': {
      const args: InspectArgs = { sandbox: request.storyline, resource: request.resource, namespace: request.namespace, profile: request.profile };
      await vscode.commands.executeCommand('informerInspector.inspect', args);
      return;
    }
  }
}

export function deactivate(): void {
  // Sessions are stopped by the registry's dispose (context.subscriptions).
}
