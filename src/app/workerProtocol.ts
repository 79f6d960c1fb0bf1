/**
 * The messages between the extension host and an engine worker (engineWorker.ts runs in a
 * worker_threads worker, workerSession.ts is its host side). The host sends one `start`, then
 * calls and finally `stop`; the worker answers `started` (or `failed`), then `batch`es of
 * recorded events — at most one per BATCH_INTERVAL_MS, or sooner when BATCH_MAX_EVENTS are
 * pending — plus `reply`s to calls, and `stopped` once the engine ended. A batch is a column
 * chunk (src/protocol/columnChunks.ts) whose ArrayBuffers are transferred, not copied: the host
 * stores and forwards it without decoding a row. After `stopped` the worker stays as the holder
 * of its trace (diffs, export) until the host terminates it when the session is closed.
 * Everything else is plain data (structured clone); events are redacted in the worker before
 * they cross.
 */
import type { LiveTarget } from './liveInformer';
import type { Scenario } from '../scenario/types';
import type { ConsistencyResult } from '../trace/consistency';
import type { SpillState } from '../trace/segments';
import type { SpillOverview } from '../format/spill';
import type { FaultName, FieldChange, RecordedEvent } from '../format/events';
import type { ColumnBatch } from '../protocol/eventColumns';
import type { Finding, TraceHeader } from '../format/trace';
import type { TraceSummary } from '../trace/summary';

export const BATCH_INTERVAL_MS = 33;
export const BATCH_MAX_EVENTS = 4096;
/** The worker recomputes a live session's findings at most this often. */
export const FINDINGS_INTERVAL_MS = 1000;

/** What the worker runs: a live informer (the kubeconfig of the one selected context) or a scenario replay. */
export type WorkerSpec =
  | ({
      kind: 'live';
      /** The connection's kubeconfig (its one context, credentials included); it never reaches a trace or log. */
      kubeconfigYaml: string;
    } & Omit<LiveTarget, 'conn'>)
  | { kind: 'replay'; scenario: Scenario; profile?: string };

export interface WorkerStart {
  op: 'start';
  spec: WorkerSpec;
  /** Where the recorder spills past its memory window; absent: it drops as it always did. */
  spill?: { dir: string; maxBytes: number; name: string };
  /** The recorder's memory window in events (the trace header's cap). */
  cap?: number;
  /** Overrides of the batch cadence (tests). */
  batchIntervalMs?: number;
  batchMaxEvents?: number;
}

export type WorkerCall =
  | { op: 'addHandler'; name: string; resyncPeriodMs: number }
  | { op: 'addSlowHandler'; ms: number }
  | { op: 'injectFault'; fault: FaultName; valueMs?: number }
  | { op: 'checkConsistency' }
  /** The diff of the event with that seq, or of the distribute event a notification stands for (protocol/eventColumns diffForSeq). */
  | { op: 'diff'; seq: number }
  /** Writes the whole trace (spilled events first) as a trace file; the reply's value is the number of events. */
  | { op: 'export'; path: string }
  /** The whole trace (spilled events too) as objects, for exports that are not a local file. */
  | { op: 'traceData' }
  /** Test only: the worker throws outside any handler, as a bug would. */
  | { op: 'crash' };

/** The calls that read the trace: answered also after the engine stopped, until the session is closed. */
export const TRACE_CALLS: ReadonlySet<WorkerCall['op']> = new Set(['diff', 'export', 'traceData']);

export type HostToWorker = WorkerStart | ({ id: number } & WorkerCall) | { op: 'stop' };

/** What a call's reply carries: a consistency result, a diff, an event count or the trace. */
export type ReplyValue = ConsistencyResult | FieldChange[] | number | { header: TraceHeader; events: RecordedEvent[] };

/** The recorder's state beside the events: drops, the spill segment, and what the worker computed from the trace. */
export interface RecorderStatus {
  dropped: number;
  spill?: SpillState;
  /** The events the recorder holds in memory, and the seq of the oldest of them (absent: none). */
  memoryEvents?: number;
  firstSeq?: number;
  /** The recorder's overview of its spilled events (trace/spillOverview.ts); present when the segment grew since the last status. */
  spillOverview?: SpillOverview;
  /** The counts of the whole trace after this batch (SummaryModel, kept in the worker). */
  summary?: TraceSummary;
  /** The findings, recomputed in the worker at most once per FINDINGS_INTERVAL_MS and at the end; absent when unchanged. */
  findings?: Finding[];
}

export type WorkerToHost =
  | {
      type: 'started';
      header: TraceHeader;
      title: string;
      /** The engine clock's zero as epoch ms (performance.timeOrigin + origin), so the host can tell engine time. */
      clockOriginEpochMs?: number;
      /** The memory window (events) the recorder keeps; the host's mirror keeps the same. */
      cap: number;
    }
  | { type: 'batch'; columns: ColumnBatch; status: RecorderStatus }
  | { type: 'reply'; id: number; ok: true; value?: ReplyValue }
  | { type: 'reply'; id: number; ok: false; message: string }
  /** The engine ended by itself (a replay finished) or on `stop`; nothing follows. */
  | { type: 'stopped'; status: RecorderStatus }
  /** Starting failed, or the engine failed: one line for the user. */
  | { type: 'failed'; message: string };
