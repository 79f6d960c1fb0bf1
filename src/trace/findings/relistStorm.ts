/**
 * Relist storm: many relists close together. Each relist is a full LIST (and, with handlers that
 * do not filter, a wave of notifications), so a storm multiplies apiserver and handler load.
 * Relists are grouped by reason so that the cause is visible at a glance.
 */
import type { RelistReason } from '../../format/events';
import { at, countsText, evidence, LINKS, plural, type Recorded, type TraceView } from './types';
import type { Finding } from '../../format/trace';

/** A storm is at least this many relists within WINDOW_MS of each other. */
export const STORM_MIN_RELISTS = 5;
export const STORM_WINDOW_MS = 60_000;

const ADVICE_BY_REASON: Partial<Record<RelistReason, string>> = {
  Expired: 'watches keep expiring (410): the client falls behind the apiserver watch cache window; keep bookmarks on and handlers fast.',
  Gone: 'watches keep expiring (410 Gone): the RV resumed from is compacted; keep bookmarks on and handlers fast.',
  ConnectionRefused: 'the apiserver refuses connections (restarting or unreachable); with client-go ≤ 1.15 each refused watch relists (PR #81634).',
  InternalError: 'the watch stream keeps failing with 500 InternalError; check apiserver and etcd health.',
  DecodeError: 'the client cannot decode the watch stream; on apimachinery ≤ v0.32 this is often a client-side timeout (issue #129683).',
  VeryShortWatch: 'watches end in under a second with no events: a proxy or load balancer in between is closing them.',
  TooManyRequests: 'the apiserver throttles (429) and this client-go relists on it (before v0.22).',
  ListFailed: 'the LIST itself keeps failing; each failure backs off and relists again.',
};

function episodes(relists: Recorded<'relist'>[]): Recorded<'relist'>[][] {
  const inStorm = new Set<number>();
  let lo = 0;
  for (let hi = 0; hi < relists.length; hi++) {
    while (relists[hi].t - relists[lo].t > STORM_WINDOW_MS) lo++;
    if (hi - lo + 1 >= STORM_MIN_RELISTS) for (let k = lo; k <= hi; k++) inStorm.add(k);
  }
  const out: Recorded<'relist'>[][] = [];
  let current: Recorded<'relist'>[] = [];
  relists.forEach((r, k) => {
    if (!inStorm.has(k)) return;
    const prev = current[current.length - 1];
    if (prev && r.t - prev.t > STORM_WINDOW_MS) {
      out.push(current);
      current = [];
    }
    current.push(r);
  });
  if (current.length > 0) out.push(current);
  return out;
}

export function relistStorm(trace: TraceView): Finding[] {
  const refused = new Set(trace.refusedRelists());
  return episodes(trace.of('relist')).map((ep, i, all) => {
    const refusedHere = ep.filter((r) => refused.has(r.seq)).length;
    const listed = ep.length - refusedHere;
    const first = ep[0];
    const last = ep[ep.length - 1];
    const seconds = Math.max(1, Math.round((last.t - first.t) / 1000));
    const reasons = ep.map((r) => r.reason);
    const hints = [...new Set(reasons)].map((r) => ADVICE_BY_REASON[r]).filter((x): x is string => !!x);
    return {
      id: all.length > 1 ? `relist-storm:${i + 1}` : 'relist-storm',
      severity: ep.length >= STORM_MIN_RELISTS * 4 ? 'error' : 'warning',
      title: `Relist storm: ${plural(ep.length, 'relist')} in ${seconds}s`,
      detail:
        `From ${at(first.t)} to ${at(last.t)} the reflector relisted ${ep.length} times (by reason: ${countsText(reasons)}). ` +
        (refusedHere === 0
          ? 'Every relist is a full LIST from the apiserver and replays the whole collection through the FIFO.'
          : `${plural(refusedHere, 'relist')} had the LIST refused (the apiserver or the network refused it; the reflector backs off and relists again); ` +
            `${plural(listed, 'relist')} completed a full LIST and replayed the whole collection through the FIFO.`),
      advice:
        (hints.length > 0 ? `Cause: ${hints.join(' ')} ` : '') +
        'Relists are expensive for the apiserver and for handlers; look at the per-reason findings below for the specific cause and fix.',
      evidence: evidence(ep.map((r) => r.seq)),
      link: LINKS.issue129683,
    };
  });
}
