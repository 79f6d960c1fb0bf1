/**
 * One inspection: a running informer (cluster or sandbox), a replayed scenario, or an imported
 * trace (sessions.ts builds each kind). It owns its recorder (or the imported events) and
 * whatever must be stopped with it.
 */
import type { FaultInjectingListerWatcher } from '../sources/faults';
import type { SharedIndexInformer } from '../engine/sharedInformer';
import type { ConsistencyResult } from '../trace/consistency';
import { computeFindings } from '../trace/findings';
import type { TypedEvents } from '../trace/findings/types';
import type { FaultName, FieldChange, RecordedEvent } from '../format/events';
import type { SpillState } from '../trace/segments';
import type { SpillOverview } from '../format/spill';
import { diffForSeqIn, encodeBatch, type ColumnBatch } from '../protocol/eventColumns';
import { answerSpillCall, asColumns, type SpillAnswer, type SpillCall, type SpilledColumns } from './spillRead';
import { writeTraceWithCompanion, type ColumnarTrace } from './traceColumns';
import type { Finding, FindingsState, TraceHeader } from '../format/trace';
import type { SessionInfo } from '../protocol/timeline';
import { SummaryModel, type TraceSummary } from '../trace/summary';

/** Findings are recomputed at most this often for a live session (they read the whole trace). */
const FINDINGS_INTERVAL_MS = 1000;

/** What a running informer session lets the user do to it. */
export interface LiveControls {
  /** Adds a no-op handler (its notifications get their own lane) after start. */
  addHandler(name: string, resyncPeriodMs: number): void;
  /** Adds a handler that takes `ms` for every notification (client-go's listener waits for it). */
  addSlowHandler(ms: number): void;
  /** Compares a consistent LIST with the cache; the result is also recorded as an event. */
  checkConsistency(): Promise<ConsistencyResult>;
  /** Applies a catalogue fault (faults.ts); valueMs is its parameter, when it has one. */
  injectFault(fault: FaultName, valueMs?: number): void;
}

/**
 * Where a session's recorded events are read: the TraceRecorder itself (in-process) or the host's
 * mirror of a worker's recorder (traceMirror.ts).
 */
export interface TraceSource {
  header(): TraceHeader;
  /** The events in memory (the window). */
  events(): readonly RecordedEvent[];
  since(seq: number): RecordedEvent[];
  subscribe(fn: (batch: RecordedEvent[]) => void): () => void;
  /** The spill segment's state; undefined when there is none. */
  spillState(): SpillState | undefined;
  /** Every recorded event, spilled ones first, in seq order. */
  allEvents(): AsyncIterable<RecordedEvent>;
  /** The overview of the spilled events (undefined when there is no segment). */
  spillOverview?(): SpillOverview | undefined;
  /** Summary and findings computed where the events are recorded (an engine worker); absent: the session computes them. */
  computed?(): { summary?: TraceSummary; findings: Finding[] };
  /** How many events are in memory, without making them (a packed window; absent: events().length). */
  readonly held?: number;
  /** The seq of the oldest event in memory, without making it (absent: read from events()). */
  readonly firstHeldSeq?: number;
  /** The events in memory by type, for computeFindings (absent: events()). */
  eventsByType?(): TypedEvents;
  /** The held event at this index, 0 the oldest (a packed window makes only it; absent: events()[i]). */
  at?(i: number): RecordedEvent;
}

/** What a session holds and where, for its tooltip. */
export interface SessionStorage {
  memoryEvents: number;
  dropped: number;
  spill?: SpillState;
}

/** The kinds of session: sessions.ts builds the first four; observation.ts makes 'observed' ones (one per reflector of an observed process). */
export type SessionKind = 'cluster' | 'sandbox' | 'replay' | 'import' | 'observed';

