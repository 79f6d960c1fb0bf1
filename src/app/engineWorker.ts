/**
 * The engine worker's entry (a worker_threads worker; esbuild bundles it as dist/engineWorker.js).
 * It runs what a session's engine needs — the HTTP ListerWatcher, the fault injector, the
 * SharedIndexInformer and the recorder (redaction, spill) — or a scenario replay, and sends the
 * host only batches of recorded events (workerProtocol.ts). Any failure is reported as one
 * `failed` message; the host turns it into one message in the editor. Reads of the running
 * session's spill segment (spillRead.ts) are answered here too.
 */
import { parentPort } from 'node:worker_threads';
import { RunError, firstLine } from './errors';
import { FAULTS } from './faults';
import { openLive, liveTitle, type LiveInformer } from './liveInformer';
import { connect } from './resources';
import { replay } from './sessions';
import { answerSpillCall, spillTransfer } from './spillRead';
import { EventBatches } from './eventBatches';
import { type HostToWorker, type WorkerCall, type WorkerStart, type WorkerToHost } from './workerProtocol';
import type { TraceRecorder } from '../trace/recorder';
import { SegmentFile } from '../trace/segments';

const port = parentPort;
if (!port) throw new Error('engineWorker.ts runs only as a worker thread');

function send(msg: WorkerToHost, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer);
}

let recorder: TraceRecorder | undefined;
let segment: SegmentFile | undefined;
let live: LiveInformer | undefined;
let batches = new EventBatches(send);
let ended = false;

function end(msg: WorkerToHost): void {
  if (ended) return;
  ended = true;
  batches.flush();
  send(msg.type === 'stopped' ? { type: 'stopped', status: batches.status(true) } : msg);
  port!.close();
}

async function start(m: WorkerStart): Promise<void> {
  batches = new EventBatches(send, m.batchIntervalMs, m.batchMaxEvents);
  if (m.spec.kind === 'live') {
    const spec = m.spec;
    const target = { ...spec, conn: connect({ kubeconfigYaml: spec.kubeconfigYaml }) };
    live = openLive(target, { cap: m.cap, spill: m.spill });
    recorder = live.recorder;
    batches.attach(recorder);
    // The informer needs at least one handler to show notifications; "main" stands for the controller.
    live.informer.addEventHandler('main', {});
    const origin = performance.timeOrigin + performance.now() - live.clock.now();
    send({ type: 'started', header: recorder.header(), title: liveTitle(target), clockOriginEpochMs: origin, cap: recorder.header().cap });
    live.start();
    return;
  }
  const spill = (segment = m.spill ? new SegmentFile(m.spill) : undefined);
  const scenario = m.spec.scenario;
  const run = await replay(scenario, {
    profile: m.spec.profile,
    trace: true,
    cap: m.cap,
    spill,
    onRecorder: (r, profile) => {
      recorder = r;
      batches.attach(r);
      send({ type: 'started', header: r.header(), title: `${scenario.name} (replay, ${profile.name})`, cap: r.header().cap });
    },
  });
  if (run.result.outcome === 'error') throw new RunError(`replay of ${scenario.name} failed: ${run.result.error ?? 'unknown error'}`);
  spill?.close();
  end({ type: 'stopped', status: { dropped: 0 } });
}

async function call(id: number, c: WorkerCall): Promise<void> {
  try {
    if (c.op === 'crash') {
      setImmediate(() => {
        throw new Error('engine worker crash requested by a test');
      });
      return;
    }
    if (c.op === 'spilledRange' || c.op === 'spilledDiff') {
      const value = await answerSpillCall(recorder?.spillState(), c);
      send({ type: 'reply', id, ok: true, value }, spillTransfer(value));
      return;
    }
    if (!live) throw new Error('the session runs no informer');
    const l = live;
    switch (c.op) {
      case 'addHandler':
        l.informer.addEventHandler(c.name, {}, c.resyncPeriodMs);
        break;
      case 'addSlowHandler':
        l.addSlowHandler(c.ms);
        break;
      case 'injectFault': {
        const fault = FAULTS.find((f) => f.id === c.fault);
        if (!fault) throw new Error(`unknown fault ${c.fault}`);
        fault.apply({ faults: l.faults, addSlowHandler: (ms) => l.addSlowHandler(ms) }, c.valueMs);
        break;
      }
      case 'checkConsistency':
        send({ type: 'reply', id, ok: true, value: await l.checkConsistency() });
        return;
    }
    send({ type: 'reply', id, ok: true });
  } catch (e) {
    send({ type: 'reply', id, ok: false, message: firstLine(e) });
  }
}

async function stop(): Promise<void> {
  try {
    await live?.stop();
  } catch {
    // The informer's own failure is in its trace; stopping goes on.
  }
  segment?.close();
  end({ type: 'stopped', status: { dropped: 0 } });
}

port.on('message', (m: HostToWorker) => {
  if (m.op === 'start') start(m).catch((e: unknown) => end({ type: 'failed', message: firstLine(e) }));
  else if (m.op === 'stop') void stop();
  else void call(m.id, m);
});
