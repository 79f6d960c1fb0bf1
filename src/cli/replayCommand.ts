/**
 * `informer-inspector replay SCENARIO.json [--profile P] [--log OUT.ndjson] [--trace OUT.json] [--seed N]`
 * Runs a scenario through the engine in virtual time; the notification log goes to stdout or
 * --log, the trace (informer-trace/v1) to --trace. Exit 0 when the run ends without divergence.
 */
import { formatLog, parseScenario } from '../app/scenarios';
import { replay } from '../app/sessions';
import { exportTrace } from '../app/traces';
import type { Scenario } from '../scenario/types';
import { intOption, jsonOutput, jsonText, parseCommandArgs, stringOption } from './args';
import { EXIT_FAILED, EXIT_OK, fileLabel, readInput, UsageError, writeOutput, type CliIo } from './io';

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
  const tracePath = stringOption(parsed, 'trace');
  const run = await replay(scenario, { profile: stringOption(parsed, 'profile'), seed: intOption(parsed, 'seed'), trace: tracePath !== undefined });
  if (run.warning) io.stderr(`warning: ${run.warning}\n`);
  const { result, recorder } = run;

  const json = jsonOutput(parsed);
  const logPath = stringOption(parsed, 'log');
  if (logPath !== undefined) writeOutput(io, logPath, formatLog(result.log), 'log');
  else if (!json) io.stdout(formatLog(result.log));
  if (recorder && tracePath !== undefined) writeOutput(io, tracePath, exportTrace(recorder), 'trace');

  if (json) {
    io.stdout(
      jsonText({
        scenario: scenario.name,
        profile: run.profile.name,
        outcome: result.outcome,
        diverged: result.diverged,
        ...(result.error ? { error: result.error } : {}),
        log: logPath ?? result.log,
        ...(tracePath !== undefined ? { trace: tracePath } : {}),
      }),
    );
  }
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
  return parseScenario(readInput(io, path, 'scenario'), fileLabel(path));
}
