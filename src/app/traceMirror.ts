/**
 * What the extension host keeps of a worker's recorder: the column chunks the worker sent
 * (src/protocol/columnChunks.ts), as they came — no event objects — trimmed to the recorder's
 * memory window by the seq of its oldest event, which every batch's status names. A timeline
 * gets these chunks as they are (snapshot and deltas); the host decodes rows only when a
 * synchronous reader asks for events() (tests, a session without a worker any more).
 *
 * Many small chunks (a quiet informer sends a few events per batch) are merged into one now
 * and then, so the number of chunks, and the ArrayBuffers they hold, stays small.
 *
 * What the chunks leave out — the diffs of updates — and the whole trace stay with the worker:
 * diffFor, exportTo and allEvents ask it (WorkerTrace). The overview of the spilled events
 * comes built by the worker's recorder in the status, whenever its segment grew.
 */
import type { FieldChange, RecordedEvent } from '../format/events';
import type { Finding, TraceHeader } from '../format/trace';
import type { TraceSummary } from '../trace/summary';
import type { SpillState } from '../trace/segments';
import type { SpillOverview } from '../format/spill';
import { COLUMN_NAMES, EVENT_COLUMNS, StringTable, decodeBatch, decodeRow, type ColumnBatch, type EventColumnArrays } from '../protocol/eventColumns';
import { chunksAfter, concatBatches, heardEvents, lastSeqOf } from '../protocol/columnChunks';
import type { TraceSource } from './session';
import type { RecorderStatus } from './workerProtocol';

/** The worker's answers about the trace it holds. */
export interface WorkerTrace {
  diff(seq: number): Promise<FieldChange[] | undefined>;
  exportTo(path: string): Promise<number>;
  traceData(): Promise<{ header: TraceHeader; events: RecordedEvent[] }>;
}

/** Past this many chunks, neighbouring chunks are merged (up to MERGED_ROWS rows each). */
export const MAX_CHUNKS = 128;
export const MERGED_ROWS = 8192;

/** One row of a chunk as an event (diff left out), built only for the rows a listener hears. */
function rowReader(b: ColumnBatch): (i: number) => RecordedEvent {
  let cols: EventColumnArrays | undefined;
  let strings: StringTable | undefined;
  return (i) => {
    if (!cols) {
      const out = {} as Record<string, unknown>;
      for (const name of COLUMN_NAMES) out[name] = new EVENT_COLUMNS[name](b.columns[name], 0, b.count);
      cols = out as EventColumnArrays;
      strings = new StringTable(b.strings);
    }
    return decodeRow(cols, i, strings!);
  };
}

export class TraceMirror implements TraceSource {
  private chunks: ColumnBatch[] = [];
  private readonly listeners = new Set<(batch: RecordedEvent[]) => void>();
  private readonly columnListeners = new Set<(chunk: ColumnBatch) => void>();
  private status: RecorderStatus = { dropped: 0 };
  private lastSummary: TraceSummary | undefined;
  /** The worker's findings; the same array until the worker sends new ones (views compare by identity). */
  private lastFindings: Finding[] = [];
  /** The worker recorder's overview of its spilled events, as it last sent it. */
  private lastOverview: SpillOverview | undefined;

  constructor(
    private readonly head: TraceHeader,
    private readonly remote?: WorkerTrace,
  ) {}

  /** Takes one chunk from the worker, in order, and tells the subscribers. */
  append(chunk: ColumnBatch, status: RecorderStatus): void {
    if (chunk.count > 0) this.chunks.push(chunk);
    this.setStatus(status);
    this.compact();
    if (chunk.count === 0) return;
    for (const fn of this.columnListeners) {
      try {
        fn(chunk);
      } catch {
        // A broken consumer must not stop the others.
      }
    }
    if (this.listeners.size === 0) return;
    const heard = heardEvents(chunk, rowReader(chunk));
    for (const fn of this.listeners) {
      try {
        fn(heard);
      } catch {
        // A broken consumer must not stop the others.
      }
    }
  }

