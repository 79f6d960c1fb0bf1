/**
 * What the engine worker sends its host while a session runs (workerProtocol.ts): the recorder's
 * events collected into batches — one per `intervalMs`, or at once when `maxEvents` are pending,
 * each packed into a chunk of its own (eventChunk.ts) whose typed arrays the message moves —
 * each with the recorder's status (drops, spill, the running summary, and the findings at most
 * once per FINDINGS_INTERVAL_MS and at most a tenth of the worker's time). engineWorker.ts runs
 * one per session; bench/peers runs the same to measure a live session's cost per event.
 */
import { performance } from 'node:perf_hooks';
import { BATCH_INTERVAL_MS, BATCH_MAX_EVENTS, FINDINGS_INTERVAL_MS, type RecorderStatus, type WorkerToHost } from './workerProtocol';
import type { Finding } from '../format/trace';
import { computeFindings } from '../trace/findings';
import type { TraceRecorder } from '../trace/recorder';
import { SummaryModel } from '../trace/summary';

/**
 * After a findings computation that took d ms the next waits at least 10·d ms (a full
 * 200 000-event window takes ~0.1–0.2 s).
 */
const FINDINGS_SHARE_INVERSE = 10;

/** The summary before a recorder is attached. */
const EMPTY_SUMMARY = new SummaryModel();

export class EventBatches {
  /** The recorder whose events are collected (attach). */
  private recorder: TraceRecorder | undefined;
  /** The seq of the first event not sent yet. */
  private sent = 0;
  private pendingCount = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private findingsAt = Number.NEGATIVE_INFINITY;
  private findingsGap = FINDINGS_INTERVAL_MS;
  private findingsSeq = -1;

  constructor(
    private readonly send: (msg: WorkerToHost, transfer: ArrayBuffer[]) => void,
    private readonly intervalMs = BATCH_INTERVAL_MS,
    private readonly maxEvents = BATCH_MAX_EVENTS,
  ) {}

  /**
   * Collects the events r records from now on: told of each (TraceRecorder.tap), never handed
   * an object; a batch is a packed copy of the recorder's window (packedSince), sent once per
   * interval, at once when many are pending, and before unsent events leave the window.
   */
  attach(r: TraceRecorder): void {
    this.recorder = r;
    this.sent = r.firstHeldSeq + r.held;
    r.tap({
      recorded: () => {
        if (++this.pendingCount >= this.maxEvents) this.flush();
        else this.flushTimer ??= setTimeout(() => this.flush(), this.intervalMs);
      },
      leaving: (untilSeq) => {
        if (this.sent < untilSeq) this.flush();
      },
    });
  }

  /** Sends what is pending as one batch. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const r = this.recorder;
    if (!r || this.pendingCount === 0) return;
    this.pendingCount = 0;
    const firstSeq = Math.max(this.sent, r.firstHeldSeq);
    this.sent = r.firstHeldSeq + r.held;
    // Copied packed, as the recorder keeps its window: the host gets typed arrays it keeps as
    // they come, not objects to copy out of the message one by one.
    const packed = r.packedSince(firstSeq);
    if (!packed) return;
    const { text, ends, otherAt } = packed.strings;
    const moved = [packed.types, packed.starts, packed.times, packed.slots, packed.wide, text, ends, otherAt].map((a) => a.buffer as ArrayBuffer).filter((b) => b.byteLength > 0);
    this.send({ type: 'batch', packed, firstSeq, status: this.status() }, moved);
  }

  /** The recorder's status; `final` computes the findings whatever the interval. */
  status(final = false): RecorderStatus {
    const r = this.recorder;
    const spill = r?.spillState();
    const findings = this.freshFindings(final);
    return { dropped: r?.dropped ?? 0, ...(spill ? { spill } : {}), summary: (r?.tapSummary() ?? EMPTY_SUMMARY).snapshot(), ...(findings ? { findings } : {}) };
  }

  /** Findings read the whole window: recomputed when the trace grew and findingsGap has passed, or at the end. */
  private freshFindings(final: boolean): Finding[] | undefined {
    const r = this.recorder;
    if (!r) return undefined;
    const last = r.firstHeldSeq + r.held - 1;
    if (last === this.findingsSeq || (!final && performance.now() - this.findingsAt < this.findingsGap)) return undefined;
    this.findingsAt = performance.now();
    this.findingsSeq = last;
    try {
      return computeFindings(r.header(), r.eventsByType());
    } catch {
      // A rule that trips over an unusual trace must not end the session; show none.
      return [];
    } finally {
      this.findingsGap = Math.max(FINDINGS_INTERVAL_MS, FINDINGS_SHARE_INVERSE * (performance.now() - this.findingsAt));
    }
  }
}
