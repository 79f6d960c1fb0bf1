/**
 * Profile choice and gate resolution, the same for every front-end. A profile is looked up by
 * name; a scenario may say which profiles it is meant for and which gates it sets, and the
 * engine runs with withGates(profile, scenario.gates): gates the profile's client-go does not
 * know, or locks, keep the profile's value. The effective profile is what trace headers record.
 */
import { DEFAULT_PROFILE, findProfile, PROFILES, withGates, type Profile } from '../engine/profiles';
import type { Scenario } from '../scenario/types';
import { BadInputError } from './errors';

export { DEFAULT_PROFILE, PROFILES } from '../engine/profiles';

export function profileNamed(name: string): Profile {
  const p = findProfile(name);
  if (!p) throw new BadInputError(`unknown profile "${name}" (one of: ${PROFILES.map((x) => x.name).join(', ')})`);
  return p;
}

/**
 * The default profile if the scenario allows it (no `profiles` list, or one naming it), else the
 * scenario's first profile: a scenario written for v1.15 only must not replay as v1.36.
 */
export function replayProfileName(scenarioProfiles: readonly string[] | undefined): string {
  if (!scenarioProfiles || scenarioProfiles.length === 0 || scenarioProfiles.includes(DEFAULT_PROFILE)) return DEFAULT_PROFILE;
  return scenarioProfiles[0];
}

export interface ReplayProfile {
  /** The profile with the scenario's gates applied: what the engine runs and the header records. */
  profile: Profile;
  /** Set when the requested profile is not one the scenario is meant for (the replay goes ahead). */
  warning?: string;
}

/** The profile a scenario replays with: the requested one, else replayProfileName's choice; gates resolved. */
export function replayProfile(scenario: Scenario, requested?: string): ReplayProfile {
  const meantFor = scenario.profiles;
  const base = profileNamed(requested ?? replayProfileName(meantFor));
  const profile = withGates(base, scenario.gates);
  const warning =
    requested !== undefined && meantFor && meantFor.length > 0 && !meantFor.includes(base.name)
      ? `scenario ${scenario.name} is meant for ${meantFor.join(', ')}, not ${base.name}; replaying anyway`
      : undefined;
  return { profile, ...(warning ? { warning } : {}) };
}
