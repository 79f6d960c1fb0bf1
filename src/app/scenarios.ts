/**
 * Scenario files and notification logs for the front-ends: parsing a scenario (every problem one
 * line of a BadInputError), the notification log's text, and logging a live informer's requests
 * and notifications the way a replay logs them.
 */
import type { Profile } from '../engine/profiles';
import type { SharedIndexInformer } from '../engine/sharedInformer';
import type { LogLine } from '../scenario/notificationLog';
import type { Scenario } from '../scenario/types';
import { parseScenarioText, ScenarioValidationError } from '../scenario/validate';
import { loggingHandler } from '../sources/replay';
import { BadInputError } from './errors';

export { formatLog } from '../scenario/notificationLog';

export function parseScenario(text: string, label: string): Scenario {
  try {
    return parseScenarioText(text, label);
  } catch (e) {
    if (e instanceof ScenarioValidationError) throw new BadInputError(e.problems.join('\n'));
    throw e;
  }
}

/** Adds a handler that appends its notifications to `log` as notification-log lines. */
export function addLoggingHandler(informer: SharedIndexInformer, name: string, profile: Profile, log: LogLine[]): void {
  informer.addEventHandler(name, loggingHandler(name, profile, (l) => log.push(l)));
}
