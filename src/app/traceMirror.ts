/**
 * The extension host's copy of a worker's recorder: the batches the worker sends, kept in the
 * same memory window by the same rule (when `cap` events are held, the oldest tenth leaves —
 * recorder.ts evictionCount), so it holds exactly what the worker's recorder holds. What left the
 * window is in the worker's spill segment (read back by allEvents()) or was dropped, which the
 * trace says with a 'trace.dropped' event as always.
 */
import type { RecordedEvent } from '../format/events';
import type { Finding, TraceHeader } from '../format/trace';
import type { TraceSummary } from '../trace/summary';
import { evictionCount } from '../trace/recorder';
import type { SpillOverview } from '../format/spill';
import { readSegment, type SpillState } from '../trace/segments';
import { SpillOverviewBuilder } from '../trace/spillOverview';
import type { TraceSource } from './session';
import type { RecorderStatus } from './workerProtocol';

export class TraceMirror implements TraceSource {
  private readonly buffer: RecordedEvent[] = [];
  private readonly listeners = new Set<(batch: RecordedEvent[]) => void>();
  private status: RecorderStatus = { dropped: 0 };
  private lastSummary: TraceSummary | undefined;
  /** The worker's findings; the same array until the worker sends new ones (views compare by identity). */
  private lastFindings: Finding[] = [];
  private readonly overview = new SpillOverviewBuilder();

  constructor(
    private readonly head: TraceHeader,
    private readonly cap: number,
  ) {}

  /** Takes one batch from the worker, in order, and tells the subscribers. */
  append(events: readonly RecordedEvent[], status: RecorderStatus): void {
    // The status tells which evictions the worker spilled (its segment's chunks), so it comes first.
    this.setStatus(status);
    for (const e of events) {
      if (this.buffer.length >= this.cap) this.evict(this.buffer.splice(0, evictionCount(this.cap, this.buffer.length)));
      this.buffer.push(e);
    }
    if (events.length === 0) return;
    const batch = [...events];
    for (const fn of this.listeners) {
      try {
        fn(batch);
      } catch {
        // A broken consumer must not stop the others.
      }
    }
  }

  /** The worker's last word on drops and spill (also when no event came with it). */
  setStatus(status: RecorderStatus): void {
    this.status = status;
    if (status.summary) this.lastSummary = status.summary;
    if (status.findings) this.lastFindings = status.findings;
  }

  /** What the worker computed from the whole trace: the summary (once a batch came) and the findings. */
  computed(): { summary?: TraceSummary; findings: Finding[] } {
    return { ...(this.lastSummary ? { summary: this.lastSummary } : {}), findings: this.lastFindings };
  }

  header(): TraceHeader {
    return { ...this.head, dropped: this.status.dropped };
  }

  events(): readonly RecordedEvent[] {
    return this.buffer;
  }

  since(seq: number): RecordedEvent[] {
    if (this.buffer.length === 0) return [];
    const from = Math.max(0, Math.floor(seq) + 1 - this.buffer[0].seq);
    return this.buffer.slice(from);
  }

  subscribe(fn: (batch: RecordedEvent[]) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** Events that left the window: a spilled chunk joins the overview (dropped ones are gone). */
  private evict(out: readonly RecordedEvent[]): void {
    const chunks = this.status.spill?.chunks;
    if (!chunks || out.length === 0) return;
    const chunk = chunks[this.overview.chunkCount];
    if (chunk && chunk.firstSeq === out[0].seq && chunk.count === out.length) this.overview.add(chunk, out);
  }

  spillOverview(): SpillOverview | undefined {
    return this.status.spill ? this.overview.overview() : undefined;
  }

  spillState(): SpillState | undefined {
    return this.status.spill;
  }

  async *allEvents(): AsyncGenerator<RecordedEvent> {
    const held = [...this.buffer];
    const spill = this.status.spill;
    if (spill && spill.events > 0) yield* readSegment(spill.path, held.length > 0 ? held[0].seq : Number.POSITIVE_INFINITY);
    yield* held;
  }
}
