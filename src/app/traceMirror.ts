/**
 * The extension host's copy of a worker's recorder: the batches the worker sends, kept in the
 * same memory window by the same rule (when `cap` events are held, the oldest tenth leaves —
 * recorder.ts evictionCount), so it holds exactly what the worker's recorder holds, packed as the
 * recorder packs its own (eventWindow.ts: a few dozen bytes an event instead of an object in the
 * extension host's heap) and made into objects again only when read. What left the window is in
 * the worker's spill segment (read back by allEvents()) or was dropped, which the trace says with
 * a 'trace.dropped' event as always.
 */
import type { RecordedEvent } from '../format/events';
import type { Finding, TraceHeader } from '../format/trace';
import type { TraceSummary } from '../trace/summary';
import { evictionCount } from '../trace/recorder';
import { EventWindow } from '../trace/eventWindow';
import type { Chunk } from '../trace/eventChunk';
import type { TypedEvents } from '../trace/findings/types';
import type { SpillOverview } from '../format/spill';
import { readSegment, type SpillState } from '../trace/segments';
import { SpillOverviewBuilder } from '../trace/spillOverview';
import type { TraceSource } from './session';
import type { RecorderStatus } from './workerProtocol';

export class TraceMirror implements TraceSource {
  private readonly buffer: EventWindow;
  private readonly listeners = new Set<(batch: RecordedEvent[]) => void>();
  private status: RecorderStatus = { dropped: 0 };
  private lastSummary: TraceSummary | undefined;
  /** The worker's findings; the same array until the worker sends new ones (views compare by identity). */
  private lastFindings: Finding[] = [];
  private readonly overview = new SpillOverviewBuilder();

  constructor(
    private readonly head: TraceHeader,
    private readonly cap: number,
  ) {
    this.buffer = new EventWindow(evictionCount(cap, cap));
  }

  /** Takes one batch from the worker, in order, and tells the subscribers. */
  append(events: readonly RecordedEvent[], status: RecorderStatus): void {
    // The status tells which evictions the worker spilled (its segment's chunks), so it comes first.
    this.setStatus(status);
    const w = this.buffer;
    for (const e of events) {
      if (w.length >= this.cap) this.evict(evictionCount(this.cap, w.length));
      // The worker's seqs follow one another; a copy that starts late (or, never expected, skips) starts over there.
      if (e.seq !== w.firstSeq + w.length) {
        if (w.length > 0) w.dropFirst(w.length);
        w.startAt(e.seq);
      }
      w.push(e, false);
    }
    if (events.length === 0) return;
    this.tell([...events]);
  }

  private tell(batch: RecordedEvent[]): void {
    for (const fn of this.listeners) {
      try {
        fn(batch);
      } catch {
        // A broken consumer must not stop the others.
      }
    }
  }

  /**
   * Takes one packed batch from the worker (its events have seqs from firstSeq on), in order: the
   * chunk joins the window as it is, the oldest events leave as they left the worker's recorder,
   * and the subscribers get the batch's events as objects.
   */
  appendPacked(chunk: Chunk, firstSeq: number, status: RecorderStatus): void {
    this.setStatus(status);
    const n = chunk.count;
    if (n === 0) return;
    const w = this.buffer;
    if (firstSeq !== w.firstSeq + w.length) {
      if (w.length > 0) w.dropFirst(w.length);
      w.startAt(firstSeq);
    }
    // The worker evicted before each event once `cap` were held; the same evictions, in order,
    // leave the same events (they go from the front, so the whole chunk may be in place first).
    const steps: number[] = [];
    let held = w.length;
    for (let k = 0; k < n; k++) {
      if (held >= this.cap) {
        const c = evictionCount(this.cap, held);
        steps.push(c);
        held -= c;
      }
      held++;
    }
    w.append(chunk);
    for (const c of steps) this.evict(c);
    if (this.listeners.size === 0) return;
    const batch: RecordedEvent[] = new Array(n);
    for (let k = 0; k < n; k++) batch[k] = chunk.read(k, firstSeq + k);
    this.tell(batch);
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

  /** The events in memory, made into objects (a copy: O(held events) each call). */
  events(): readonly RecordedEvent[] {
    return this.buffer.slice();
  }

  get held(): number {
    return this.buffer.length;
  }

  get firstHeldSeq(): number {
    return this.buffer.firstSeq;
  }

  /** The held event at this index (0 = the oldest). */
  at(i: number): RecordedEvent {
    return this.buffer.at(i);
  }

  eventsByType(): TypedEvents {
    return this.buffer.byType();
  }

  since(seq: number): RecordedEvent[] {
    if (this.buffer.length === 0) return [];
    const from = Math.max(0, Math.floor(seq) + 1 - this.buffer.firstSeq);
    return this.buffer.slice(from);
  }

  subscribe(fn: (batch: RecordedEvent[]) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** The oldest `count` events leave the window: when the worker spilled them (a chunk of its segment), they join the overview; dropped ones are gone. */
  private evict(count: number): void {
    const chunks = this.status.spill?.chunks;
    const chunk = chunks?.[this.overview.chunkCount];
    if (chunk && count > 0 && chunk.firstSeq === this.buffer.firstSeq && chunk.count === count) this.overview.add(chunk, this.buffer.slice(0, count));
    this.buffer.dropFirst(count);
  }

  spillOverview(): SpillOverview | undefined {
    return this.status.spill ? this.overview.overview() : undefined;
  }

  spillState(): SpillState | undefined {
    return this.status.spill;
  }

  async *allEvents(): AsyncGenerator<RecordedEvent> {
    const held = this.buffer.slice();
    const spill = this.status.spill;
    if (spill && spill.events > 0) yield* readSegment(spill.path, held.length > 0 ? held[0].seq : Number.POSITIVE_INFINITY);
    yield* held;
  }
}
