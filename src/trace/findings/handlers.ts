/**
 * What handlers experience: tombstones they must unwrap, and handlers too slow for the event
 * rate (their unbounded buffer grows, client-go §4.4), or a FIFO that is not drained.
 */
import { at, evidence, LINKS, plural, type Recorded, type TraceView } from './types';
import type { Finding } from '../../format/trace';

/** A handler buffer this deep is a backlog worth reporting. */
export const PENDING_BACKLOG = 100;
/** Handler calls over client-go's 100 ms trace threshold: this many, or one this long, make a finding. */
export const SLOW_CALLS = 5;
export const VERY_SLOW_MS = 1000;
/** FIFO depth (queued deltas) that counts as a backlog. */
export const FIFO_BACKLOG = 1000;

export function tombstonesDelivered(trace: TraceView): Finding[] {
  const byHandler = new Map<string, number[]>();
  for (const n of trace.of('notify')) {
    if (n.op !== 'delete' || !n.tombstone) continue;
    const seqs = byHandler.get(n.handler);
    if (seqs) seqs.push(n.seq);
    else byHandler.set(n.handler, [n.seq]);
  }
  if (byHandler.size === 0) return [];
  const all = [...byHandler.values()].flat();
  const made = trace.of('fifo.enqueue').filter((e) => e.tombstone !== undefined);
  return [
    {
      id: 'tombstones-delivered',
      severity: 'warning',
      title: `${plural(all.length, 'delete')} delivered as ${all.length === 1 ? 'a DeletedFinalStateUnknown tombstone' : 'DeletedFinalStateUnknown tombstones'}`,
      detail:
        `Delete handlers got ${plural(all.length, 'tombstone')} (${[...byHandler.entries()].map(([h, s]) => `${h} ×${s.length}`).join(', ')}). ` +
        'The object was deleted while the watch was down, so the informer only noticed at the relist and does not know its final state; ' +
        'OnDelete receives a cache.DeletedFinalStateUnknown wrapping the last known object instead of the object itself. ' +
        'A delete handler that type-asserts the object (obj.(*v1.Pod)) panics on it.',
      advice:
        'In DeleteFunc, unwrap first: if t, ok := obj.(cache.DeletedFinalStateUnknown); ok { obj = t.Obj } — then type-assert with the two-value form and log what is not the expected type.',
      evidence: evidence(all, made.map((e) => e.seq)),
      link: LINKS.tombstone,
    },
  ];
}

export function slowHandlers(trace: TraceView): Finding[] {
  const findings: Finding[] = [];
  const peaks = new Map<string, Recorded<'notify'>>();
  for (const n of trace.of('notify')) {
    const best = peaks.get(n.handler);
    if (!best || n.pending > best.pending) peaks.set(n.handler, n);
  }
  const names = new Set([...peaks.keys(), ...trace.of('handler.slow').map((s) => s.handler)]);
  for (const handler of names) {
    const slow = trace.of('handler.slow').filter((s) => s.handler === handler);
    const peak = peaks.get(handler);
    const maxMs = slow.reduce((m, s) => Math.max(m, s.durationMs), 0);
    const backlog = peak !== undefined && peak.pending >= PENDING_BACKLOG;
    if (!backlog && slow.length < SLOW_CALLS && maxMs < VERY_SLOW_MS) continue;
    findings.push({
      id: `slow-handler:${handler}`,
      severity: backlog ? 'warning' : 'info',
      title: `Handler "${handler}" is slow${backlog ? ` (${peak.pending} notifications waiting)` : ''}`,
      detail:
        (slow.length > 0
          ? `${plural(slow.length, 'call')} of "${handler}" took longer than 100 ms (longest ${Math.round(maxMs)} ms). ` +
            (peak ? `Its buffer peaked at ${plural(peak.pending, 'pending notification')} at ${at(peak.t)}. ` : '')
          : `No single call of "${handler}" took longer than 100 ms, yet its buffer peaked at ${plural(peak?.pending ?? 0, 'pending notification')}` +
            `${peak ? ` at ${at(peak.t)}` : ''}: notifications arrived in a burst (a relist or resync hands over the whole collection at once) ` +
            'faster than the handler worked through them, so many fast calls still fell behind. ') +
        'client-go buffers notifications per handler without limit, so a slow handler delays its own view of the cluster and grows memory; other handlers are not blocked.',
      advice:
        'Keep event handlers cheap: enqueue the key into a workqueue and do the work in workers (the controller pattern); never call the apiserver or sleep inside a handler.',
      evidence: evidence(slow.map((s) => s.seq), peak ? peak.seq : undefined),
      link: LINKS.sharedInformer,
    });
  }
  return findings;
}

export function fifoBacklog(trace: TraceView): Finding[] {
  const enq = trace.of('fifo.enqueue');
  const peak = enq.reduce((best, e) => (best && best.depthDeltas >= e.depthDeltas ? best : e), enq[0]);
  if (!peak || peak.depthDeltas < FIFO_BACKLOG) return [];
  return [
    {
      id: 'fifo-backlog',
      severity: 'warning',
      title: `FIFO backlog: ${peak.depthDeltas} deltas queued`,
      detail:
        `At ${at(peak.t)} the informer's FIFO held ${peak.depthDeltas} deltas for ${peak.depthKeys} keys. The informer pops one item at a time; ` +
        'a deep queue means notifications (and the cache) lag behind the watch.',
      advice: 'Look for relists (each one queues the whole collection) and for slow indexer functions or transforms.',
      evidence: evidence(peak.seq),
      link: LINKS.sharedInformer,
    },
  ];
}
