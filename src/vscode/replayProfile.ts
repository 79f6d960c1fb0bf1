/** Which profile "Replay scenario" uses. Free of 'vscode' (unit-tested). */
import { DEFAULT_PROFILE } from '../engine/profiles';

/**
 * The default profile if the scenario allows it (no `profiles` list, or one naming it), else the
 * scenario's first profile: a scenario written for v1.15 only must not replay as v1.36.
 */
export function replayProfileName(scenarioProfiles: readonly string[] | undefined): string {
  if (!scenarioProfiles || scenarioProfiles.length === 0 || scenarioProfiles.includes(DEFAULT_PROFILE)) return DEFAULT_PROFILE;
  return scenarioProfiles[0];
}
