/**
 * One measured run of the host-lag benchmark, in its own process: a session opened the way the
 * extension opens it (createSession, kind 'cluster') on the paced apiserver, with a visible
 * timeline fed by the extension's TimelineStream (snapshot, then a delta every 33 ms with the
 * summary; each message serialised the way VS Code's extension host serialises a webview
 * message: JSON with every ArrayBuffer lifted out) and the status bar's 1 s poll. The
 * event-loop delay of this thread — the extension host's — is sampled with
 * perf_hooks.monitorEventLoopDelay while the informer handles the paced watch.
 *
 *   node --import tsx bench/hostLag/client.ts <apiserver url> <host|worker> <seconds>
 *
 * Engine `idle` opens no session: the same sampling in a process that does nothing, the
 * machine's own scheduling delay at that moment (the floor under the other two).
 *
 * Prints one JSON line (ClientResult).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { benchKubeconfig } from '../benchKubeconfig';
import { profileNamed } from '../../src/app/profiles';
import { connect } from '../../src/app/resources';
import { configureSessions, createSession } from '../../src/app/sessions';
import { TimelineStream } from '../../src/vscode/timelineStream';
import { statusText } from '../../src/vscode/statusText';
import { engineWorkerBundle } from '../../test/support/engineWorker';
import { ROW_TYPES, type ColumnBatch } from '../../src/protocol/eventColumns';
import type { InformerSession } from '../../src/app/session';

const WATCH_EVENT = ROW_TYPES.indexOf('watch.event');

/**
 * The bytes of a webview message as VS Code's extension host sends it (extHostWebviewMessaging
 * serializeWebviewMessage, for extensions made for VS Code ≥ 1.57): JSON.stringify with every
 * ArrayBuffer replaced by a reference into a list of buffers, which travel as they are.
 */
function serializedBytes(msg: unknown): number {
  const buffers: ArrayBuffer[] = [];
  const json = JSON.stringify(msg, (_k, v: unknown) => {
    if (v instanceof ArrayBuffer) {
      let index = buffers.indexOf(v);
      if (index < 0) index = buffers.push(v) - 1;
      return { $$vscode_array_buffer_reference$$: true, index };
    }
    return v;
  });
  return json.length + buffers.reduce((n, b) => n + b.byteLength, 0);
}

/** Counts the session's watch events as they reach this thread: rows of a worker's chunks, or the host recorder's events. */
function countWatchEvents(session: InformerSession, engine: string, add: (n: number) => void): () => void {
  if (engine === 'worker') {
    return session.subscribeColumns((c: ColumnBatch) => {
      const types = new Uint8Array(c.columns.type, 0, c.count);
      let n = 0;
      for (let i = 0; i < c.count; i++) if (types[i] === WATCH_EVENT) n++;
      add(n);
    });
  }
  return session.subscribe((batch) => add(batch.filter((e) => e.type === 'watch.event').length));
}

export interface ClientResult {
  engine: 'host' | 'worker' | 'idle';
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
  /** This thread's JS heap at the end of the window (the worker's heap is its own). */
  heapMB: number;
}

async function main(): Promise<void> {
  const [url, engine, secondsArg] = process.argv.slice(2);
  if (!url || (engine !== 'host' && engine !== 'worker' && engine !== 'idle')) throw new Error('usage: client.ts <url> <host|worker|idle> <seconds>');
  const seconds = Number(secondsArg ?? '10');
  if (engine === 'idle') return report(engine, await sample(seconds), 0, 0, 0);
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
      postedBytes += serializedBytes(msg);
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
    const off = countWatchEvents(session, engine, (n) => {
      if (n === 0) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
  let watchEvents = 0;
  const off = countWatchEvents(session, engine, (n) => (watchEvents += n));
  const sampled = await sample(seconds);
  off();
  clearInterval(status);
  stream.dispose();
  await session.close();
  report(engine, sampled, watchEvents, posts, postedBytes);
}

interface Sampled {
  h: IntervalHistogram;
  wall: number;
  cpu: NodeJS.CpuUsage;
  heapMB: number;
}

/** This thread's event-loop delay, CPU and heap over `seconds`. */
async function sample(seconds: number): Promise<Sampled> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  h.enable();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  h.disable();
  const wall = performance.now() - t0;
  return { h, wall, cpu: process.cpuUsage(cpu0), heapMB: Math.round(process.memoryUsage().heapUsed / 1e5) / 10 };
}

function report(engine: ClientResult['engine'], { h, wall, cpu, heapMB }: Sampled, watchEvents: number, posts: number, postedBytes: number): void {
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
    heapMB,
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
