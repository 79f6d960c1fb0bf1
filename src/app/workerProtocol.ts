/**
 * The messages between the extension host and an engine worker (engineWorker.ts runs in a
 * worker_threads worker, workerSession.ts is its host side). The host sends one `start`, then
 * calls and finally `stop`; the worker answers `started` (or `failed`), then `batch`es of
 * recorded events — at most one per BATCH_INTERVAL_MS, or sooner when BATCH_MAX_EVENTS are
 * pending — plus `reply`s to calls, and `stopped` last. Everything is plain data (structured
 * clone; the columns of a spill read are transferred); events are redacted in the worker before they cross.
 *
 * The spill reader (spillReaderWorker.ts, a worker for an ended session's segment) answers each
 * `readSpill` with a `reply` of the same id.
 */
import type { LiveTarget } from './liveInformer';
import type { Scenario } from '../scenario/types';
import type { ConsistencyResult } from '../trace/consistency';
import type { SpillState } from '../trace/segments';
import type { ChunkParts } from '../trace/eventChunk';
import type { FaultName } from '../format/events';
import type { Finding, TraceHeader } from '../format/trace';
import type { TraceSummary } from '../trace/summary';
import type { SpillAnswer, SpillCall } from './spillRead';

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
  /** A read of the session's spill segment (spillRead.ts), answered off the extension host's thread. */
  | SpillCall
  /** Test only: the worker throws outside any handler, as a bug would. */
  | { op: 'crash' };

/** The spill reader's message: one read of the segment `spill` describes. */
export interface WorkerRead {
  op: 'readSpill';
  id: number;
  spill: SpillState;
  call: SpillCall;
}

export type HostToWorker = WorkerStart | ({ id: number } & WorkerCall) | { op: 'stop' };

/** The recorder's state beside the events: drops, the spill segment, and what the worker computed from the trace. */
export interface RecorderStatus {
  dropped: number;
  spill?: SpillState;
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
  /**
   * The events recorded since the last batch, packed as the recorder packs its window
   * (eventChunk.ts), seqs from firstSeq on; the typed arrays, and the string table's bytes
   * (packedStrings.ts), are moved with the message.
   */
  | { type: 'batch'; packed: ChunkParts; firstSeq: number; status: RecorderStatus }
  | { type: 'reply'; id: number; ok: true; value?: ConsistencyResult | SpillAnswer }
  | { type: 'reply'; id: number; ok: false; message: string }
  /** The engine ended by itself (a replay finished) or on `stop`; nothing follows. */
  | { type: 'stopped'; status: RecorderStatus }
  /** Starting failed, or the engine failed: one line for the user. */
  | { type: 'failed'; message: string };
