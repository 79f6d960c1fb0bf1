/**
 * Trace files and scenarios: export a session's trace, open a trace file (as the custom
 * editor), replay a scenario file in virtual time. A file from elsewhere gets one clear error
 * message (TraceFileError / ScenarioValidationError texts), never an exception in the host.
 */
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { findProfile, PROFILES } from '../engine/profiles';
import { replayProfileName } from './replayProfile';
import { replayScenario } from '../sources/engineReplay';
import { parseScenarioText } from '../scenario/validate';
import type { Scenario } from '../scenario/types';
import { TraceRecorder } from '../trace/recorder';
import { exportTrace, importTrace } from '../trace/traceFile';
import { toPerfetto } from '../trace/perfetto';
import { TOOL_VERSION } from '../cli/version';
import { InformerSession } from './session';
import type { SessionRegistry } from './sessions';

export const TRACE_SUFFIX = '.informer-trace.json';

export interface ExportOutcome {
  ok: boolean;
  message: string;
}

export async function exportSessionTrace(session: InformerSession, target?: vscode.Uri): Promise<ExportOutcome> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const uri =
    target ??
    (await vscode.window.showSaveDialog({
      title: 'Export informer trace',
      defaultUri: vscode.Uri.joinPath(defaultFolder(), `${session.title.replace(/[^\w.-]+/g, '_')}-${stamp}${TRACE_SUFFIX}`),
      filters: { 'Informer trace': ['informer-trace.json', 'json'] },
    }));
  if (!uri) return { ok: false, message: 'Export cancelled.' };
  try {
    await vscode.workspace.fs.writeFile(uri, Buffer.from(exportTrace(session.traceData()), 'utf8'));
    return { ok: true, message: `Trace saved to ${uri.fsPath || uri.toString()}` };
  } catch (e) {
    return { ok: false, message: `Could not save the trace: ${(e as Error).message}` };
  }
}

/** Writes the session's trace as Chrome trace-event JSON for ui.perfetto.dev (src/trace/perfetto.ts). */
export async function exportSessionPerfetto(session: InformerSession, target?: vscode.Uri): Promise<ExportOutcome> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const uri =
    target ??
    (await vscode.window.showSaveDialog({
      title: 'Export Perfetto trace',
      defaultUri: vscode.Uri.joinPath(defaultFolder(), `${session.title.replace(/[^\w.-]+/g, '_')}-${stamp}.perfetto.json`),
      filters: { 'Chrome trace-event JSON': ['json'] },
    }));
  if (!uri) return { ok: false, message: 'Export cancelled.' };
  try {
    const { header, events } = session.traceData();
    await vscode.workspace.fs.writeFile(uri, Buffer.from(JSON.stringify(toPerfetto(header, events)), 'utf8'));
    return { ok: true, message: `Perfetto trace saved to ${uri.fsPath || uri.toString()}; open it in https://ui.perfetto.dev` };
  } catch (e) {
    return { ok: false, message: `Could not save the Perfetto trace: ${(e as Error).message}` };
  }
}

function defaultFolder(): vscode.Uri {
  return vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
}

/** Reads and checks a trace file; throws an Error whose message is fit to show as is. */
export async function readTraceFile(uri: vscode.Uri): Promise<{ header: ReturnType<typeof importTrace>['header']; events: ReturnType<typeof importTrace>['events'] }> {
  const bytes = await vscode.workspace.fs.readFile(uri);
  return importTrace(Buffer.from(bytes).toString('utf8'));
}

export function importedSession(registry: SessionRegistry, uri: vscode.Uri, data: ReturnType<typeof importTrace>): InformerSession {
  const name = uri.path.split('/').pop() ?? 'trace';
  const session = new InformerSession({
    id: registry.newId(),
    title: `${name}`,
    simulated: data.header.source === 'sandbox',
    imported: { header: { ...data.header }, events: data.events },
  });
  registry.add(session);
  return session;
}

export async function pickAndOpenTrace(): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    title: 'Open informer trace',
    canSelectMany: false,
    defaultUri: defaultFolder(),
    filters: { 'Informer trace': ['json'] },
  });
  if (!picked?.[0]) return;
  await vscode.commands.executeCommand('vscode.openWith', picked[0], 'informerInspector.traceEditor');
}

/** Replays a scenario file through the engine in virtual time and returns its session. */
export async function replayScenarioFile(registry: SessionRegistry, uri: vscode.Uri, profileName?: string): Promise<InformerSession> {
  const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
  const label = uri.path.split('/').pop() ?? 'scenario';
  const scenario = parseScenarioText(text, label);
  // A scenario written for some profiles (e.g. only v1.15) replays with the first of them unless asked otherwise.
  const profile = findProfile(profileName ?? replayProfileName(scenario.profiles)) ?? PROFILES[PROFILES.length - 1];
  const recorder = new TraceRecorder(scenarioHeader(scenario, profile.name, { ...profile.gates, ...(scenario.gates ?? {}) }));
  const result = await replayScenario(scenario, { profile, sink: recorder });
  if (result.outcome === 'error') throw new Error(`replay of ${label} failed: ${result.error ?? 'unknown error'}`);
  const session = new InformerSession({
    id: registry.newId(),
    title: `${scenario.name} (replay, ${profile.name})`,
    simulated: false,
    recorder,
  });
  registry.add(session);
  return session;
}

function scenarioHeader(scenario: Scenario, profile: string, gates: Record<string, boolean>): ConstructorParameters<typeof TraceRecorder>[0] {
  const r = scenario.resource;
  const slash = r.apiVersion.indexOf('/');
  return {
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: TOOL_VERSION },
    profile,
    gates,
    resource: {
      group: slash < 0 ? '' : r.apiVersion.slice(0, slash),
      version: slash < 0 ? r.apiVersion : r.apiVersion.slice(slash + 1),
      resource: r.resource ?? `${r.kind.toLowerCase()}s`,
      kind: r.kind,
      namespaced: r.namespaced ?? true,
    },
    source: 'scenario',
    startedAt: new Date().toISOString(),
    cap: 200_000,
    redacted: true,
  };
}
