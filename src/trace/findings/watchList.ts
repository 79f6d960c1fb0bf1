/**
 * A watch-list (streaming initial list) that closed cleanly before its initial-events-end
 * bookmark: client-go starts the watch-list again at once, with no backoff and no limit (spec
 * §1.10 row 26, upstream issue #140890), so a server or proxy that never sends the bookmark makes
 * a tight loop. Watch-lists that fail with an error (410, refused, 422 ...) are other rows.
 */
import { at, evidence, LINKS, plural, type TraceView } from './types';
import type { Finding } from '../../format/trace';
import { WatchEnd } from '../../engine/decisionRows';

export function watchListWithoutBookmark(trace: TraceView): Finding[] {
  const ends = trace.of('watch.end').filter((e) => e.watchList && e.row === WatchEnd.WatchListWithoutBookmark);
  if (ends.length === 0) return [];
  const starts = ends.map((e) => trace.lastBefore('watch.start', e.seq)?.seq);
  return [
    {
      id: 'watchlist-no-end-bookmark',
      severity: ends.length >= 3 ? 'error' : 'warning',
      title: `Watch-list ended without its end bookmark (${plural(ends.length, 'attempt')})`,
      detail:
        `${plural(ends.length, 'watch-list stream')} (sendInitialEvents=true) closed before the BOOKMARK annotated k8s.io/initial-events-end arrived, ` +
        `first at ${at(ends[0].t)} after ${Math.round(ends[0].durationMs)} ms and ${plural(ends[0].eventCount, 'event')}. Until it arrives the informer is not synced, ` +
        'and client-go opens the next watch-list at once, with no backoff and no limit (upstream issue #140890).',
      advice:
        'Check that the apiserver has the WatchList feature on and that nothing between client and server (proxy, aggregation layer) cuts long streams; ' +
        'as a workaround turn the WatchListClient gate off (KUBE_FEATURE_WatchListClient=false) so the informer uses LIST.',
      evidence: evidence(ends.map((e) => e.seq), starts.filter((s): s is number => s !== undefined)),
      link: LINKS.issue140890,
    },
  ];
}
