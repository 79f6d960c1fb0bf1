/**
 * The trace file's header and the finding shape (informer-trace/v1), types only. The event
 * vocabulary is in ./events.ts.
 */

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
  /** seqs of the events that show it, ascending. */
  evidence: number[];
  /** Upstream issue/PR or documentation URL. */
  link?: string;
}
