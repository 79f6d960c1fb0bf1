/**
 * A burst of identical updates after a relist: the relist replays every object and, where the
 * informer treats the replay as a real update (client-go ≤ 1.17 distributes Sync deltas to every
 * listener that never resynced; PR #86015), handlers get old/new pairs that are DeepEqual.
 * The window of a relist runs until the next relist or resync, so resync updates are not counted.
 */
import { at, countsText, evidence, LINKS, plural, type Recorded, type TraceView } from './types';
import type { Finding } from '../../format/trace';

/** A burst needs at least half the listed objects (or this many) coming back as identical updates. */
export const BURST_MIN_UPDATES = 10;

function deliveredUpdate(e: Recorded<'distribute'>): boolean {
  return e.op === 'update' && e.delivered > 0;
}

interface Burst {
  relist: Recorded<'relist'>;
  identical: Recorded<'distribute'>[];
  listed: number;
  perHandler: Map<string, number>;
}

function burstAfter(trace: TraceView, relist: Recorded<'relist'>, end: number): Burst | undefined {
  const identical = trace.between('distribute', relist.seq, end).filter((e) => deliveredUpdate(e) && e.change === 'identical');
  if (identical.length === 0) return undefined;
  const done = trace.firstAfter('list.done', relist.seq);
  const listed = done && done.seq < end ? done.items : identical.length;
  if (identical.length < Math.min(BURST_MIN_UPDATES, Math.ceil(listed / 2))) return undefined;
  const perHandler = new Map<string, number>();
  for (const n of trace.between('notify', relist.seq, end)) {
    if (n.op === 'update' && n.change === 'identical') perHandler.set(n.handler, (perHandler.get(n.handler) ?? 0) + 1);
  }
  return { relist, identical, listed, perHandler };
}

/** One finding for the whole trace: a storm of relists must not become a storm of findings. */
export function identicalUpdatesAfterRelist(trace: TraceView): Finding[] {
  const totalUpdates = trace.of('distribute').filter(deliveredUpdate).length;
  if (totalUpdates === 0) return [];
  const boundaries = [...trace.of('relist').map((r) => r.seq), ...trace.of('fifo.resync').map((r) => r.seq)].sort((a, b) => a - b);
  const bursts: Burst[] = [];
  for (const relist of trace.of('relist')) {
    const burst = burstAfter(trace, relist, boundaries.find((s) => s > relist.seq) ?? Infinity);
    if (burst) bursts.push(burst);
  }
  if (bursts.length === 0) return [];
  const count = bursts.reduce((n, b) => n + b.identical.length, 0);
  const perHandler = new Map<string, number>();
  for (const b of bursts) for (const [h, n] of b.perHandler) perHandler.set(h, (perHandler.get(h) ?? 0) + n);
  const handlers = [...perHandler.entries()].map(([h, n]) => `${h} ×${n}`).join(', ');
  const share = Math.round((count / totalUpdates) * 100);
  const first = bursts[0];
  const refused = bursts.some((b) => b.relist.reason === 'ConnectionRefused');
  const what =
    bursts.length === 1
      ? `After the relist at ${at(first.relist.t)} (reason ${first.relist.reason}) ${count} of ${first.listed} listed objects reached handlers`
      : `After ${bursts.length} relists (first at ${at(first.relist.t)}, reasons ${countsText(bursts.map((b) => b.relist.reason))}) ${count} objects in total reached handlers`;
  return [
    {
      id: 'identical-updates-after-relist',
      severity: 'warning',
      title: bursts.length === 1 ? `${plural(count, 'identical update')} after the relist at ${at(first.relist.t)}` : `${plural(count, 'identical update')} after ${bursts.length} relists`,
      detail:
        `${what} as update notifications whose old and new objects are identical (DeepEqual)${handlers ? ` — per handler: ${handlers}` : ''}. ` +
        `That is ${share}% of all ${totalUpdates} update notifications in this trace. Nothing changed in the cluster; the relist replayed the cache.`,
      advice:
        'In UpdateFunc, return early when oldObj and newObj have the same resourceVersion (the sample-controller pattern); that also filters periodic resyncs. ' +
        (refused
          ? 'The relist came from a refused watch start, which newer client-go re-watches without a list (PR #81634).'
          : 'And remove the cause of the relist (see the relist findings).'),
      evidence: evidence(bursts.map((b) => b.relist.seq), bursts.flatMap((b) => b.identical.map((e) => e.seq))),
      link: refused ? LINKS.pr81634 : LINKS.sampleController,
    },
  ];
}
