/**
 * `informer-inspector record --resource PLURAL[.GROUP] [--kubeconfig F] [--context C]
 * [--namespace N] [--selector S] [--profile P] [--duration 60s] [--log OUT.ndjson] [--trace OUT.json]
 * [--fault SPEC]… [--check-consistency AT]… [--consistency-every D] [--quiet]`
 * Runs the engine against a real cluster (GET only) for the duration, optionally injecting
 * faults and checking the cache against the server on a schedule, then writes the notification
 * log (stdout by default) and the trace, and prints the findings on stderr.
 */
import { addLoggingHandler, formatLog } from '../app/scenarios';
import { ACCESS_FINDING_IDS, collectEvents, computeFindings, DEFAULT_SPILL_LIMIT_BYTES, exportTrace } from '../app/traces';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogLine } from '../scenario/notificationLog';
import { durationMs, jsonOutput, jsonText, parseCommandArgs, stringListOption, stringOption } from './args';
import { describeConsistency } from './checkConsistencyCommand';
import { consistencySchedule, faultOf, parseFaultSpec, scheduleFaults } from './faultSpecs';
import { formatFindings } from './findingsText';
import { EXIT_FAILED, EXIT_OK, writeOutput, type CliIo } from './io';
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
      quiet: { type: 'boolean', short: 'q' },
      'progress-every': { type: 'string' },
    },
    1,
  );
  const target = liveTargetOf('record', parsed);
  const runMs = durationMs(stringOption(parsed, 'duration') ?? '60s');
  const faultSpecs = stringListOption(parsed, 'fault').map((f) => parseFaultSpec(f, runMs));
  const checkTimes = consistencySchedule(stringListOption(parsed, 'check-consistency'), stringOption(parsed, 'consistency-every'), runMs);
  const quiet = parsed.values.quiet === true;
  const json = jsonOutput(parsed);
  const progressMs = durationMs(stringOption(parsed, 'progress-every') ?? '10s');
  const note = (text: string): void => {
    if (!quiet) io.stderr(text + '\n');
  };

  const log: LogLine[] = [];
  // A long recording keeps everything: past the recorder's memory window its oldest events go to
  // a segment file in the temp directory (bounded, deleted when the command ends).
  const spill = { dir: join(tmpdir(), 'informer-inspector-segments'), maxBytes: DEFAULT_SPILL_LIMIT_BYTES, name: `record-${process.pid}` };
  const { conn, resource, namespace, live } = await openLiveInformer(target, io, log, spill);
  try {
    return await recordWith(live);
  } finally {
    live.release();
  }

  async function recordWith(live: LiveInformer): Promise<number> {
    addLoggingHandler(live.informer, 'main', target.profile, log);
    const { clock } = live;
    const startedAt = clock.now();
    const cancelFaults = scheduleFaults(faultSpecs, { clock, faults: live.faults, addSlowHandler: (ms) => live.addSlowHandler(ms) });
    const checks = scheduleChecks(live, checkTimes, (t, lines) => note([`consistency check at ${secondsLabel(t - startedAt)}: ${lines[0]}`, ...lines.slice(1)].join('\n')));

    live.start();
    const where = namespace ? `namespace ${namespace}` : resource.namespaced ? 'all namespaces' : 'cluster-scoped';
    note(`recording ${resourceLabel(resource)} (${where}) from ${conn.context.name} for ${runMs / 1000}s (Ctrl-C stops early)`);
    const progress = quiet ? undefined : progressReporter(live, startedAt, progressMs, note);
    let timer: { cancel(): void } | undefined;
    await Promise.race([io.interrupted(), new Promise<void>((r) => (timer = clock.setTimer(runMs, r)))]);
    timer?.cancel();
    progress?.cancel();
    cancelFaults();
    checks.cancel();
    await live.stop();
    await checks.done();
    log.push({ kind: 'end' });

    const logPath = stringOption(parsed, 'log');
    if (logPath !== undefined) writeOutput(io, logPath, formatLog(log), 'log');
    else if (!json) io.stdout(formatLog(log));
    const tracePath = stringOption(parsed, 'trace');
    if (tracePath !== undefined) writeOutput(io, tracePath, exportTrace({ header: live.recorder.header(), events: await collectEvents(live.recorder.allEvents()) }), 'trace');

    const pending = new Set<string>(live.faults.pendingFaults());
    const notTaken: string[] = [];
    for (const spec of faultSpecs) {
      if (faultOf(spec).oneShot && pending.has(spec.fault)) notTaken.push(spec.text);
    }
    for (const f of notTaken) note(`fault ${f} was armed but never took effect (no matching request or event came)`);
    const findings = computeFindings(live.recorder.header(), live.recorder.eventsByType());
    if (json) {
      io.stdout(
        jsonText({
          context: conn.context.name,
          resource: resourceLabel(resource),
          namespace,
          profile: target.profile.name,
          durationMs: clock.now() - startedAt,
          synced: live.informer.hasSynced(),
          objects: live.informer.getIndexer().list().length,
          requests: log.filter((l) => l.kind === 'request').length,
          events: live.recorder.held,
          faultsNotTaken: notTaken,
          findings,
          ...(logPath !== undefined ? { log: logPath } : {}),
          ...(tracePath !== undefined ? { trace: tracePath } : {}),
        }),
      );
    } else if (!quiet) io.stderr(formatFindings(findings).join('\n') + '\n');
    // Refused access is a failed run, reported even with --quiet: the informer could not read its resource.
    const denied = findings.filter((f) => ACCESS_FINDING_IDS.includes(f.id));
    for (const f of denied) io.stderr(`informer-inspector record: ${f.title}\n  ${f.detail}\n  fix: ${f.advice}\n`);
    return denied.length ? EXIT_FAILED : EXIT_OK;
  }
}

/** One stderr line every period while recording: what the reflector does and what the cache holds. */
function progressReporter(live: LiveInformer, startedAt: number, periodMs: number, note: (text: string) => void): { cancel(): void } {
  const { clock } = live;
  let state = 'starting';
  let requests = 0;
  let relists = 0;
  const unsubscribe = live.recorder.subscribe((batch) => {
    for (const e of batch) {
      if (e.type === 'reflector.state') state = e.state;
      else if (e.type === 'request') requests++;
      else if (e.type === 'relist') relists++;
    }
  });
  let timer: { cancel(): void } | undefined;
  const tick = () => {
    const objects = live.informer.getIndexer().list().length;
    note(`  ${secondsLabel(clock.now() - startedAt)}: ${state}, ${live.informer.hasSynced() ? 'synced' : 'not synced'}, ${objects} object(s) cached, ${requests} request(s), ${relists} relist(s)`);
    timer = clock.setTimer(periodMs, tick);
  };
  timer = clock.setTimer(periodMs, tick);
  return {
    cancel: () => {
      timer?.cancel();
      unsubscribe();
    },
  };
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
