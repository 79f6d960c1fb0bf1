/**
 * `informer-inspector check-consistency --resource PLURAL[.GROUP] [--kubeconfig F] [--context C]
 * [--namespace N] [--selector S] [--profile P] [--wait D] [--timeout D] [--trace OUT.json]`
 * Syncs a live informer, lets it run for --wait, then compares its cache with a consistent LIST
 * (src/trace/consistency.ts, which confirms a difference with a second round) and prints the
 * differences. Exit 0 when the cache matches, 1 when it is stale or the informer never synced.
 */
import type { ConsistencyResult } from '../trace/consistency';
import { durationMs, jsonOutput, jsonText, offsetMs, parseCommandArgs, stringOption } from './args';
import { EXIT_FAILED, EXIT_OK, UsageError, writeOutput, type CliIo } from './io';
import { RunError } from '../app/errors';
import { exportTrace } from '../app/traces';
import type { LiveInformer } from '../app/liveInformer';
import { resourceLabel } from '../app/resources';
import { LIVE_TARGET_OPTIONS, liveTargetOf, openLiveInformer } from './liveTarget';

const SYNC_POLL_MS = 100;

/** The result in words: the first line says whether the cache is stale, the others list the differences. */
export function describeConsistency(r: ConsistencyResult): string[] {
  if (!isStale(r)) return [`cache matches the server: ${r.serverObjects} object(s) at RV ${r.rv}`];
  const lines = [`cache is STALE against the server at RV ${r.rv} (${r.serverObjects} object(s) on the server, ${r.cachedObjects} cached)`];
  if (r.extra.length) lines.push(`  in the cache but deleted on the server (a lost delete): ${r.extra.join(', ')}`);
  if (r.missing.length) lines.push(`  on the server but missing from the cache: ${r.missing.join(', ')}`);
  for (const m of r.rvMismatch) lines.push(`  ${m.key}: cache has resourceVersion ${m.cached}, the server ${m.server}`);
  return lines;
}

export function isStale(r: ConsistencyResult): boolean {
  return r.missing.length + r.extra.length + r.rvMismatch.length > 0;
}

export async function checkConsistencyCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(
    'check-consistency',
    args,
    { ...LIVE_TARGET_OPTIONS, wait: { type: 'string' }, timeout: { type: 'string' }, trace: { type: 'string' } },
    1,
  );
  const target = liveTargetOf('check-consistency', parsed);
  const json = jsonOutput(parsed);
  const waitText = stringOption(parsed, 'wait') ?? '0s';
  const waitMs = offsetMs(waitText);
  if (waitMs === undefined) throw new UsageError(`invalid --wait "${waitText}" (examples: 0s, 30s, 2m)`);
  const timeoutMs = durationMs(stringOption(parsed, 'timeout') ?? '60s');

  const { conn, resource, namespace, live } = await openLiveInformer(target, io);
  live.start();
  io.stderr(`syncing an informer on ${resourceLabel(resource)} from ${conn.context.name}…\n`);
  let result: ConsistencyResult;
  try {
    await waitForSync(live, timeoutMs);
    if (waitMs > 0) {
      io.stderr(`synced; letting the informer run for ${waitMs / 1000}s before the check\n`);
      await live.clock.sleep(waitMs, live.stopSignal);
    }
    result = await live.checkConsistency();
  } finally {
    await live.stop();
  }
  const tracePath = stringOption(parsed, 'trace');
  if (tracePath !== undefined) writeOutput(io, tracePath, exportTrace(live.recorder), 'trace');
  if (json) {
    io.stdout(jsonText({ context: conn.context.name, resource: resourceLabel(resource), namespace, stale: isStale(result), ...result }));
  } else io.stdout(describeConsistency(result).join('\n') + '\n');
  return isStale(result) ? EXIT_FAILED : EXIT_OK;
}

/** Resolves once the informer has synced; after timeoutMs fails with the last list error seen. */
async function waitForSync(live: LiveInformer, timeoutMs: number): Promise<void> {
  const deadline = live.clock.now() + timeoutMs;
  while (!live.informer.hasSynced()) {
    if (live.clock.now() >= deadline) {
      throw new RunError(`the informer did not sync within ${timeoutMs / 1000}s${lastError(live) ? `; last error: ${lastError(live)}` : ''}`);
    }
    await live.clock.sleep(SYNC_POLL_MS, live.stopSignal);
  }
}

/** The text of the last list or watch error the informer met (what its watch error handler saw). */
function lastError(live: LiveInformer): string | undefined {
  const events = live.recorder.events();
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === 'list.error' || e.type === 'watchErrorHandler') return e.text;
  }
  return undefined;
}
