/**
 * "Compare informers": several informers on one time axis. Either one sandbox storyline started
 * under two (or more) client-go profiles at once — v1.15 against v1.36 by default, the seeds'
 * central story — or two to four sessions already open (for example the reflectors of one
 * observed process: the several kinds a controller watches). Arguments skip the questions:
 * `{ storyline, profiles }` or `{ sessionIds }`.
 */
import * as vscode from 'vscode';
import { DEFAULT_COMPARE_PROFILES, MAX_COMPARED, startSandboxComparison } from '../app/compare';
import { PROFILES } from '../app/profiles';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { STORYLINES, STORYLINE_DESCRIPTIONS } from '../app/sessions';
import { ComparePanel } from './comparePanel';

export interface CompareArgs {
  storyline?: string;
  profiles?: string[];
  sessionIds?: string[];
}

const SANDBOX = 'Start a sandbox storyline under several profiles, side by side';
const OPEN = 'Compare sessions that are open';

/** Runs the command; returns the compared sessions' ids (undefined when cancelled). */
export async function compareCommand(extensionUri: vscode.Uri, registry: SessionRegistry, args: CompareArgs = {}): Promise<string[] | undefined> {
  let sessions: InformerSession[] | undefined;
  if (args.sessionIds) sessions = args.sessionIds.map((id) => registry.get(id)).filter((s): s is InformerSession => s !== undefined);
  else if (args.storyline) sessions = await startSandboxes(registry, args.storyline, args.profiles ?? [...DEFAULT_COMPARE_PROFILES]);
  else {
    const how = await vscode.window.showQuickPick(
      [
        { label: SANDBOX, detail: 'e.g. restart-storm as v1.15 and v1.36, started together on the SIMULATED sandbox' },
        { label: OPEN, detail: registry.size < 2 ? 'needs two open sessions' : `${registry.size} open: informers, replays, traces, observed reflectors` },
      ],
      { placeHolder: 'Compare informers on one time axis', ignoreFocusOut: true },
    );
    if (!how) return undefined;
    sessions = how.label === SANDBOX ? await askSandboxes(registry) : await askOpen(registry);
  }
  if (!sessions) return undefined;
  if (sessions.length < 2 || sessions.length > MAX_COMPARED) {
    void vscode.window.showWarningMessage(`Compare needs 2 to ${MAX_COMPARED} sessions (got ${sessions.length}).`);
    return undefined;
  }
  ComparePanel.open(extensionUri, registry, sessions);
  return sessions.map((s) => s.id);
}

async function askSandboxes(registry: SessionRegistry): Promise<InformerSession[] | undefined> {
  const story = await vscode.window.showQuickPick(
    STORYLINES.map((name) => ({ label: name, detail: STORYLINE_DESCRIPTIONS[name] })),
    { placeHolder: 'Sandbox storyline to run under each profile', ignoreFocusOut: true },
  );
  if (!story) return undefined;
  const picks = await vscode.window.showQuickPick(
    PROFILES.map((p) => ({ label: p.name, picked: (DEFAULT_COMPARE_PROFILES as readonly string[]).includes(p.name) })),
    { placeHolder: `Profiles to compare (2 to ${MAX_COMPARED})`, canPickMany: true, ignoreFocusOut: true },
  );
  if (!picks) return undefined;
  if (picks.length < 2 || picks.length > MAX_COMPARED) {
    void vscode.window.showWarningMessage(`Pick 2 to ${MAX_COMPARED} profiles (picked ${picks.length}).`);
    return undefined;
  }
  return startSandboxes(registry, story.label, picks.map((p) => p.label));
}

async function startSandboxes(registry: SessionRegistry, storyline: string, profiles: string[]): Promise<InformerSession[]> {
  const sessions = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Starting ${storyline} as ${profiles.join(' and ')} (SIMULATED)…` },
    () => startSandboxComparison({ storyline, profiles, newId: () => registry.newId() }),
  );
  for (const s of sessions) registry.add(s);
  return sessions;
}

async function askOpen(registry: SessionRegistry): Promise<InformerSession[] | undefined> {
  const all = registry.all();
  if (all.length < 2) {
    void vscode.window.showInformationMessage('Compare needs two open sessions: start informers, replay scenarios or open traces first.');
    return undefined;
  }
  // The reflectors of an observed process (the kinds one controller watches) come preselected.
  const observed = all.filter((s) => s.kind === 'observed' && s.live).slice(0, MAX_COMPARED);
  const picks = await vscode.window.showQuickPick(
    all.map((s) => ({ label: s.title, description: `${s.header().profile} · ${s.live ? 'running' : 'ended'}`, picked: observed.length >= 2 && observed.includes(s), session: s })),
    { placeHolder: `Sessions to show on one time axis (2 to ${MAX_COMPARED})`, canPickMany: true, ignoreFocusOut: true },
  );
  return picks?.map((p) => p.session);
}