export interface SessionParts {
  id: string;
  kind: SessionKind;
  title: string;
  simulated: boolean;
  /** A live or replayed recorder (or the host's mirror of a worker's); absent for an imported trace. */
  recorder?: TraceSource;
  /** An imported trace's content. */
  imported?: { header: TraceHeader; events: readonly RecordedEvent[] };
  /** An imported trace opened from its binary companion (traceColumns.ts): its events are objects only on demand. */
  columnar?: ColumnarTrace;
  informer?: SharedIndexInformer;
  faults?: FaultInjectingListerWatcher;
  controls?: LiveControls;
  /** Stops everything the session runs (informer, sandbox); resolves when it has stopped. */
  stop?: () => Promise<void>;
  /**
   * Where the spill segment is read (spillRead.ts): the engine worker, or a reader worker once it
   * has ended. Absent: on the caller's thread (the CLI, tests).
   */
  readSpill?: (c: SpillCall) => Promise<SpillAnswer>;
  /** Releases what the session keeps after it ended (its spill segment); called once, by close(). */
  release?: () => void;
  /** Wall time for the findings' recompute interval (Date.now by default). */
  now?: () => number;
  /** The engine clock's now(), the time base of event t; a live session's timeline ends there. */
  clock?: () => number;
}

export class InformerSession {
  readonly id: string;
  readonly kind: SessionKind;
  /** Unique among the registry's sessions (SessionRegistry.add makes it so). */
  title: string;
  readonly simulated: boolean;
  readonly informer?: SharedIndexInformer;
  readonly faults?: FaultInjectingListerWatcher;
  readonly controls?: LiveControls;
  private readonly recorder?: TraceSource;
  private readonly imported?: { header: TraceHeader; events: readonly RecordedEvent[] };
  private readonly columnar?: ColumnarTrace;
  private importedBatch: ColumnBatch | undefined;
  private readonly stopFn?: () => Promise<void>;
  private readonly releaseFn?: () => void;
  private readonly readSpill: (c: SpillCall) => Promise<SpillAnswer>;
  private failureText: string | undefined;
  private closed = false;
  private readonly now: () => number;
  private readonly clock?: () => number;
  private running: boolean;
  private summaryCache: { model: SummaryModel; firstSeq: number; lastSeq: number } | undefined;
  private findingsCache: { at: number; seq: number; findings: Finding[] } | undefined;
  private readonly endListeners = new Set<() => void>();

  constructor(p: SessionParts) {
    this.id = p.id;
    this.kind = p.kind;
    this.title = p.title;
    this.simulated = p.simulated;
    this.recorder = p.recorder;
    this.imported = p.imported;
    this.columnar = p.columnar;
    this.informer = p.informer;
    this.faults = p.faults;
    this.controls = p.controls;
    this.stopFn = p.stop;
    this.releaseFn = p.release;
    this.readSpill = p.readSpill ?? ((c) => answerSpillCall(this.recorder?.spillState(), c));
    this.now = p.now ?? Date.now;
    this.clock = p.clock;
    this.running = p.stop !== undefined;
  }

  get live(): boolean {
    return this.running;
  }

  /** The current engine time (same base as event t) while the session runs and has a clock; else undefined. */
  engineNow(): number | undefined {
    if (!this.running || !this.clock) return undefined;
    const t = this.clock();
    return Number.isFinite(t) ? t : undefined;
  }

  /** Why the session ended by itself, if it failed (one line). */
  get failure(): string | undefined {
    return this.failureText;
  }

  info(): SessionInfo {
    const title = this.failureText === undefined ? this.title : `${this.title} (failed)`;
    return { id: this.id, title, live: this.running, simulated: this.simulated };
  }

  /** Memory, drops and the spill segment (undefined for an imported trace). */
  storage(): SessionStorage | undefined {
    if (!this.recorder) return undefined;
    const spill = this.recorder.spillState();
    return { memoryEvents: this.heldCount(), dropped: this.recorder.header().dropped, ...(spill ? { spill } : {}) };
  }

  /** The overview of what left memory for the spill segment (undefined when nothing did). */
  spillOverview(): SpillOverview | undefined {
    const o = this.recorder?.spillOverview?.();
    return o && o.chunks.length > 0 ? o : undefined;
  }

