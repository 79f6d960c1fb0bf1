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
import { BATCH_INTERVAL_MS, FINDINGS_INTERVAL_MS, BATCH_MAX_EVENTS, type HostToWorker, type RecorderStatus, type WorkerCall, type WorkerStart, type WorkerToHost } from './workerProtocol';
import type { RecordedEvent } from '../format/events';
import type { Finding } from '../format/trace';
import { computeFindings } from '../trace/findings';
import { TraceRecorder } from '../trace/recorder';
import { SummaryModel } from '../trace/summary';
import { SegmentFile } from '../trace/segments';

const port = parentPort;
if (!port) throw new Error('engineWorker.ts runs only as a worker thread');

function send(msg: WorkerToHost, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer);
}

let recorder: TraceRecorder | undefined;
let segment: SegmentFile | undefined;
let live: LiveInformer | undefined;
let pending: RecordedEvent[] = [];
let flushTimer: NodeJS.Timeout | undefined;
let intervalMs = BATCH_INTERVAL_MS;
let maxEvents = BATCH_MAX_EVENTS;
let ended = false;
/** The counts of every event recorded (spilled ones too), kept as events come. */
const summary = new SummaryModel();
let findingsAt = Number.NEGATIVE_INFINITY;
/**
 * Findings are recomputed at most once per FINDINGS_INTERVAL_MS, and at most a tenth of the
 * worker's time: after a computation that took d ms the next waits at least 10·d ms (a full
 * 200 000-event window takes ~0.1–0.2 s).
 */
const FINDINGS_SHARE_INVERSE = 10;
let findingsGap = FINDINGS_INTERVAL_MS;
let findingsSeq = -1;

/** Findings read the whole window: recomputed when the trace grew and findingsGap has passed, or at the end. */
function freshFindings(final: boolean): Finding[] | undefined {
  const r = recorder;
  if (!r) return undefined;
  const last = r.firstHeldSeq + r.held - 1;
  if (last === findingsSeq || (!final && performance.now() - findingsAt < findingsGap)) return undefined;
  findingsAt = performance.now();
  findingsSeq = last;
  try {
    return computeFindings(r.header(), r.eventsByType());
  } catch {
    // A rule that trips over an unusual trace must not end the session; show none.
    return [];
  } finally {
    findingsGap = Math.max(FINDINGS_INTERVAL_MS, FINDINGS_SHARE_INVERSE * (performance.now() - findingsAt));
  }
}

function status(final = false): RecorderStatus {
  const spill = recorder?.spillState();
  const findings = freshFindings(final);
  return { dropped: recorder?.dropped ?? 0, ...(spill ? { spill } : {}), summary: summary.snapshot(), ...(findings ? { findings } : {}) };
}

function flush(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = undefined;
  if (pending.length === 0) return;
  const events = pending;
  pending = [];
  send({ type: 'batch', events, status: status() });
}

/** Collects the recorder's events; one batch per interval, or at once when many are pending. */
function collect(batch: RecordedEvent[]): void {
  for (const e of batch) {
    pending.push(e);
    summary.add(e);
  }
  if (pending.length >= maxEvents) flush();
  else flushTimer ??= setTimeout(flush, intervalMs);
}

function end(msg: WorkerToHost): void {
  if (ended) return;
  ended = true;
  flush();
  send(msg.type === 'stopped' ? { type: 'stopped', status: status(true) } : msg);
  port!.close();
}

async function start(m: WorkerStart): Promise<void> {
  intervalMs = m.batchIntervalMs ?? intervalMs;
  maxEvents = m.batchMaxEvents ?? maxEvents;
  if (m.spec.kind === 'live') {
    const spec = m.spec;
    const target = { ...spec, conn: connect({ kubeconfigYaml: spec.kubeconfigYaml }) };
    live = openLive(target, { cap: m.cap, spill: m.spill });
    recorder = live.recorder;
    recorder.subscribe(collect);
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
      send({ type: 'started', header: r.header(), title: `${scenario.name} (replay, ${profile.name})`, cap: r.header().cap });
      r.subscribe(collect);
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
