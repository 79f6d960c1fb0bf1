/**
 * A watch-list (streaming initial list) that ended before its initial-events-end bookmark: client-go
 * starts the watch-list again at once, with no backoff and no limit (spec §1.10 row 26, upstream
 * issue #140890), so a server or proxy that never sends the bookmark makes a tight loop.
 */
import { at, evidence, LINKS, plural, type Finding, type TraceView } from './types';

export function watchListWithoutBookmark(trace: TraceView): Finding[] {
  const incomplete: number[] = [];
  for (const start of trace.of('watch.start')) {
    if (!start.watchList) continue;
    const end = trace.firstAfter('watch.end', start.seq);
    if (!end || !end.watchList) continue;
    const bookmark = trace.of('watch.event').find((e) => e.seq > start.seq && e.seq < end.seq && e.initialEventsEnd);
    if (bookmark || end.outcome === 'stop') continue;
    incomplete.push(start.seq, end.seq);
  }
  if (incomplete.length === 0) return [];
  const attempts = incomplete.length / 2;
  const first = trace.events.find((e) => e.seq === incomplete[0]);
  return [
    {
      id: 'watchlist-no-end-bookmark',
      severity: attempts >= 3 ? 'error' : 'warning',
      title: `Watch-list ended without its end bookmark (${plural(attempts, 'attempt')})`,
      detail:
        `${plural(attempts, 'watch-list stream')} (sendInitialEvents=true) closed before the BOOKMARK annotated k8s.io/initial-events-end arrived` +
        `${first ? `, first at ${at(first.t)}` : ''}. Until it arrives the informer is not synced, and client-go opens the next watch-list at once, ` +
        'with no backoff and no limit (upstream issue #140890).',
      advice:
        'Check that the apiserver has the WatchList feature on and that nothing between client and server (proxy, aggregation layer) cuts long streams; ' +
        'as a workaround turn the WatchListClient gate off (KUBE_FEATURE_WatchListClient=false) so the informer uses LIST.',
      evidence: evidence(incomplete),
      link: LINKS.issue140890,
    },
  ];
}
