/**
 * The host side of a session whose engine runs in a worker thread (engineWorker.ts): one worker
 * per session, so a session that fails or is stopped takes nothing else with it and terminating
 * its worker frees everything it held (sockets, timers, the informer's cache).
 *
 * The host keeps only a TraceMirror of the worker's recorder, fed by batches. stop() asks the
 * worker to stop and terminates it when it has not ended within STOP_TIMEOUT_MS. A worker that
 * throws or exits on its own ends the session with one line (InformerSession.failure); nothing
 * is thrown into the extension host.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { FaultName } from '../format/events';
import { removeSegment } from '../trace/segments';
import type { ConsistencyResult } from '../trace/consistency';
import { RunError } from './errors';
import { InformerSession, type LiveControls, type SessionKind } from './session';
import { TraceMirror } from './traceMirror';
import type { HostToWorker, WorkerCall, WorkerSpec, WorkerStart, WorkerToHost } from './workerProtocol';
import { ENGINE_WORKER_LIMITS, outOfMemoryMessage } from './workerLimits';

/** How long a stopping worker may take before it is terminated. */
export const STOP_TIMEOUT_MS = 5000;

export interface WorkerOptions {
  /** The worker's script (default: engineWorker.js beside this bundle, or engineWorker.ts under tsx). */
  workerFile?: string;
  spill?: { dir: string; maxBytes: number };
  cap?: number;
  batchIntervalMs?: number;
  batchMaxEvents?: number;
  /** The worker's resource limits (default ENGINE_WORKER_LIMITS; tests set smaller ones). */
  resourceLimits?: Readonly<ResourceLimits>;
}

/** The worker script and how to run it: the bundle's sibling file, or the TypeScript source under tsx (tests, benchmarks). */
export function workerScript(file?: string): { file: string; execArgv?: string[] } {
  const bundled = join(__dirname, 'engineWorker.js');
  const source = join(__dirname, 'engineWorker.ts');
  const chosen = file ?? (existsSync(bundled) ? bundled : source);
  return chosen.endsWith('.ts') ? { file: chosen, execArgv: ['--require', 'tsx/cjs'] } : { file: chosen };
}

interface Pending {
  resolve: (v: ConsistencyResult | undefined) => void;
  reject: (e: Error) => void;
}

/**
 * Starts the worker on `spec` and resolves once it runs (a replay: once it has finished) with its
 * session; a worker that fails to start rejects with its one-line message (a RunError).
 * `onStopped` runs after the worker ended, however it ended (the sandbox a session owns stops there).
 */
export function startWorkerSession(
  id: string,
  kind: SessionKind,
  spec: WorkerSpec,
  o: WorkerOptions & { simulated: boolean; onStopped?: () => Promise<void> },
): Promise<InformerSession> {
  const script = workerScript(o.workerFile);
  const limits = o.resourceLimits ?? ENGINE_WORKER_LIMITS;
  const worker = new Worker(script.file, { ...(script.execArgv ? { execArgv: script.execArgv } : {}), stdout: false, stderr: false, resourceLimits: { ...limits } });
  const start: WorkerStart = {
    op: 'start',
    spec,
    ...(o.spill ? { spill: { ...o.spill, name: id } } : {}),
    ...(o.cap !== undefined ? { cap: o.cap } : {}),
    ...(o.batchIntervalMs !== undefined ? { batchIntervalMs: o.batchIntervalMs } : {}),
    ...(o.batchMaxEvents !== undefined ? { batchMaxEvents: o.batchMaxEvents } : {}),
  };
  const pending = new Map<number, Pending>();
  let nextCall = 0;
  let mirror: TraceMirror | undefined;
  let session: InformerSession | undefined;
  let exited = false;
  let stopping: Promise<void> | undefined;
  let onStopped = o.onStopped;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const afterStop = async (): Promise<void> => {
    const fn = onStopped;
    onStopped = undefined;
    await fn?.().catch(() => undefined);
  };

  return new Promise<InformerSession>((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      for (const p of pending.values()) p.reject(new RunError(message));
      pending.clear();
      if (!exited) void worker.terminate();
      void afterStop();
      if (!settled) {
        settled = true;
        reject(new RunError(message));
      } else session?.ended(message);
    };
    const post = (m: HostToWorker): void => {
      if (!exited) worker.postMessage(m);
    };
    const call = (c: WorkerCall): Promise<ConsistencyResult | undefined> =>
      new Promise((res, rej) => {
        if (exited || !session?.live) return rej(new RunError('the session has ended'));
        const callId = ++nextCall;
        pending.set(callId, { resolve: res, reject: rej });
        post({ id: callId, ...c });
      });
    const controls: LiveControls & { crashForTest(): void } = {
      addHandler: (name, resyncPeriodMs) => void call({ op: 'addHandler', name, resyncPeriodMs }).catch(() => undefined),
      addSlowHandler: (ms) => void call({ op: 'addSlowHandler', ms }).catch(() => undefined),
      injectFault: (fault: FaultName, valueMs?: number) => void call({ op: 'injectFault', fault, ...(valueMs !== undefined ? { valueMs } : {}) }).catch(() => undefined),
      checkConsistency: async () => {
        const r = await call({ op: 'checkConsistency' });
        if (!r) throw new RunError('the consistency check returned nothing');
        return r;
      },
      crashForTest: () => void call({ op: 'crash' }).catch(() => undefined),
    };
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        post({ op: 'stop' });
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exit, new Promise<void>((r) => (timer = setTimeout(r, STOP_TIMEOUT_MS)))]);
        clearTimeout(timer);
        if (!exited) await worker.terminate();
        await afterStop();
      })());

    worker.on('message', (m: WorkerToHost) => {
      switch (m.type) {
        case 'started': {
          mirror = new TraceMirror(m.header, m.cap);
          const origin = m.clockOriginEpochMs;
          const parts = {
            id,
            kind,
            title: m.title,
            simulated: o.simulated,
            recorder: mirror,
            release: () => {
              const path = mirror?.spillState()?.path;
              if (path) removeSegment(path);
            },
          };
          if (spec.kind === 'replay') {
            session = new InformerSession(parts);
            return;
          }
          session = new InformerSession({
            ...parts,
            controls,
            stop,
            ...(origin !== undefined ? { clock: () => performance.timeOrigin + performance.now() - origin } : {}),
          });
          settled = true;
          resolve(session);
          return;
        }
        case 'batch':
          mirror?.append(m.events, m.status);
          return;
        case 'reply': {
          const p = pending.get(m.id);
          pending.delete(m.id);
          if (m.ok) p?.resolve(m.value);
          else p?.reject(new RunError(m.message));
          return;
        }
        case 'stopped':
          // The worker's last message: it has nothing more to say.
          void worker.terminate();
          mirror?.setStatus(m.status);
          if (!settled && session) {
            settled = true;
            resolve(session);
          }
          session?.ended();
          return;
        case 'failed':
          fail(m.message);
          return;
      }
    });
    worker.on('error', (e) => {
      if ((e as { code?: unknown })?.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(outOfMemoryMessage(limits));
      else fail(`the engine failed: ${String(e?.message ?? e).split('\n')[0]}`);
    });
    worker.once('exit', (code) => {
      exited = true;
      for (const p of pending.values()) p.reject(new RunError('the session has ended'));
      pending.clear();
      if (!stopping && (!settled || session?.live)) fail(`the engine worker exited unexpectedly (code ${code})`);
    });
    worker.postMessage(start);
  });
}
