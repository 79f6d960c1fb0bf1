/**
 * The commands that act on a session: stop, export, add handler, fault injection, cache
 * consistency. Each asks which session when several could be meant, and reports problems as
 * messages (a command never throws into the host).
 */
import * as vscode from 'vscode';
import type { FaultDef } from '../app/faults';
import type { SessionRegistry } from '../app/registry';
import type { InformerSession } from '../app/session';
import { pickOrder } from '../app/sessionPick';
import { exportSessionPerfetto, exportSessionTrace } from './traceCommands';

export async function chooseSession(registry: SessionRegistry, onlyRunning: boolean, purpose: string): Promise<InformerSession | undefined> {
  const candidates = onlyRunning ? registry.running() : registry.all();
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(onlyRunning ? 'No informer is running. Start one with "Inspect informer".' : 'No session yet.');
    return undefined;
  }
  if (candidates.length === 1) return candidates[0];
  const shownId = registry.shown?.id;
  const picked = await vscode.window.showQuickPick(
    pickOrder(candidates, shownId).map((s) => ({
      label: s.title,
      description: `${s.live ? 'running' : 'ended'}${s.id === shownId ? ' · on screen' : ''}`,
      session: s,
    })),
    { placeHolder: purpose, ignoreFocusOut: true },
  );
  return picked?.session;
}

async function askNumber(prompt: string, value: string, min: number, max: number): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    prompt,
    value,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const n = Number(v);
      return Number.isFinite(n) && n >= min && n <= max ? undefined : `a number from ${min} to ${max}`;
    },
  });
  return text === undefined ? undefined : Number(text);
}

export async function stopInformer(registry: SessionRegistry): Promise<void> {
  const s = await chooseSession(registry, true, 'Stop which informer?');
  if (s) await s.stop();
}

export async function exportTraceCommand(registry: SessionRegistry): Promise<void> {
  const s = await chooseSession(registry, false, 'Export the trace of which session?');
  if (!s) return;
  const r = await exportSessionTrace(s);
  if (r.ok) void vscode.window.showInformationMessage(r.message);
  else if (r.message !== 'Export cancelled.') void vscode.window.showErrorMessage(r.message);
}

export async function exportPerfettoCommand(registry: SessionRegistry): Promise<void> {
  const s = await chooseSession(registry, false, 'Export which session for Perfetto?');
  if (!s) return;
  const r = await exportSessionPerfetto(s);
  if (r.ok) void vscode.window.showInformationMessage(r.message);
  else if (r.message !== 'Export cancelled.') void vscode.window.showErrorMessage(r.message);
}

export async function addHandlerCommand(registry: SessionRegistry): Promise<void> {
  const s = await chooseSession(registry, true, 'Add a handler to which informer?');
  if (!s?.controls) return;
  const name = await vscode.window.showInputBox({ prompt: 'Handler name', value: `handler-${Date.now() % 1000}`, ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'a name') });
  if (!name) return;
  const seconds = await askNumber('Resync period in seconds (0 = none)', '0', 0, 86_400);
  if (seconds === undefined) return;
  s.controls.addHandler(name.trim(), seconds * 1000);
}

/** Injects a catalogue fault into a running informer, asking for its value first when it has one. */
export async function injectFault(registry: SessionRegistry, fault: FaultDef): Promise<void> {
  const s = await chooseSession(registry, true, 'Inject the fault into which informer?');
  const controls = s?.controls;
  if (!controls) return;
  let valueMs: number | undefined;
  if (fault.param) {
    const p = fault.param;
    const value = await askNumber(p.prompt, String(p.default), p.min, p.max);
    if (value === undefined) return;
    valueMs = p.unit === 's' ? value * 1000 : value;
  }
  controls.injectFault(fault.id, valueMs);
}

export async function checkCacheCommand(registry: SessionRegistry): Promise<void> {
  const s = await chooseSession(registry, true, 'Check the cache of which informer?');
  if (!s?.controls) return;
  const controls = s.controls;
  try {
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Comparing the cache with a consistent LIST…' }, () =>
      controls.checkConsistency(),
    );
    const problems = r.missing.length + r.extra.length + r.rvMismatch.length;
    const text = `Cache check at RV ${r.rv}: ${r.cachedObjects} cached, ${r.serverObjects} on the server; ${r.missing.length} missing, ${r.extra.length} extra, ${r.rvMismatch.length} stale.`;
    if (problems === 0) void vscode.window.showInformationMessage(text);
    else void vscode.window.showWarningMessage(text);
  } catch (e) {
    void vscode.window.showErrorMessage(`Cache check failed: ${(e as Error).message}`);
  }
}
