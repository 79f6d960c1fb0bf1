/**
 * `informer-inspector record --resource PLURAL[.GROUP] [--kubeconfig F] [--context C]
 * [--namespace N] [--selector S] [--profile P] [--duration 60s] [--log OUT.ndjson] [--trace OUT.json]
 * [--fault SPEC]… [--check-consistency AT]… [--consistency-every D] [--quiet]`
 * Runs the engine against a real cluster (GET only) for the duration, optionally injecting
 * faults and checking the cache against the server on a schedule, then writes the notification
 * log (stdout by default) and the trace, and prints the findings on stderr.
 */
import { addLoggingHandler, formatLog } from '../app/scenarios';
import { computeFindings, exportTrace } from '../app/traces';
import type { LogLine } from '../scenario/notificationLog';
import { durationMs, parseCommandArgs, stringListOption, stringOption } from './args';
import { describeConsistency } from './checkConsistencyCommand';
import { consistencySchedule, faultOf, parseFaultSpec, scheduleFaults } from './faultSpecs';
import { formatFindings } from './findingsText';
import { EXIT_OK, writeOutput, type CliIo } from './io';
import type { LiveInformer } from '../app/liveInformer';
import { resourceLabel } from '../app/resources';
import { LIVE_TARGET_OPTIONS, liveTargetOf, openLiveInformer } from './liveTarget';

function secondsLabel(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

export async function recordCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(
    'record',
    // `--check-consistency@30s` reads like the --fault specs; parseArgs wants `--check-consistency=@30s`.
    args.map((a) => a.replace(/^--check-consistency@/, '--check-consistency=@')),
    {
      ...LIVE_TARGET_OPTIONS,
      duration: { type: 'string' },
      log: { type: 'string' },
      trace: { type: 'string' },
      fault: { type: 'string', multiple: true },
      'check-consistency': { type: 'string', multiple: true },
      'consistency-every': { type: 'string' },
      quiet: { type: 'boolean' },
    },
    0,
  );
  const target = liveTargetOf('record', parsed);
  const runMs = durationMs(stringOption(parsed, 'duration') ?? '60s');
  const faultSpecs = stringListOption(parsed, 'fault').map((f) => parseFaultSpec(f, runMs));
  const checkTimes = consistencySchedule(stringListOption(parsed, 'check-consistency'), stringOption(parsed, 'consistency-every'), runMs);
  const quiet = parsed.values.quiet === true;
  const note = (text: string): void => {
    if (!quiet) io.stderr(text + '\n');
  };

  const log: LogLine[] = [];
  const { conn, resource, live } = await openLiveInformer(target, io, log);
  addLoggingHandler(live.informer, 'main', target.profile, log);
  const { clock } = live;
  const startedAt = clock.now();
  const cancelFaults = scheduleFaults(faultSpecs, { clock, faults: live.faults, addSlowHandler: (ms) => live.addSlowHandler(ms) });
  const checks = scheduleChecks(live, checkTimes, (t, lines) => note([`consistency check at ${secondsLabel(t - startedAt)}: ${lines[0]}`, ...lines.slice(1)].join('\n')));

  live.start();
  note(`recording ${resourceLabel(resource)} from ${conn.context.name} for ${runMs / 1000}s (Ctrl-C stops early)`);
  let timer: { cancel(): void } | undefined;
  await Promise.race([io.interrupted(), new Promise<void>((r) => (timer = clock.setTimer(runMs, r)))]);
  timer?.cancel();
  cancelFaults();
  checks.cancel();
  await live.stop();
  await checks.done();
  log.push({ kind: 'end' });

  const logPath = stringOption(parsed, 'log');
  if (logPath !== undefined) writeOutput(io, logPath, formatLog(log), 'log');
  else io.stdout(formatLog(log));
  const tracePath = stringOption(parsed, 'trace');
  if (tracePath !== undefined) writeOutput(io, tracePath, exportTrace(live.recorder), 'trace');

  const pending = new Set<string>(live.faults.pendingFaults());
  for (const spec of faultSpecs) {
    if (faultOf(spec).oneShot && pending.has(spec.fault)) note(`fault ${spec.text} was armed but never took effect (no matching request or event came)`);
  }
  if (!quiet) io.stderr(formatFindings(computeFindings(live.recorder.header(), live.recorder.events())).join('\n') + '\n');
  return EXIT_OK;
}

/**
 * Runs a consistency check at each time (ms into the recording), one after another; a check
 * still running when the recording ends is aborted with the informer and reported as such.
 */
function scheduleChecks(live: LiveInformer, times: readonly number[], report: (t: number, lines: string[]) => void) {
  const { clock } = live;
  let chain: Promise<void> = Promise.resolve();
  const run = async () => {
    const t = clock.now();
    try {
      report(t, describeConsistency(await live.checkConsistency()));
    } catch (e) {
      report(t, [live.stopSignal.aborted ? 'not finished: the recording ended first' : `failed: ${(e as Error).message}`]);
    }
  };
  const timers = times.map((at) =>
    clock.setTimer(at, () => {
      chain = chain.then(run);
    }),
  );
  return {
    cancel: () => timers.forEach((t) => t.cancel()),
    done: () => chain,
  };
}
