/**
 * What INFORMER_INSPECTOR_AUTOSTART (set by `npm start`, scripts/start.sh) asks the extension to
 * open on activation. Free of 'vscode' so the parsing is unit-tested.
 *   sandbox:<storyline>  the built-in SIMULATED cluster, configmaps in all namespaces, default profile
 *   cluster              the normal "Inspect informer" flow against the user's kubeconfig
 */
import { DEFAULT_PROFILE } from '../app/profiles';
import { STORYLINES, type StorylineName } from '../app/sessions';

export const AUTOSTART_ENV = 'INFORMER_INSPECTOR_AUTOSTART';

export type AutostartRequest =
  | { kind: 'none' }
  | { kind: 'cluster' }
  | { kind: 'sandbox'; storyline: StorylineName; resource: 'configmaps'; namespace: ''; profile: string }
  /** A value we do not understand: shown to the user rather than silently ignored. */
  | { kind: 'invalid'; message: string };

export function parseAutostart(value: string | undefined): AutostartRequest {
  const v = (value ?? '').trim();
  if (v === '') return { kind: 'none' };
  if (v === 'cluster') return { kind: 'cluster' };
  if (v.startsWith('sandbox:')) {
    const name = v.slice('sandbox:'.length);
    const storyline = STORYLINES.find((s) => s === name);
    if (!storyline) return { kind: 'invalid', message: `${AUTOSTART_ENV}: unknown sandbox storyline "${name}" (one of: ${STORYLINES.join(', ')})` };
    return { kind: 'sandbox', storyline, resource: 'configmaps', namespace: '', profile: DEFAULT_PROFILE };
  }
  return { kind: 'invalid', message: `${AUTOSTART_ENV}: "${v}" is neither "cluster" nor "sandbox:<storyline>"` };
}