  /** The worker's last word on drops, spill and its memory window (also when no event came with it). */
  setStatus(status: RecorderStatus): void {
    this.status = status;
    if (status.summary) this.lastSummary = status.summary;
    if (status.findings) this.lastFindings = status.findings;
    if (status.spillOverview) this.lastOverview = status.spillOverview;
    const first = status.firstSeq;
    if (first !== undefined) while (this.chunks.length > 0 && lastSeqOf(this.chunks[0]) < first) this.chunks.shift();
  }

  /** Merges the first run of neighbouring chunks that together hold at most MERGED_ROWS rows, once there are too many. */
  private compact(): void {
    if (this.chunks.length <= MAX_CHUNKS) return;
    for (let i = 0; i < this.chunks.length - 1; i++) {
      let j = i;
      let rows = 0;
      while (j < this.chunks.length && rows + this.chunks[j].count <= MERGED_ROWS) rows += this.chunks[j++].count;
      if (j - i >= 2) {
        this.chunks.splice(i, j - i, concatBatches(this.chunks.slice(i, j)));
        return;
      }
    }
  }

  /** The number of chunks held (tests, memory measures). */
  get chunkCount(): number {
    return this.chunks.length;
  }

  /** What the worker computed from the whole trace: the summary (once a batch came) and the findings. */
  computed(): { summary?: TraceSummary; findings: Finding[] } {
    return { ...(this.lastSummary ? { summary: this.lastSummary } : {}), findings: this.lastFindings };
  }

  header(): TraceHeader {
    return { ...this.head, dropped: this.status.dropped };
  }

  /** The window's events with seq > `seq`, as chunks (what a timeline is sent). */
  columnsSince(seq: number): ColumnBatch[] {
    const first = this.status.firstSeq;
    return chunksAfter(this.chunks, first !== undefined ? Math.max(seq, first - 1) : seq);
  }

  /** The events in memory, decoded (diffs left out): for synchronous readers only, it builds every event. */
  events(): readonly RecordedEvent[] {
    return this.since(Number.NEGATIVE_INFINITY);
  }

  since(seq: number): RecordedEvent[] {
    const out: RecordedEvent[] = [];
    for (const c of this.columnsSince(seq)) for (const e of decodeBatch(c) ?? []) out.push(e);
    return out;
  }

  memoryCount(): number {
    return this.status.memoryEvents ?? this.columnsSince(Number.NEGATIVE_INFINITY).reduce((n, c) => n + c.count, 0);
  }

  /**
   * Called with each chunk's events as far as a host listener needs them (columnChunks.ts
   * heardEvents: every event kept whole, and the first row of each type after each of those).
   */
  subscribe(fn: (batch: RecordedEvent[]) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** Called with every chunk as it came from the worker. */
  subscribeColumns(fn: (chunk: ColumnBatch) => void): () => void {
    this.columnListeners.add(fn);
    return () => {
      this.columnListeners.delete(fn);
    };
  }

  spillState(): SpillState | undefined {
    return this.status.spill;
  }

  /** The overview of the spilled events, built by the worker's recorder as each chunk was written. */
  spillOverview(): SpillOverview | undefined {
    return this.status.spill ? this.lastOverview : undefined;
  }

  diffFor(seq: number): Promise<FieldChange[] | undefined> {
    return this.remote ? this.remote.diff(seq) : Promise.resolve(undefined);
  }

  exportTo(path: string): Promise<number> {
    if (!this.remote) return Promise.reject(new Error('the engine that recorded this trace is gone'));
    return this.remote.exportTo(path);
  }

  async traceData(): Promise<{ header: TraceHeader; events: readonly RecordedEvent[] }> {
    if (!this.remote) return { header: this.header(), events: this.events() };
    return this.remote.traceData();
  }

  async *allEvents(): AsyncGenerator<RecordedEvent> {
    yield* (await this.traceData()).events;
  }
}
