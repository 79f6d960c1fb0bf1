/**
 * Trace files and scenarios: export a session's trace, open a trace file (as the custom
 * editor), replay a scenario file in virtual time. A file from elsewhere gets one clear error
 * message (the BadInputError of src/app), never an exception in the host.
 */
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { parseScenario } from '../app/scenarios';
import { createSession } from '../app/sessions';
import { exportTrace, toPerfetto } from '../app/traces';
import type { ColumnarTrace } from '../app/traceColumns';

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
    // A file on disk is written as it is read (spilled events first, then memory); other file
    // systems take the text of what is in memory.
    if (uri.scheme === 'file') await session.exportTo(uri.fsPath);
    else await vscode.workspace.fs.writeFile(uri, Buffer.from(exportTrace(session.traceData()), 'utf8'));
    return { ok: true, message: `Trace saved to ${uri.fsPath || uri.toString()}` };
  } catch (e) {
    return { ok: false, message: `Could not save the trace: ${reasonOf(e)}` };
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
    return { ok: false, message: `Could not save the Perfetto trace: ${reasonOf(e)}` };
  }
}

/** A failed write's reason on one line, without the "Error: " the file system layer puts in front. */
function reasonOf(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/^(Error: )+/, '').replace(/\s+/g, ' ').trim();
}

function defaultFolder(): vscode.Uri {
  return vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
}

/** A trace file's text (decoded from the bytes read, without copying them first). */
export async function readTraceText(uri: vscode.Uri): Promise<string> {
  const bytes = await vscode.workspace.fs.readFile(uri);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The trace file each imported session was read from. */
const traceFiles = new WeakMap<InformerSession, vscode.Uri>();

/** The trace file an imported session was read from (undefined for every other session). */
export function traceFileOf(session: InformerSession): vscode.Uri | undefined {
  return traceFiles.get(session);
}

/** The imported trace as a session (its file checked by the importer: a bad one throws a one-line BadInputError). */
export async function importedSession(registry: SessionRegistry, uri: vscode.Uri, content: { text: string } | { columnar: ColumnarTrace }): Promise<InformerSession> {
  const session = await createSession(registry.newId(), { kind: 'import', name: uri.path.split('/').pop() ?? 'trace', ...content });
  traceFiles.set(session, uri);
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
  const scenario = parseScenario(text, uri.path.split('/').pop() ?? 'scenario');
  const session = await createSession(registry.newId(), { kind: 'replay', scenario, profile: profileName });
  registry.add(session);
  return session;
}
