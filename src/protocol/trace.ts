/**
 * The trace shapes that cross the host/webview boundary. The event vocabulary is the engine's
 * (type-only re-export: nothing of the engine runs in the webview). The trace header and the
 * finding shape are defined here, once: the webview may import only src/protocol, and the trace
 * layer (src/trace/recorder.ts, src/trace/findings/types.ts) uses these same types.
 */
import type { ReflectorState, TraceEvent } from '../engine/events';

export type {
  DeltaType,
  FieldChange,
  LogLevel,
  Outcome,
  ReflectorState,
  RelistReason,
  TraceEvent,
  TraceEventType,
  UpdateChange,
} from '../engine/events';

export type WireEvent = TraceEvent & { seq: number };

export interface WireTraceHeader {
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

export interface WireFinding {
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
 * The trace's counts, computed once by the host (src/trace/summary.ts) and read by every header
 * chip, the status bar, the findings and the CLI `summarize`, so they cannot disagree.
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
}

/** "12 (7 with the LIST refused; ConnectionRefused 9, Expired 3)": the relist count as every view writes it. */
export function relistsText(s: Pick<TraceSummary, 'relists' | 'relistsByReason' | 'relistsListRefused'>): string {
  if (s.relists === 0) return '0';
  const reasons = s.relistsByReason.map(([r, n]) => `${r} ${n}`).join(', ');
  const refused = s.relistsListRefused > 0 ? `${s.relistsListRefused} with the LIST refused; ` : '';
  return `${s.relists} (${refused}${reasons})`;
}
