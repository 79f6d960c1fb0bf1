/**
 * What every findings rule shares: the Finding shape (TRACE API CONTRACT), a typed view of the
 * trace indexed by event type, and the wording helpers that keep findings consistent.
 * Rules are pure functions of the trace: same events, same findings.
 */
import type { EventOf, RecordedEvent, TraceEventType } from '../../format/events';
import type { Finding, TraceHeader } from '../../format/trace';
import { SummaryModel } from '../summary';

export type Recorded<T extends TraceEventType> = EventOf<T> & { seq: number };

/**
 * Where a TraceView reads events when it is not given them as one array: a packed window (the
 * recorder's) makes the events of a type into objects only when a rule asks for that type.
 */
export interface TypedEvents {
  /** The events of one type, in seq order (a fresh array). */
  ofType(type: TraceEventType): RecordedEvent[];
  /** Every event, in seq order. */
  all(): readonly RecordedEvent[];
}

/** The event types whose order decides SummaryModel's refused relists (summary.ts). */
const REFUSAL_TYPES: readonly TraceEventType[] = ['relist', 'list.done', 'list.error', 'watch.event'];

export class TraceView {
  private readonly index = new Map<TraceEventType, RecordedEvent[]>();
  private readonly source: TypedEvents | undefined;
  private allEvents: readonly RecordedEvent[] | undefined;
  private refused: readonly number[] | undefined;

  constructor(
    readonly header: TraceHeader,
    events: readonly RecordedEvent[] | TypedEvents,
  ) {
    if (!isEventArray(events)) {
      this.source = events;
      return;
    }
    this.allEvents = events;
    for (const e of events) {
      const list = this.index.get(e.type);
      if (list) list.push(e);
      else this.index.set(e.type, [e]);
    }
  }

  /** Every event, in trace order. */
  get events(): readonly RecordedEvent[] {
    this.allEvents ??= this.source!.all();
    return this.allEvents;
  }

  /** The seqs of the relists whose LIST was refused (SummaryModel.refusedRelists of this trace). */
  refusedRelists(): readonly number[] {
    if (this.refused) return this.refused;
    if (this.of('relist').length === 0) this.refused = [];
    else {
      const merged = REFUSAL_TYPES.flatMap((t) => this.of(t)).sort((a, b) => a.seq - b.seq);
      this.refused = SummaryModel.of(merged).refusedRelists();
    }
    return this.refused;
  }

  /** Events of one type, in trace order. */
  of<T extends TraceEventType>(type: T): Recorded<T>[] {
    let list = this.index.get(type);
    if (list === undefined && this.source) this.index.set(type, (list = this.source.ofType(type)));
    return (list ?? []) as Recorded<T>[];
  }

  /** Events of one type with from < seq < to, in trace order (binary search: rules run on 200k-event traces). */
  between<T extends TraceEventType>(type: T, from: number, to: number): Recorded<T>[] {
    const list = this.of(type);
    return list.slice(firstAbove(list, from), firstAbove(list, to - 1));
  }

  /** The last event of a type before seq (exclusive), if any. */
  lastBefore<T extends TraceEventType>(type: T, seq: number): Recorded<T> | undefined {
    const list = this.of(type);
    return list[firstAbove(list, seq - 1) - 1];
  }

  /** The first event of a type after seq (exclusive), if any. */
  firstAfter<T extends TraceEventType>(type: T, seq: number): Recorded<T> | undefined {
    const list = this.of(type);
    return list[firstAbove(list, seq)];
  }
}

function isEventArray(x: readonly RecordedEvent[] | TypedEvents): x is readonly RecordedEvent[] {
  return Array.isArray(x);
}

/** Index of the first event whose seq is > seq (list.length if none); lists are in seq order. */
function firstAbove(list: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].seq > seq) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export type FindingRule = (trace: TraceView) => Finding[];

/** Evidence lists stay readable: the first this many seqs are kept (computeFindings cuts them and records the full count). */
export const MAX_EVIDENCE = 50;

/** The seqs of all the events that show a finding, ascending, without repeats. */
export function evidence(...groups: (number | undefined | readonly number[])[]): number[] {
  const all = new Set<number>();
  for (const g of groups) {
    if (g === undefined) continue;
    if (typeof g === 'number') all.add(g);
    else for (const s of g) all.add(s);
  }
  return [...all].sort((a, b) => a - b);
}

/** "t=12.5s" from engine ms. */
export function at(t: number): string {
  return `t=${Math.round(t / 100) / 10}s`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "Expired ×3, ConnectionRefused ×1", most frequent first. */
export function countsText(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([v, n]) => `${v} ×${n}`)
    .join(', ');
}

export const LINKS = {
  pr81634: 'https://github.com/kubernetes/kubernetes/pull/81634',
  issue129683: 'https://github.com/kubernetes/kubernetes/issues/129683',
  pr129792: 'https://github.com/kubernetes/kubernetes/pull/129792',
  pr111387: 'https://github.com/kubernetes/kubernetes/pull/111387',
  apiConcepts410: 'https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes',
  kep2340: 'https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/2340-Consistent-reads-from-cache',
  kep4568: 'https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/4568-resilient-watchcache-initialization',
  tombstone: 'https://pkg.go.dev/k8s.io/client-go/tools/cache#DeletedFinalStateUnknown',
  issue140890: 'https://github.com/kubernetes/kubernetes/issues/140890',
  sampleController: 'https://github.com/kubernetes/sample-controller/blob/master/controller.go',
  etcd17555: 'https://github.com/etcd-io/etcd/pull/17555',
  sharedInformer: 'https://pkg.go.dev/k8s.io/client-go/tools/cache#SharedInformer',
} as const;

/** A finding with its evidence cut to MAX_EVIDENCE seqs; `evidenceCount` then says how many there are. */
export function capEvidence(f: Finding): Finding {
  if (f.evidence.length <= MAX_EVIDENCE) return f;
  return { ...f, evidence: f.evidence.slice(0, MAX_EVIDENCE), evidenceCount: f.evidence.length };
}

/** How many events show a finding. */
export function evidenceCount(f: Finding): number {
  return f.evidenceCount ?? f.evidence.length;
}
