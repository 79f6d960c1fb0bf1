/**
 * `informer-inspector replay SCENARIO.json [--profile P] [--log OUT.ndjson] [--trace OUT.json] [--seed N]`
 * Runs a scenario through the engine in virtual time; the notification log goes to stdout or
 * --log, the trace (informer-trace/v1) to --trace. Exit 0 when the run ends without divergence.
 */
import { DEFAULT_PROFILE, withGates, type Profile } from '../engine/profiles';
import { replayScenario } from '../sources/engineReplay';
import { formatLog } from '../scenario/notificationLog';
import type { Scenario } from '../scenario/types';
import { parseScenarioText, ScenarioValidationError } from '../scenario/validate';
import { TraceRecorder } from '../trace/recorder';
import { exportTrace } from '../trace/traceFile';
import { intOption, parseCommandArgs, profileNamed, stringOption } from './args';
import { EXIT_FAILED, EXIT_OK, fileLabel, readInput, UsageError, writeOutput, type CliIo } from './io';
import { TOOL_VERSION } from './version';

export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(
    'replay',
    args,
    { profile: { type: 'string' }, log: { type: 'string' }, trace: { type: 'string' }, seed: { type: 'string' } },
    1,
  );
  const path = parsed.positionals[0];
  if (!path) throw new UsageError('replay: missing SCENARIO.json');
  const scenario = loadScenario(io, path);
  const profile = chooseProfile(scenario, stringOption(parsed, 'profile'), io);
  const recorder = stringOption(parsed, 'trace') !== undefined ? new TraceRecorder(traceHeader(scenario, profile)) : undefined;

  const result = await replayScenario(scenario, { profile, seed: intOption(parsed, 'seed'), sink: recorder });

  const logPath = stringOption(parsed, 'log');
  if (logPath !== undefined) writeOutput(io, logPath, formatLog(result.log), 'log');
  else io.stdout(formatLog(result.log));
  const tracePath = stringOption(parsed, 'trace');
  if (recorder && tracePath !== undefined) writeOutput(io, tracePath, exportTrace(recorder), 'trace');

  if (result.outcome !== 'ended') {
    io.stderr(`replay ${fileLabel(path)}: the run did not end normally (${result.outcome}${result.error ? `: ${result.error}` : ''})\n`);
    return EXIT_FAILED;
  }
  if (result.diverged) {
    io.stderr(`replay ${fileLabel(path)}: the informer's requests diverged from the scenario's steps (see the divergence line)\n`);
    return EXIT_FAILED;
  }
  return EXIT_OK;
}

export function loadScenario(io: CliIo, path: string): Scenario {
  const text = readInput(io, path, 'scenario');
  try {
    return parseScenarioText(text, fileLabel(path));
  } catch (e) {
    // Every problem is one line; the first is the error, the rest follow it on stderr.
    if (e instanceof ScenarioValidationError) throw new UsageError(e.problems.join('\n'));
    throw e;
  }
}

/** --profile wins; otherwise the default profile, or the scenario's first if it is not meant for the default. */
function chooseProfile(scenario: Scenario, requested: string | undefined, io: CliIo): Profile {
  const meantFor = scenario.profiles;
  if (requested !== undefined) {
    const p = profileNamed(requested);
    if (meantFor && !meantFor.includes(p.name)) {
      io.stderr(`warning: scenario ${scenario.name} is meant for ${meantFor.join(', ')}, not ${p.name}; replaying anyway\n`);
    }
    return p;
  }
  return profileNamed(meantFor && !meantFor.includes(DEFAULT_PROFILE) ? meantFor[0] : DEFAULT_PROFILE);
}

function traceHeader(scenario: Scenario, profile: Profile): ConstructorParameters<typeof TraceRecorder>[0] {
  const r = scenario.resource;
  const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/', 2) : ['', r.apiVersion];
  return {
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: TOOL_VERSION },
    profile: profile.name,
    gates: { ...withGates(profile, scenario.gates).gates },
    resource: { group, version, resource: r.resource ?? `${r.kind.toLowerCase()}s`, kind: r.kind, namespaced: r.namespaced ?? true },
    source: 'scenario',
    startedAt: new Date().toISOString(),
    cap: 200_000,
    redacted: true,
  };
}
