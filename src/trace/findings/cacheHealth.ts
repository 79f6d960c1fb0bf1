/**
 * The cache against the server and the server's own state: a consistency check that found the
 * cache stale (the lost-delete symptom of etcd's compaction bug), apiserver 429s from a watch
 * cache that is not ready, and a trace that is itself incomplete.
 */
import { findProfile } from '../../engine/profiles';
import { at, evidence, LINKS, plural, type TraceView } from './types';
import type { Finding } from '../../format/trace';
import { WatchEnd } from '../../engine/decisionRows';

const SHOWN_KEYS = 5;

function keys(list: readonly string[]): string {
  const shown = list.slice(0, SHOWN_KEYS).join(', ');
  return list.length > SHOWN_KEYS ? `${shown} and ${list.length - SHOWN_KEYS} more` : shown;
}

export function staleCache(trace: TraceView): Finding[] {
  const findings: Finding[] = [];
  for (const c of trace.of('consistency.check')) {
    if (c.missing.length + c.extra.length + c.rvMismatch.length === 0) continue;
    const parts: string[] = [];
    if (c.extra.length > 0) parts.push(`${plural(c.extra.length, 'object')} in the cache that the server no longer has (${keys(c.extra)}) — a delete the informer never saw`);
    if (c.missing.length > 0) parts.push(`${plural(c.missing.length, 'object')} on the server missing from the cache (${keys(c.missing)})`);
    if (c.rvMismatch.length > 0) {
      parts.push(`${plural(c.rvMismatch.length, 'object')} with another resourceVersion (${keys(c.rvMismatch.map((m) => `${m.key} cache ${m.cached} / server ${m.server}`))})`);
    }
    const dropped = trace.of('fault.injected').filter((f) => f.seq < c.seq && f.fault === 'dropNextDelete');
    findings.push({
      id: `stale-cache:${c.seq}`,
      severity: 'error',
      title: 'The informer cache disagrees with the server',
      detail:
        `A consistent LIST (RV ${c.rv}) at ${at(c.t)} found ${parts.join('; ')}. The informer will not correct this by itself until its next relist.` +
        (dropped.length > 0 ? ' (A DELETED event was dropped on purpose by fault injection before this check.)' : ''),
      advice:
        'Lost deletes with a healthy watch are the symptom of etcd dropping events after compaction ("etcd event received with PrevKv=nil"): upgrade etcd to a release with PR #17555 (3.4.32+/3.5.13+). ' +
        'Restarting the informer (a fresh LIST) repairs the cache; controllers should also tolerate objects that vanish.',
      evidence: evidence(c.seq, dropped.map((f) => f.seq)),
      link: LINKS.etcd17555,
    });
  }
  return findings;
}

export function watchCache429(trace: TraceView): Finding[] {
  const ends = trace.of('watch.end').filter((e) => e.reason === 'TooManyRequests' || e.row === WatchEnd.TooManyRequestsOnOpen || e.row === WatchEnd.TooManyRequestsEvent);
  const lists = trace.of('list.error').filter((e) => e.code === 429);
  const total = ends.length + lists.length;
  if (total === 0) return [];
  const relisting = ends.filter((e) => e.outcome === 'relist').length + lists.length;
  const profile = findProfile(trace.header.profile);
  return [
    {
      id: 'apiserver-429',
      severity: relisting > 0 ? 'warning' : 'info',
      title: `apiserver answered 429 Too Many Requests (×${total})`,
      detail:
        `The apiserver refused ${plural(total, 'request')} with 429 (first at ${at((ends[0] ?? lists[0]).t)}). Most often its watch cache for this resource is not ready yet ` +
        '(after an apiserver restart; with ResilientWatchCacheInitialization the apiserver answers 429 instead of serving from etcd), otherwise API Priority and Fairness is throttling this client. ' +
        (relisting > 0
          ? `${plural(relisting, 'time')} this led to a relist${profile && !profile.tooManyRequestsRewatches ? ` (client-go ${profile.clientGo} relists on 429 in the stream; v0.22+ backs off and re-watches)` : ''}.`
          : 'The reflector backed off and re-watched from the same resourceVersion, which is the intended behaviour.'),
      advice: 'Usually transient after an apiserver restart. If it persists, check the apiserver\'s watch cache initialization and the flow-control (APF) metrics for this client.',
      evidence: evidence(ends.map((e) => e.seq), lists.map((e) => e.seq)),
      link: LINKS.kep4568,
    },
  ];
}

export function traceIncomplete(trace: TraceView): Finding[] {
  const drops = trace.of('trace.dropped');
  if (trace.header.dropped === 0 && drops.length === 0) return [];
  return [
    {
      id: 'trace-incomplete',
      severity: 'info',
      title: `The trace is incomplete: ${trace.header.dropped} oldest events dropped`,
      detail: `The recorder keeps at most ${trace.header.cap} events and dropped the oldest ${trace.header.dropped}; findings only cover what is left.`,
      advice: 'Raise the trace cap in the settings, or export earlier.',
      evidence: evidence(drops.map((d) => d.seq)),
    },
  ];
}
