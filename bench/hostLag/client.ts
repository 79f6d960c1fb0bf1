/**
 * One measured run of the host-lag benchmark, in its own process: a session opened the way the
 * extension opens it (createSession, kind 'cluster') on the paced apiserver, with a visible
 * timeline fed by the extension's TimelineStream (snapshot, then a delta every 33 ms with the
 * summary; each message serialised as postMessage would) and the status bar's 1 s poll. The
 * event-loop delay of this thread — the extension host's — is sampled with
 * perf_hooks.monitorEventLoopDelay while the informer handles the paced watch.
 *
 *   node --import tsx bench/hostLag/client.ts <apiserver url> <host|worker> <seconds>
 *
 * Prints one JSON line (ClientResult).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { benchKubeconfig } from '../benchKubeconfig';
import { profileNamed } from '../../src/app/profiles';
import { connect } from '../../src/app/resources';
import { configureSessions, createSession } from '../../src/app/sessions';
import { TimelineStream } from '../../src/vscode/timelineStream';
import { statusText } from '../../src/vscode/statusText';
import { engineWorkerBundle } from '../../test/support/engineWorker';

export interface ClientResult {
  engine: 'host' | 'worker';
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** watch.event events the host received during the measured window, per second. */
  eventsPerSecond: number;
  /** Messages the timeline would have posted, and their bytes. */
  posts: number;
  postedMB: number;
  /** CPU ms of this process (all threads) per wall second during the window. */
  cpuPerSecondMs: number;
}

async function main(): Promise<void> {
  const [url, engine, secondsArg] = process.argv.slice(2);
  if (!url || (engine !== 'host' && engine !== 'worker')) throw new Error('usage: client.ts <url> <host|worker> <seconds>');
  const seconds = Number(secondsArg ?? '10');
  configureSessions(engine === 'worker' ? { engine, workerFile: engineWorkerBundle() } : { engine });
  const kubeconfigYaml = benchKubeconfig(url);
  const conn = connect({ kubeconfigYaml });
  const resource = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, name: 'pods', verbs: ['list', 'watch'], shortNames: [] } as never;
  const session = await createSession('bench', { kind: 'cluster', conn, resource, profile: profileNamed('v1.36'), namespace: '' });

  let posts = 0;
  let postedBytes = 0;
  const stream = new TimelineStream(
    (msg) => {
      posts++;
      postedBytes += JSON.stringify(msg).length;
    },
    () => [session.info()],
    'No informer running',
  );
  stream.show(session);
  stream.onReady();
  const status = setInterval(() => statusText([session]), 1000);

  // The window starts once the watch is open and events flow.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no watch events within 60 s')), 60_000);
    const off = session.subscribe((batch) => {
      if (!batch.some((e) => e.type === 'watch.event')) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
  let watchEvents = 0;
  const off = session.subscribe((batch) => {
    for (const e of batch) if (e.type === 'watch.event') watchEvents++;
  });
  const h = monitorEventLoopDelay({ resolution: 5 });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  h.enable();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  h.disable();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  off();
  clearInterval(status);
  stream.dispose();
  await session.close();
  const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;
  const result: ClientResult = {
    engine,
    p50Ms: ms(h.percentile(50)),
    p99Ms: ms(h.percentile(99)),
    maxMs: ms(h.max),
    eventsPerSecond: Math.round(watchEvents / (wall / 1000)),
    posts,
    postedMB: Math.round((postedBytes / 1e6) * 10) / 10,
    cpuPerSecondMs: Math.round((cpu.user + cpu.system) / 1000 / (wall / 1000)),
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`host-lag client: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
