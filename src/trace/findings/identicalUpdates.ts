/**
 * A burst of identical updates after a relist: the relist replays every object and, where the
 * informer treats the replay as a real update (client-go ≤ 1.17 distributes Sync deltas to every
 * listener that never resynced; PR #86015), handlers get old/new pairs that are DeepEqual.
 * The window of a relist runs until the next relist or resync, so resync updates are not counted.
 */
import { at, evidence, LINKS, type Finding, type Recorded, type TraceView } from './types';

/** A burst needs at least half the listed objects (or this many) coming back as identical updates. */
export const BURST_MIN_UPDATES = 10;

function deliveredUpdate(e: Recorded<'distribute'>): boolean {
  return e.op === 'update' && e.delivered > 0;
}

export function identicalUpdatesAfterRelist(trace: TraceView): Finding[] {
  const allUpdates = trace.of('distribute').filter(deliveredUpdate);
  if (allUpdates.length === 0) return [];
  const boundaries = [...trace.of('relist').map((r) => r.seq), ...trace.of('fifo.resync').map((r) => r.seq)].sort((a, b) => a - b);
  const findings: Finding[] = [];
  for (const relist of trace.of('relist')) {
    const end = boundaries.find((s) => s > relist.seq) ?? Infinity;
    const identical = allUpdates.filter((e) => e.seq > relist.seq && e.seq < end && e.change === 'identical');
    if (identical.length === 0) continue;
    const listed = trace.firstAfter('list.done', relist.seq);
    const items = listed && listed.seq < end ? listed.items : identical.length;
    if (identical.length < Math.min(BURST_MIN_UPDATES, Math.ceil(items / 2))) continue;
    const notifies = trace
      .of('notify')
      .filter((n) => n.seq > relist.seq && n.seq < end && n.op === 'update' && n.change === 'identical');
    const perHandler = new Map<string, number>();
    for (const n of notifies) perHandler.set(n.handler, (perHandler.get(n.handler) ?? 0) + 1);
    const handlers = [...perHandler.entries()].map(([h, n]) => `${h} ×${n}`).join(', ');
    const share = Math.round((identical.length / allUpdates.length) * 100);
    findings.push({
      id: `identical-updates-after-relist:${relist.seq}`,
      severity: 'warning',
      title: `${identical.length} identical updates after the relist at ${at(relist.t)}`,
      detail:
        `After the relist (reason ${relist.reason}) ${identical.length} of ${items} listed objects reached handlers as update notifications whose old and new objects are identical (DeepEqual)` +
        `${handlers ? ` — per handler: ${handlers}` : ''}. That is ${share}% of all ${allUpdates.length} update notifications in this trace. ` +
        'Nothing changed in the cluster; the relist replayed the cache.',
      advice:
        'In UpdateFunc, return early when oldObj and newObj have the same resourceVersion (the sample-controller pattern); that also filters periodic resyncs. ' +
        (relist.reason === 'ConnectionRefused'
          ? 'This relist came from a refused watch start, which newer client-go re-watches without a list (PR #81634).'
          : 'And remove the cause of the relist (see the relist findings).'),
      evidence: evidence(relist.seq, identical.map((e) => e.seq)),
      link: relist.reason === 'ConnectionRefused' ? LINKS.pr81634 : LINKS.sampleController,
    });
  }
  return findings;
}
