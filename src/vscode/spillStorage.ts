/**
 * Where recorders spill past their memory window: a folder per extension host under the
 * extension's global storage (`segments/<pid>`), so windows sharing the storage never touch
 * each other's segments. Folders of extension hosts that no longer run (a crash left them) are
 * removed at start. The bound comes from `informerInspector.spillLimitMB` (0: never spill), the
 * in-memory window from `informerInspector.memoryEvents`, the engine worker's heap limit from
 * `informerInspector.engineHeapLimitMB`.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { configureSessions } from '../app/sessions';
import { endIdleSpillReaders } from '../app/workerSession';

export const SPILL_SETTING = 'spillLimitMB';
export const DEFAULT_SPILL_LIMIT_MB = 1024;
export const MEMORY_SETTING = 'memoryEvents';
export const HEAP_SETTING = 'engineHeapLimitMB';
/** The smallest engine heap limit the setting takes. */
export const MIN_HEAP_LIMIT_MB = 256;
/** The smallest in-memory window the setting takes (the recorder spills a tenth of it at a time). */
export const MIN_MEMORY_EVENTS = 1000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the segment folders of extension hosts that are gone; problems are ignored (it is housekeeping). */
function removeStale(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** Reads the setting and tells the session factory; again whenever the setting changes (for sessions started after). */
export function configureSpill(context: vscode.ExtensionContext): vscode.Disposable {
  const root = join(context.globalStorageUri.fsPath, 'segments');
  removeStale(root);
  const dir = join(root, String(process.pid));
  const apply = () => {
    const config = vscode.workspace.getConfiguration('informerInspector');
    const mb = config.get<number>(SPILL_SETTING, DEFAULT_SPILL_LIMIT_MB);
    const maxBytes = Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : 0;
    const events = config.get<number>(MEMORY_SETTING);
    const cap = typeof events === 'number' && Number.isFinite(events) ? Math.max(MIN_MEMORY_EVENTS, Math.floor(events)) : undefined;
    const heap = config.get<number>(HEAP_SETTING);
    const heapLimitMb = typeof heap === 'number' && Number.isFinite(heap) ? Math.max(MIN_HEAP_LIMIT_MB, Math.floor(heap)) : undefined;
    configureSessions({ spill: maxBytes > 0 ? { dir, maxBytes } : undefined, cap, heapLimitMb });
  };
  apply();
  return vscode.Disposable.from(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`informerInspector.${SPILL_SETTING}`) || e.affectsConfiguration(`informerInspector.${MEMORY_SETTING}`) || e.affectsConfiguration(`informerInspector.${HEAP_SETTING}`)) apply();
    }),
    { dispose: () => endIdleSpillReaders() },
    { dispose: () => rmSync(dir, { recursive: true, force: true }) },
  );
}
