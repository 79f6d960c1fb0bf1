/**
 * The host side of a session whose engine runs in a worker thread (engineWorker.ts): one worker
 * per session, so a session that fails or is stopped takes nothing else with it and terminating
 * its worker frees everything it held (sockets, timers, the informer's cache).
 *
 * The host keeps only a TraceMirror of the worker's recorder, fed by batches. stop() asks the
 * worker to stop and terminates it when it has not ended within STOP_TIMEOUT_MS. A worker that
 * throws or exits on its own ends the session with one line (InformerSession.failure); nothing
 * is thrown into the extension host.
 *
 * Reads of the spill segment (spillRead.ts) go to the session's worker while it runs; once it has
 * ended, in a spill reader worker (readSpillInWorker), so the extension host only forwards the
 * columns it gets.
 */
import { existsSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { FaultName } from '../format/events';
import { removeSegment, type SpillState } from '../trace/segments';
import { Chunk } from '../trace/eventChunk';
import type { ConsistencyResult } from '../trace/consistency';
import { RunError } from './errors';
import { InformerSession, type LiveControls, type SessionKind } from './session';
import { TraceMirror } from './traceMirror';
import { answerSpillCall, type SpillAnswer, type SpillCall } from './spillRead';
import type { HostToWorker, WorkerCall, WorkerRead, WorkerSpec, WorkerStart, WorkerToHost } from './workerProtocol';
import { ENGINE_WORKER_LIMITS, outOfMemoryMessage } from './workerLimits';

/** How long a stopping worker may take before it is terminated. */
export const STOP_TIMEOUT_MS = 5000;
/** How long a spill reader may take for one read before it is terminated (and the read fails). */
export const SPILL_READ_TIMEOUT_MS = 60_000;

export interface WorkerOptions {
  /** The worker's script (default: engineWorker.js beside this bundle, or engineWorker.ts under tsx); the spill reader's sits beside it. */
  workerFile?: string;
  spill?: { dir: string; maxBytes: number };
  cap?: number;
  batchIntervalMs?: number;
  batchMaxEvents?: number;
  /** The worker's resource limits (default ENGINE_WORKER_LIMITS; tests set smaller ones). */
  resourceLimits?: Readonly<ResourceLimits>;
}

/**
 * A worker script and how to run it: the engine worker is `file`, the bundle's sibling file, or the
 * TypeScript source under tsx (tests, benchmarks); the spill reader is the file of that name beside it.
 */
export function workerScript(file?: string, entry: 'engineWorker' | 'spillReaderWorker' = 'engineWorker'): { file: string; execArgv?: string[] } {
  const bundled = join(__dirname, 'engineWorker.js');
  const source = join(__dirname, 'engineWorker.ts');
  const engine = file ?? (existsSync(bundled) ? bundled : source);
  const chosen = entry === 'engineWorker' ? engine : join(dirname(engine), `${entry}${extname(engine)}`);
  return chosen.endsWith('.ts') ? { file: chosen, execArgv: ['--require', 'tsx/cjs'] } : { file: chosen };
}

type ReplyValue = ConsistencyResult | SpillAnswer | undefined;

interface Pending {
  resolve: (v: ReplyValue) => void;
  reject: (e: Error) => void;
}

/** How long a spill reader that has answered waits for another read before it ends. */
export const SPILL_READER_IDLE_MS = 10_000;

interface SpillReader {
  worker: Worker;
  file: string;
  idleTimer?: NodeJS.Timeout;
}

/** The spill readers waiting for their next read: at most one per script, each ending SPILL_READER_IDLE_MS after its last answer. */
const idleReaders = new Map<string, SpillReader>();
let nextRead = 0;

function startReader(file: string, execArgv?: string[]): SpillReader {
  const worker = new Worker(file, { ...(execArgv ? { execArgv } : {}), stdout: false, stderr: false });
  const reader: SpillReader = { worker, file };
  // One that fails or ends while it waits is simply no longer there to take the next read.
  const forget = (): void => {
    if (idleReaders.get(file) === reader) idleReaders.delete(file);
    clearTimeout(reader.idleTimer);
  };
  worker.on('error', forget);
  worker.on('exit', forget);
  return reader;
}

/** A reader that answered waits for the next read (unref'd: it keeps no process alive), or ends when one already waits. */
function park(reader: SpillReader): void {
  if (idleReaders.has(reader.file)) {
    void reader.worker.terminate();
    return;
  }
  reader.worker.unref();
  reader.idleTimer = setTimeout(() => {
    if (idleReaders.get(reader.file) === reader) idleReaders.delete(reader.file);
    void reader.worker.terminate();
  }, SPILL_READER_IDLE_MS);
  reader.idleTimer.unref();
  idleReaders.set(reader.file, reader);
}

/** Ends the spill readers that wait for a read (the extension's end; a bench that wants a cold start); returns how many. */
export function endIdleSpillReaders(): number {
  const readers = [...idleReaders.values()];
  idleReaders.clear();
  for (const r of readers) {
    clearTimeout(r.idleTimer);
    void r.worker.terminate();
  }
  return readers.length;
}

/**
 * One read of the segment `spill` describes, in a spill reader worker (spillReaderWorker.ts beside
 * the engine worker script `workerFile`): for a session whose engine worker is gone (stopped, a
 * finished replay, the engine on the host). The reader that answered the last read takes it when
 * it still waits (the reads of a user zooming around come in a row); else one is started. A
 * damaged or missing segment rejects with the reader's one line (a RunError); a reader that fails
 * or takes longer than timeoutMs is ended.
 */
export function readSpillInWorker(spill: SpillState, c: SpillCall, workerFile?: string, timeoutMs = SPILL_READ_TIMEOUT_MS): Promise<SpillAnswer> {
  const script = workerScript(workerFile, 'spillReaderWorker');
  const waiting = idleReaders.get(script.file);
  if (waiting) {
    idleReaders.delete(script.file);
    clearTimeout(waiting.idleTimer);
  }
  const reader = waiting ?? startReader(script.file, script.execArgv);
  const { worker } = reader;
  worker.ref();
  const id = ++nextRead;
  return new Promise<SpillAnswer>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void, reusable: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      fn();
      if (reusable) park(reader);
      else void worker.terminate();
    };
    const onMessage = (m: WorkerToHost): void => {
      if (m.type === 'reply' && m.id === id) finish(() => (m.ok ? resolve(m.value as SpillAnswer) : reject(new RunError(m.message))), true);
    };
    const onError = (e: Error): void => finish(() => reject(new RunError(`the spill reader failed: ${String(e?.message ?? e).split('\n')[0]}`)), false);
    const onExit = (code: number): void => finish(() => reject(new RunError(`the spill reader exited without an answer (code ${code})`)), false);
    const timer = setTimeout(() => finish(() => reject(new RunError(`reading the spill segment took longer than ${Math.round(timeoutMs / 1000)} s`)), false), timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    const read: WorkerRead = { op: 'readSpill', id, spill, call: c };
    worker.postMessage(read);
  });
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
    const call = (c: WorkerCall): Promise<ReplyValue> =>
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
        return r as ConsistencyResult;
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

    /** In the session's worker while it runs; else (or when it ended during the read) in a reader worker of its own. */
    const readSpill = async (c: SpillCall): Promise<SpillAnswer> => {
      const elsewhere = (): Promise<SpillAnswer> => {
        const spill = mirror?.spillState();
        if (!spill) return answerSpillCall(undefined, c);
        return readSpillInWorker(spill, c, o.workerFile);
      };
      if (exited || !session?.live) return elsewhere();
      try {
        return (await call(c)) as SpillAnswer;
      } catch (e) {
        if (exited || !session?.live) return elsewhere();
        throw e;
      }
    };

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
            readSpill,
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
          try {
            mirror?.appendPacked(Chunk.fromParts(m.packed), m.firstSeq, m.status);
          } catch (e) {
            fail(`the engine sent a batch the extension cannot read: ${e instanceof Error ? e.message : String(e)}`);
          }
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
