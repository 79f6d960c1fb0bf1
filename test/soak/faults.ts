/**
 * The soak's faults: the plan (every kind as often as asked, in a seeded random order), how each
 * is applied, and what the refused-connection faults must show.
 *  - restart-kill / restart-graceful: the apiserver is restarted, alternately a crash (SIGKILL)
 *    and a graceful shutdown (SIGTERM with GRACEFUL_SHUTDOWN_FLAGS: open watches are closed,
 *    requests while draining get 429). The fault proxy keeps listening meanwhile (it accepts and
 *    resets), so a restart never makes a connect refused;
 *  - compaction: the engine's connections stall, objects change, etcd is compacted to its current
 *    revision, the stalled connections are reset and the engine re-watches at a compacted RV (the
 *    ConfigMap watch cache is off, so watches go to etcd and get its 410);
 *  - resets: RST on every live connection, a group at a time, 50–300 ms apart;
 *  - burst-429: for 2–4 s every new connection reaches a server answering 429 + Retry-After;
 *  - refused: the server's address stops listening for 3–5 s (every live connection is reset and
 *    every connect gets ECONNREFUSED), then listens again. client-go ≤ 1.15 misses the wrapped
 *    ECONNREFUSED on a watch start and relists (`ConnectionRefused`, PR #81634); later lines back
 *    off and re-watch without relisting.
 */
import type { E2ECluster } from '../e2e/cluster';
import type { FaultProxy } from '../e2e/faultProxy';
import { sleep } from '../e2e/helpers';
import { compactEtcd } from './etcd';

export type FaultKind = 'restart-kill' | 'restart-graceful' | 'compaction' | 'resets' | 'burst-429' | 'refused';

export interface FaultRecord {
  kind: FaultKind;
  at: number;
  faultMs: number;
  convergedMs: Record<string, number | null>;
  /** Backoff sleeps (ms) the reflector chose from the start of the fault until it settled. */
  backoffMs: Record<string, number>;
  /** Relists by reason from the start of the fault until it settled. */
  relists: Record<string, Record<string, number>>;
  /** Watch starts refused (row RefusedOnOpen) from the start of the fault until it settled, by what followed: a relist or a re-watch after a backoff. */
  refusedWatchStarts: Record<string, { relist: number; rewatch: number }>;
  lost?: string;
  note?: string;
}

export interface PlanCounts {
  restarts: number;
  compactions: number;
  resetGroups: number;
  bursts: number;
  refusals: number;
}

/** Every fault asked for, shuffled with `rand` (Fisher–Yates). */
export function faultPlan(n: PlanCounts, rand: () => number): FaultKind[] {
  const plan: FaultKind[] = [
    ...Array.from({ length: n.restarts }, (_, i): FaultKind => (i % 2 === 0 ? 'restart-kill' : 'restart-graceful')),
    ...Array.from({ length: n.compactions }, (): FaultKind => 'compaction'),
    ...Array.from({ length: n.resetGroups }, (): FaultKind => 'resets'),
    ...Array.from({ length: n.bursts }, (): FaultKind => 'burst-429'),
    ...Array.from({ length: n.refusals }, (): FaultKind => 'refused'),
  ];
  for (let i = plan.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [plan[i], plan[j]] = [plan[j], plan[i]];
  }
  return plan;
}

export interface FaultTargets {
  cluster: E2ECluster;
  proxy: FaultProxy;
  etcdPort: number;
  throttlePort: number;
  rand: () => number;
  /** Resets one 'resets' fault may still apply (the run's total is bounded). */
  resetsLeft(): number;
  resetsPerGroup: number;
  onReset(): void;
  problem(text: string): void;
}

/** Applies one fault; resolves with a note on it, if any. */
export async function applyFault(kind: FaultKind, t: FaultTargets): Promise<string | undefined> {
  switch (kind) {
    case 'restart-kill':
    case 'restart-graceful':
      try {
        await t.cluster.restartApiserver(undefined, kind === 'restart-kill' ? 'kill' : 'graceful');
      } catch (e) {
        await t.cluster.startApiserver().catch((e2: Error) => t.problem(`apiserver did not come back: ${e2.message}`));
        return `restart failed: ${(e as Error).message.split('\n')[0]}`;
      }
      return undefined;
    case 'compaction': {
      // The engine's connections go silent (a partition: nothing flows, nothing is refused),
      // objects change that it cannot see, etcd drops that history, and then the silent
      // connections are reset: the watch had events and lasted, so the reflector re-watches
      // at once, at a compacted resourceVersion, and gets etcd's 410.
      t.proxy.stall();
      await sleep(1000); // the writer keeps changing objects the engine cannot see
      const rev = await compactEtcd(t.etcdPort);
      t.proxy.cutAll('reset');
      t.proxy.resume();
      return `compacted at revision ${rev}`;
    }
    case 'resets':
      for (let k = 0; k < t.resetsPerGroup && t.resetsLeft() > 0; k++) {
        t.proxy.cutAll('reset');
        t.onReset();
        await sleep(50 + t.rand() * 250);
      }
      return undefined;
    case 'burst-429':
      t.proxy.retarget(t.throttlePort);
      t.proxy.cutAll('reset');
      await sleep(2000 + t.rand() * 2000);
      t.proxy.retarget(t.cluster.port);
      return undefined;
    case 'refused': {
      // Open watches that lasted are not "very short" when they are cut: each informer re-watches at once and meets the refusal.
      await sleep(1500);
      const ms = Math.round(3000 + t.rand() * 2000);
      await t.proxy.refuseFor(ms, { cut: 'reset' });
      return `refused connections for ${ms} ms`;
    }
  }
}

/**
 * What the refused-connection faults must show over the run (nothing when there were none): a
 * watch start refused (row RefusedOnOpen) made the v1.15 informer relist at least once, and never
 * a later line, which backed off and re-watched instead. (Any profile may still relist for another
 * reason, e.g. a very short watch, and find its LIST refused too.) Returns the problems found.
 */
export function checkRefusals(faults: readonly FaultRecord[], profiles: readonly string[]): string[] {
  const refused = faults.filter((f) => f.kind === 'refused');
  if (refused.length === 0) return [];
  const sum = (p: string, k: 'relist' | 'rewatch') => refused.reduce((a, r) => a + (r.refusedWatchStarts[p]?.[k] ?? 0), 0);
  const problems: string[] = [];
  for (const p of profiles) {
    const [relists, rewatches] = [sum(p, 'relist'), sum(p, 'rewatch')];
    if (p === 'v1.15' && relists === 0) problems.push(`v1.15: no refused watch start led to a ConnectionRefused relist in ${refused.length} refused-connection faults (PR #81634's path)`);
    if (p !== 'v1.15' && relists > 0) problems.push(`${p}: ${relists} refused watch starts led to a relist (it should back off and re-watch)`);
    if (p !== 'v1.15' && rewatches === 0) problems.push(`${p}: no refused watch start was retried after a backoff in ${refused.length} refused-connection faults`);
  }
  return problems;
}