  /** The spilled events of the segment chunks that meet [t0, t1] as the timeline's columns (segmentRange.ts); none when nothing was spilled. */
  async spilledColumns(t0: number, t1: number, maxEvents?: number): Promise<SpilledColumns> {
    if ((this.recorder?.spillState()?.chunks.length ?? 0) === 0) return answerSpillCall(undefined, { op: 'spilledRange', t0, t1 }) as Promise<SpilledColumns>;
    return asColumns(await this.readSpill({ op: 'spilledRange', t0, t1, ...(maxEvents !== undefined ? { maxEvents } : {}) }));
  }

  header(): TraceHeader {
    if (this.recorder) return this.recorder.header();
    if (this.imported) return this.imported.header;
    if (this.columnar) return this.columnar.header;
    throw new Error(`session ${this.id} has no trace`);
  }

  /** The events in memory as objects (a trace opened from its companion parses its JSON for this, once). */
  events(): readonly RecordedEvent[] {
    return this.recorder?.events() ?? this.imported?.events ?? this.columnar?.load().events ?? [];
  }

  /** How many events events() holds, without building them. */
  eventCount(): number {
    return this.columnar ? this.columnar.count : this.heldCount();
  }

  private heldCount(): number {
    return this.recorder?.held ?? this.events().length;
  }

  /** The seq of the oldest event in memory (-1: none), without building the events. */
  private firstSeq(): number {
    const r = this.recorder;
    if (r?.held !== undefined && r.firstHeldSeq !== undefined) return r.held > 0 ? r.firstHeldSeq : -1;
    const events = this.events();
    return events.length > 0 ? events[0].seq : -1;
  }

  /** The seq of the last event in memory (-1: none), without building the events. */
  lastSeq(): number {
    if (this.columnar) return this.columnar.lastSeq;
    const r = this.recorder;
    if (r?.held !== undefined && r.firstHeldSeq !== undefined) return r.held > 0 ? r.firstHeldSeq + r.held - 1 : -1;
    const events = this.events();
    return events.length > 0 ? events[events.length - 1].seq : -1;
  }

  /**
   * The events as the timeline's columns when they do not change: a trace opened from its
   * companion holds them so; an imported trace's are encoded once and kept. Undefined for a
   * recorder's events (they grow).
   */
  columns(): ColumnBatch | undefined {
    if (this.columnar) return this.columnar.batch;
    if (!this.imported) return undefined;
    this.importedBatch ??= encodeBatch(this.imported.events);
    return this.importedBatch;
  }

  /**
   * The diff a details pane shows for the event with that seq (diffForSeq), read from the file
   * when the session has no objects, and from the spill segment when the event left memory.
   */
  async diffFor(seq: number): Promise<FieldChange[] | undefined> {
    if (this.columnar) return this.columnar.diffFor(seq);
    const r = this.recorder;
    // A packed window makes only the events the search reads.
    const packed = r?.at !== undefined && r.held !== undefined ? r : undefined;
    const held = packed ? undefined : this.events();
    const count = held ? held.length : packed!.held!;
    const at = held ? (i: number) => held[i] : (i: number) => packed!.at!(i);
    if (count > 0 && seq >= at(0).seq) return diffForSeqIn(count, at, seq);
    const onDisk = r?.spillState()?.chunks.some((c) => c.firstSeq <= seq && seq <= c.lastSeq);
    if (!onDisk) return diffForSeqIn(count, at, seq);
    const answer = await this.readSpill({ op: 'spilledDiff', seq });
    return 'diff' in answer ? answer.diff : undefined;
  }

  /** Events with seq > the given one. */
  since(seq: number): RecordedEvent[] {
    if (this.recorder) return this.recorder.since(seq);
    // A trace opened as columns does not grow: after its last event there is none (and its JSON is not parsed to say so).
    if (this.columnar && seq >= this.columnar.lastSeq) return [];
    return this.events().filter((e) => e.seq > seq);
  }

