/**
 * Why relists happened, one rule per well-known cause (spec §1.10, §6). Each rule points at the
 * relist and at what ended the cycle before it (the watch.end or list.error, and a fault that
 * was injected in between), so cause and effect can be found on the timeline.
 */
import { findProfile } from '../../engine/profiles';
import { at, countsText, evidence, LINKS, plural, type Recorded, type TraceView } from './types';
import type { Finding } from '../../format/trace';
import { ListEnd, WatchEnd } from '../../engine/decisionRows';

/** The events that explain a relist: the last ending before it and any fault injected since the previous list. */
export function causeOf(trace: TraceView, relist: Recorded<'relist'>): number[] {
  const previousList = trace.lastBefore('list.done', relist.seq)?.seq ?? -1;
  const ending = [trace.lastBefore('watch.end', relist.seq), trace.lastBefore('list.error', relist.seq)]
    .filter((e): e is NonNullable<typeof e> => !!e && e.seq > previousList)
    .map((e) => e.seq);
  const fault = trace.lastBefore('fault.injected', relist.seq);
  return fault && fault.seq > previousList ? [...ending, fault.seq] : ending;
}

/** A refused watch start relisting: the client-go ≤ 1.15 ECONNREFUSED bug (row 6 with outcome relist). */
export function refusedWatchRelist(trace: TraceView): Finding[] {
  const relists = trace.of('relist').filter((r) => r.reason === 'ConnectionRefused' && r.row === WatchEnd.RefusedOnOpen);
  if (relists.length === 0) return [];
  const profile = findProfile(trace.header.profile);
  const retries = refusedListRetries(trace);
  const more = retries > 0 ? `; ${retries} more ${retries === 1 ? 'relist' : 'relists'} followed because the LIST itself was refused while the apiserver was down` : '';
  return [
    {
      id: 'refused-watch-relist',
      severity: 'warning',
      title: `A refused watch start caused ${plural(relists.length, 'full relist')} (client-go ≤ 1.15 bug)${more}`,
      detail:
        `${plural(relists.length, 'time')} the watch could not be opened because the connection was refused (an apiserver restart looks like this), ` +
        `and the reflector relisted instead of waiting and re-watching. In ${profile ? `profile ${profile.name} (client-go ${profile.clientGo})` : 'this client-go'} ` +
        'the connection-refused check looked for *url.Error → *net.OpError → syscall.Errno, but Go wraps the errno in *os.SyscallError, so the check never matched. ' +
        (retries > 0
          ? `Only ${relists.length === 1 ? 'that first relist is' : 'those relists are'} the bug: the relist's own LIST was then refused too, and every client-go version ` +
            `answers a failed LIST by backing off and listing again, which counts as ${plural(retries, 'further relist')} (reason ConnectionRefused, row 7). ` +
            'Current client-go would also have relisted those; it would not have started the first one. '
          : '') +
        'Once the apiserver is back, the relist hands every object to the handlers again, mostly as updates whose old and new objects are identical.',
      advice:
        'Upgrade client-go: from Kubernetes 1.16 (PR #81634, utilnet.IsConnectionRefused) a refused watch start waits and re-watches from the same resourceVersion, with no list; ' +
        'current client-go backs off (exponential, reset after quiet periods) and re-watches. Meanwhile make update handlers ignore updates whose resourceVersion did not change.',
      evidence: evidence(relists.map((r) => r.seq), relists.flatMap((r) => causeOf(trace, r))),
      link: LINKS.pr81634,
    },
  ];
}

/**
 * Relists that retried a refused LIST (row 7, ConnectionRefused) right after a refused watch
 * start relisted: the same outage, but not the ≤ 1.15 bug (every version relists a failed LIST).
 */
function refusedListRetries(trace: TraceView): number {
  let inChain = false;
  let retries = 0;
  for (const r of trace.of('relist')) {
    if (r.reason === 'ConnectionRefused' && r.row === WatchEnd.RefusedOnOpen) inChain = true;
    else if (inChain && r.reason === 'ConnectionRefused' && r.row === ListEnd.Failed) retries++;
    else inChain = false;
  }
  return retries;
}

/** Client-side timeouts that reach the reflector as a decode error (issue #129683) rather than a clean close. */
const CLIENT_TIMEOUT_TEXT = /got short buffer|Client\.Timeout exceeded|context deadline exceeded|i\/o timeout/i;

function relistingEnds(trace: TraceView, pick: (e: Recorded<'watch.end'>) => boolean): Recorded<'watch.end'>[] {
  return trace.of('watch.end').filter((e) => (e.outcome === 'relist' || e.outcome === 'consistent-relist') && pick(e));
}

function followingRelists(trace: TraceView, ends: Recorded<'watch.end'>[]): number[] {
  return ends.map((e) => trace.firstAfter('relist', e.seq)?.seq).filter((s): s is number => s !== undefined);
}

