/**
 * One inspection: a running informer (cluster or sandbox), a replayed scenario, or an imported
 * trace (sessions.ts builds each kind). It owns its recorder (or the imported events) and
 * whatever must be stopped with it.
 */
import type { FaultInjectingListerWatcher } from '../sources/faults';
import type { SharedIndexInformer } from '../engine/sharedInformer';
import type { ConsistencyResult } from '../trace/consistency';
import { computeFindings } from '../trace/findings';
import type { Finding } from '../format/trace';
import type { TraceRecorder } from '../trace/recorder';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
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
}

/** The kinds of session: sessions.ts builds the first four; observation.ts makes 'observed' ones (one per reflector of an observed process). */
export type SessionKind = 'cluster' | 'sandbox' | 'replay' | 'import' | 'observed';

export interface SessionParts {
  id: string;
  kind: SessionKind;
  title: string;
  simulated: boolean;
  /** A live or replayed recorder; absent for an imported trace. */
  recorder?: TraceRecorder;
  /** An imported trace's content. */
  imported?: { header: TraceHeader; events: readonly RecordedEvent[] };
  informer?: SharedIndexInformer;
  faults?: FaultInjectingListerWatcher;
  controls?: LiveControls;
  /** Stops everything the session runs (informer, sandbox); resolves when it has stopped. */
  stop?: () => Promise<void>;
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
  private readonly recorder?: TraceRecorder;
  private readonly imported?: { header: TraceHeader; events: readonly RecordedEvent[] };
  private readonly stopFn?: () => Promise<void>;
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
    this.informer = p.informer;
    this.faults = p.faults;
    this.controls = p.controls;
    this.stopFn = p.stop;
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

  info(): SessionInfo {
    return { id: this.id, title: this.title, live: this.running, simulated: this.simulated };
  }

  header(): TraceHeader {
    if (this.recorder) return this.recorder.header();
    if (this.imported) return this.imported.header;
    throw new Error(`session ${this.id} has no trace`);
  }

  events(): readonly RecordedEvent[] {
    return this.recorder?.events() ?? this.imported?.events ?? [];
  }

  /** Events with seq > the given one. */
  since(seq: number): RecordedEvent[] {
    if (this.recorder) return this.recorder.since(seq);
    return this.events().filter((e) => e.seq > seq);
  }

  /** The trace as exportTrace takes it. */
  traceData(): { header: TraceHeader; events: readonly RecordedEvent[] } {
    return { header: this.header(), events: this.events() };
  }

  /**
   * The trace's counts (the one summary model, src/trace/summary.ts), kept up to date
   * incrementally; recounted from the start when the recorder dropped its oldest events.
   */
  summary(): TraceSummary {
    const events = this.events();
    const first = events.length > 0 ? events[0].seq : -1;
    let c = this.summaryCache;
    if (!c || c.firstSeq !== first) {
      c = this.summaryCache = { model: new SummaryModel(), firstSeq: first, lastSeq: -1 };
    }
    const fresh = c.lastSeq < 0 ? events : this.since(c.lastSeq);
    for (const e of fresh) c.model.add(e);
    if (fresh.length > 0) c.lastSeq = fresh[fresh.length - 1].seq;
    return c.model.snapshot();
  }

  /** The findings, recomputed when the trace grew and the last computation is old enough (or `fresh`). */
  findings(fresh = false): Finding[] {
    const events = this.events();
    const lastSeq = events.length > 0 ? events[events.length - 1].seq : -1;
    const c = this.findingsCache;
    if (c && (c.seq === lastSeq || (!fresh && this.running && this.now() - c.at < FINDINGS_INTERVAL_MS))) return c.findings;
    let findings: Finding[];
    try {
      findings = computeFindings(this.header(), events);
    } catch {
      // A rule that trips over an unusual trace must not take the view down; show none.
      findings = [];
    }
    this.findingsCache = { at: this.now(), seq: lastSeq, findings };
    return findings;
  }

  /** Called with every new batch of events (synchronously, per emit). */
  subscribe(fn: (batch: RecordedEvent[]) => void): () => void {
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
      for (const fn of this.endListeners) fn();
    }
  }
}