  /** Writes the whole trace (spilled events too) as a trace file, with its binary companion when every event is in memory; resolves with the number of events. */
  exportTo(path: string): Promise<number> {
    if (this.columnar) return this.columnar.exportTo(path);
    // Without a spill segment every event is in memory: a copy of the array is written without awaiting per event.
    const spilled = (this.recorder?.spillState()?.events ?? 0) > 0;
    if (this.recorder && spilled) return writeTraceWithCompanion(path, this.header(), this.recorder.allEvents());
    if (this.imported) {
      const events = this.imported.events;
      return writeTraceWithCompanion(path, this.header(), events.slice(), undefined, { events, batch: this.columns()!, summary: this.summary(), findings: this.findings(true) });
    }
    return writeTraceWithCompanion(path, this.header(), this.events().slice());
  }

  /** The trace (its in-memory window) as exportTrace takes it. */
  traceData(): { header: TraceHeader; events: readonly RecordedEvent[] } {
    return { header: this.header(), events: this.events() };
  }

  /**
   * The trace's counts (the one summary model, src/trace/summary.ts), kept up to date
   * incrementally; recounted from the start when the recorder dropped its oldest events (not
   * when it spilled them: spilled events are still part of the trace).
   */
  summary(): TraceSummary {
    if (this.columnar) return this.columnar.summary;
    const computed = this.recorder?.computed?.().summary;
    if (computed) return computed;
    const first = this.firstSeq();
    let c = this.summaryCache;
    const spilled = (this.recorder?.spillState()?.events ?? 0) > 0;
    if (!c || (c.firstSeq !== first && !spilled)) {
      c = this.summaryCache = { model: new SummaryModel(), firstSeq: first, lastSeq: -1 };
    }
    const fresh = c.lastSeq < 0 ? this.events() : this.since(c.lastSeq);
    for (const e of fresh) c.model.add(e);
    if (fresh.length > 0) c.lastSeq = fresh[fresh.length - 1].seq;
    return c.model.snapshot();
  }

  /** The findings, recomputed when the trace grew and the last computation is old enough (or `fresh`). */
  findings(fresh = false): Finding[] {
    if (this.columnar) return this.columnar.findings;
    const computed = this.recorder?.computed?.();
    if (computed) return computed.findings;
    const lastSeq = this.lastSeq();
    const c = this.findingsCache;
    if (c && (c.seq === lastSeq || (!fresh && this.running && this.now() - c.at < FINDINGS_INTERVAL_MS))) return c.findings;
    let findings: Finding[];
    try {
      findings = computeFindings(this.header(), this.recorder?.eventsByType?.() ?? this.events());
    } catch {
      // A rule that trips over an unusual trace must not take the view down; show none.
      findings = [];
    }
    this.findingsCache = { at: this.now(), seq: lastSeq, findings };
    return findings;
  }

  /**
   * Where the findings are (findings() holds none until they are `ready`): a trace opened from
   * its JSON gets them after its columns.
   */
  findingsState(): FindingsState {
    return this.columnar ? this.columnar.findingsState : { state: 'ready' };
  }

  /**
   * Called with every new batch of events (synchronously, per emit); for a trace opened from its
   * JSON, once with no events when its findings arrive (or cannot be computed).
   */
  subscribe(fn: (batch: RecordedEvent[]) => void): () => void {
    if (this.columnar) return this.columnar.onFindings(() => fn([]));
    return this.recorder ? this.recorder.subscribe(fn) : () => undefined;
  }

  onEnded(fn: () => void): () => void {
    this.endListeners.add(fn);
    return () => this.endListeners.delete(fn);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    try {
      await this.stopFn?.();
    } finally {
      this.fireEnded();
    }
  }

  /** The session ended without stop(): its engine finished or failed (`failure`, one line). */
  ended(failure?: string): void {
    if (!this.running) return;
    this.running = false;
    this.failureText = failure;
    this.fireEnded();
  }

  /** Stops the session and releases what it kept (its spill segment); the session is forgotten after. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.stop();
    } finally {
      this.releaseFn?.();
    }
  }

  private fireEnded(): void {
    for (const fn of this.endListeners) {
      try {
        fn();
      } catch {
        // One listener's failure must not keep the others from hearing of the end.
      }
    }
  }
}
