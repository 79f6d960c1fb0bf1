/**
 * `informer-inspector record --resource PLURAL[.GROUP] [--kubeconfig F] [--context C]
 * [--namespace N] [--selector S] [--profile P] [--duration 60s] [--log OUT.ndjson] [--trace OUT.json]`
 * Runs the engine against a real cluster (GET only) for the duration, then writes the
 * notification log (stdout by default) and the trace.
 */
import { RealClock } from '../engine/clock';
import type { ListerWatcher, ListOptions, WatchOptions } from '../engine/listWatch';
import { DEFAULT_PROFILE } from '../engine/profiles';
import { SharedIndexInformer } from '../engine/sharedInformer';
import { discoverResources, HttpListerWatcher, KubeConfigError, KubeConnection, resolveResource } from '../kube';
import { formatLog, requestLine, type LogLine } from '../scenario/notificationLog';
import { loggingHandler } from '../scenario/replay';
import { TraceRecorder } from '../trace/recorder';
import { exportTrace } from '../trace/traceFile';
import { durationMs, parseCommandArgs, profileNamed, stringOption } from './args';
import { EXIT_OK, UsageError, writeOutput, type CliIo } from './io';
import { TOOL_VERSION } from './version';

export async function recordCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(
    'record',
    args,
    {
      resource: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      namespace: { type: 'string' },
      selector: { type: 'string' },
      profile: { type: 'string' },
      duration: { type: 'string' },
      log: { type: 'string' },
      trace: { type: 'string' },
    },
    0,
  );
  const resourceName = stringOption(parsed, 'resource');
  if (!resourceName) throw new UsageError('record: --resource PLURAL[.GROUP] is required');
  const profile = profileNamed(stringOption(parsed, 'profile') ?? DEFAULT_PROFILE);
  const runMs = durationMs(stringOption(parsed, 'duration') ?? '60s');
  let conn: KubeConnection;
  try {
    conn = KubeConnection.load({ kubeconfigPath: stringOption(parsed, 'kubeconfig'), context: stringOption(parsed, 'context') });
  } catch (e) {
    if (e instanceof KubeConfigError) throw new UsageError(e.message);
    throw e;
  }
  const discovery = await discoverResources(conn);
  let resource;
  try {
    resource = resolveResource(discovery.resources, resourceName);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!resource) throw new UsageError(`unknown resource "${resourceName}" in context ${conn.context.name} (it must support list and watch)`);
  const namespace = stringOption(parsed, 'namespace') ?? '';
  const selector = stringOption(parsed, 'selector');

  const clock = new RealClock();
  const log: LogLine[] = [];
  const recorder = new TraceRecorder({
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: TOOL_VERSION },
    profile: profile.name,
    gates: { ...profile.gates },
    resource: { group: resource.group, version: resource.version, resource: resource.resource, kind: resource.kind, namespaced: resource.namespaced },
    ...(namespace ? { namespace } : {}),
    ...(selector ? { labelSelector: selector } : {}),
    context: conn.context.name,
    source: 'cluster',
    startedAt: new Date().toISOString(),
    cap: 200_000,
    redacted: true,
  });
  const http = new HttpListerWatcher(conn, resource, { namespace, clock });
  const informer = new SharedIndexInformer({
    listerWatcher: loggedWithSelector(http, selector, log),
    profile,
    clock,
    sink: recorder,
    typeDescription: `${resource.group ? resource.group + '/' : ''}${resource.version}, Kind=${resource.kind}`,
    name: 'informer-inspector record',
  });
  informer.addEventHandler('main', loggingHandler('main', profile, (l) => log.push(l)));
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  io.stderr(`recording ${resource.resource}${resource.group ? '.' + resource.group : ''} from ${conn.context.name} for ${runMs / 1000}s (Ctrl-C stops early)\n`);
  let timer;
  await Promise.race([io.interrupted(), new Promise<void>((r) => (timer = clock.setTimer(runMs, r)))]);
  (timer as { cancel(): void } | undefined)?.cancel();
  stop.abort();
  await running;
  log.push({ kind: 'end' });

  const logPath = stringOption(parsed, 'log');
  if (logPath !== undefined) writeOutput(io, logPath, formatLog(log), 'log');
  else io.stdout(formatLog(log));
  const tracePath = stringOption(parsed, 'trace');
  if (tracePath !== undefined) writeOutput(io, tracePath, exportTrace(recorder), 'trace');
  return EXIT_OK;
}

/** Adds the label selector to every request and logs it as a request line. */
function loggedWithSelector(lw: ListerWatcher, selector: string | undefined, log: LogLine[]): ListerWatcher {
  const sel = <T extends ListOptions | WatchOptions>(o: T): T => (selector ? { ...o, labelSelector: selector } : o);
  return {
    url: lw.url,
    watchListSupported: lw.watchListSupported,
    list(o, signal) {
      log.push(requestLine('list', o));
      return lw.list(sel(o), signal);
    },
    watch(o, signal) {
      log.push(requestLine('watch', o));
      return lw.watch(sel(o), signal);
    },
  };
}
