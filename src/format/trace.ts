/**
 * The trace file's header and the finding shape (informer-trace/v1), types only. The event
 * vocabulary is in ./events.ts.
 */
import type { ReflectorState } from './events';

export interface TraceHeader {
  format: 'informer-trace/v1';
  tool: { name: 'informer-inspector'; version: string };
  profile: string;
  gates: Record<string, boolean>;
  resource: { group: string; version: string; resource: string; kind?: string; namespaced?: boolean };
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  context?: string;
  source: 'cluster' | 'sandbox' | 'scenario' | 'import';
  /** ISO wall time of t=0. */
  startedAt: string;
  cap: number;
  dropped: number;
  /** true: Secret payloads and credentials were scrubbed. false only when the user turned redaction off. */
  redacted: boolean;
}

export interface Finding {
  /** Stable rule id, with `:<qualifier>` when one rule reports several things (e.g. per handler). */
  id: string;
  severity: 'info' | 'warning' | 'error';
  title: string;
  detail: string;
  advice: string;
  /** seqs of the events that show it, ascending (at most the first 50). */
  evidence: number[];
  /** How many events show it, when more than `evidence` lists. */
  evidenceCount?: number;
  /** Upstream issue/PR or documentation URL. */
  link?: string;
}

/**
 * Whether a session's findings are known: a trace opened from its JSON shows its timeline before
 * they are computed (`computing`), and gets them, or why they could not be computed (one line), after.
 */
export type FindingsState = { state: 'ready' } | { state: 'computing' } | { state: 'failed'; reason: string };

/**
 * The trace's counts, computed once (src/trace/summary.ts) and read by every header chip, the
 * status bar, the findings and the CLI `summarize`, so they cannot disagree.
 */
export interface TraceSummary {
  /** Relists (every list after the first), by reason, most frequent first. */
  relists: number;
  relistsByReason: [string, number][];
  /** Relists whose LIST the apiserver (or the network) refused: they ended in a list.error, not a list. */
  relistsListRefused: number;
  /** Completed LISTs, initial and relists, plus completed watch-list initial syncs. */
  lists: number;
  /** Watches the reflector opened. */
  watches: number;
  /** Updates handed to handlers (distribute op=update, syncs included). */
  updates: number;
  identicalUpdates: number;
  /** identicalUpdates / updates, 0 when there were none. */
  identicalShare: number;
  /**
   * DeletedFinalStateUnknown tombstones made, one per object: queued in the FIFO (DeltaFIFO,
   * non-atomic RealFIFO) or made when the informer distributes an atomic relist (RealFIFO).
   */
  tombstones: number;
  currentRv: string;
  fifoKeys: number;
  fifoDeltas: number;
  synced: boolean;
  state: ReflectorState | 'idle';
  events: number;
  dropped: number;
  /** Objects the cache kept after the server dropped them, as far as the trace shows (at most 100, oldest first). */
  staleWindows: StaleWindow[];
}

/**
 * A stale-cache window: from the last time the trace shows the server had the object (a watch
 * event or a list that carried it) to the repair (the tombstone a relist made for it, or a delete);
 * open (no `toT`) while a consistency check has found it in the cache only and nothing repaired it yet.
 */
export interface StaleWindow {
  key: string;
  fromT: number;
  toT?: number;
  /** What showed that the server no longer had it: a relist (its tombstone) or a consistency check. */
  revealedBy: 'relist' | 'check';
  /** seq of the event that revealed it. */
  revealSeq: number;
}