export function internalErrorRelist(trace: TraceView): Finding[] {
  const ends = relistingEnds(
    trace,
    (e) => (e.reason === 'InternalError' || e.reason === 'DecodeError') && !CLIENT_TIMEOUT_TEXT.test(e.error ?? ''),
  );
  if (ends.length === 0) return [];
  const decode = ends.filter((e) => e.reason === 'DecodeError').length;
  return [
    {
      id: 'internal-error-relist',
      severity: 'warning',
      title: `Relist after 500 InternalError in the watch stream (×${ends.length})`,
      detail:
        `The watch ended with an ERROR event of reason InternalError ${plural(ends.length, 'time')} (${decode} of them client-side decode errors, ` +
        'which StreamWatcher turns into a 500 InternalError "unable to decode an event from the watch stream"). ' +
        `An informer always relists after this (spec §1.10 row 17): first at ${at(ends[0].t)}: ${ends[0].error ?? ''}`,
      advice:
        'Informers never enable Reflector.MaxInternalErrorRetryDuration (PR #111387, only kube-apiserver\'s cacher sets it), so there is no knob to re-watch instead. ' +
        'For server-side InternalErrors check apiserver/etcd health (e.g. "etcdserver: no leader"); for decode errors check what sits between client and apiserver and the object sizes.',
      evidence: evidence(ends.map((e) => e.seq), followingRelists(trace, ends)),
      link: LINKS.pr111387,
    },
  ];
}

export function clientTimeoutRelist(trace: TraceView): Finding[] {
  const ends = relistingEnds(trace, (e) => CLIENT_TIMEOUT_TEXT.test(e.error ?? ''));
  if (ends.length === 0) return [];
  return [
    {
      id: 'client-timeout-relist',
      severity: 'warning',
      title: `Relist after a client-side watch timeout (×${ends.length})`,
      detail:
        `The watch hit a client-side timeout and, instead of closing normally and re-watching, it ended as an error that relists (${at(ends[0].t)}: ${ends[0].error ?? ''}). ` +
        'With protobuf framing on apimachinery ≤ v0.32 a timeout in the middle of a frame surfaced as "got short buffer", a decode error, which client-go reports as a 500 InternalError (issue #129683).',
      advice:
        'Upgrade to apimachinery/client-go v0.33+ (Kubernetes 1.33), which contains the fix (PR #129792: the framer returns the real read error, so a timeout is a normal close and the reflector re-watches). ' +
        `Until then keep the HTTP client timeout longer than the watch timeoutSeconds (at most 10 min), or use JSON for watches. Fix: ${LINKS.pr129792}`,
      evidence: evidence(ends.map((e) => e.seq), followingRelists(trace, ends)),
      link: LINKS.issue129683,
    },
  ];
}

export function expiredRelist(trace: TraceView): Finding[] {
  const relists = trace.of('relist').filter((r) => r.reason === 'Expired' || r.reason === 'Gone');
  if (relists.length === 0) return [];
  return [
    {
      id: 'expired-relist',
      severity: relists.length >= 3 ? 'warning' : 'info',
      title: `Relist after 410 ${[...new Set(relists.map((r) => r.reason))].join('/')} (×${relists.length})`,
      detail:
        `The watch was told its resourceVersion is too old ${plural(relists.length, 'time')} (${countsText(relists.map((r) => r.reason))}); first at ${at(relists[0].t)}: ${relists[0].text}. ` +
        'The apiserver keeps only a window of history (watch cache, etcd compaction); a watch resuming from an RV older than that gets 410, and the reflector relists ' +
        `at its last RV (from the watch cache, not etcd, since client-go 1.18) — here at RV ${relists.map((r) => JSON.stringify(r.rv)).slice(0, 3).join(', ')}.`,
      advice:
        'Occasional 410s are normal. Frequent ones mean the client falls behind: keep watch bookmarks on (they keep the RV fresh), keep handlers fast so the watch is read promptly, ' +
        'and check the apiserver\'s watch cache size for this resource.',
      evidence: evidence(relists.map((r) => r.seq), relists.flatMap((r) => causeOf(trace, r))),
      link: LINKS.apiConcepts410,
    },
  ];
}

/** Relists with RV "" (consistent reads): the only way is a LIST/watch-list that got Expired/Gone/TooLarge (§1.10). */
export function consistentRelist(trace: TraceView): Finding[] {
  const relists = trace.of('relist').filter((r) => r.consistent);
  const retries = trace.of('list.retryConsistent');
  const total = relists.length + retries.length;
  if (total === 0) return [];
  const why = retries.length > 0 ? countsText(retries.map((r) => r.reason)) : countsText(relists.map((r) => r.reason));
  return [
    {
      id: 'consistent-relist',
      severity: total >= 3 ? 'warning' : 'info',
      title: `Consistent relist (resourceVersion "") ×${total}`,
      detail:
        `A LIST asked for resourceVersion "" (${why}): a consistent read of the current state. client-go does this only after a LIST or watch-list got Expired/Gone or "Too large resource version". ` +
        'Before apiserver 1.31 (ConsistentListFromCache beta; GA in 1.34) and whenever etcd lacks progress notify, such a list goes to etcd as a quorum read, paginated 500 at a time — ' +
        'expensive, and a thundering herd when many clients do it at once.',
      advice:
        'Check the apiserver version (ConsistentListFromCache lets the watch cache serve it). Repeated consistent relists mean the last RV keeps being rejected: ' +
        'look for apiserver restarts, an apiserver behind a load balancer that mixes instances at different revisions (TooLarge), or compaction.',
      evidence: evidence(relists.map((r) => r.seq), retries.map((r) => r.seq)),
      link: LINKS.kep2340,
    },
  ];
}
