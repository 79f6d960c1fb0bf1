/**
 * The trace shapes that cross the host/webview boundary. The event vocabulary is the engine's
 * (type-only re-export: nothing of the engine runs in the webview). The trace header and the
 * finding shape are defined here, once: the webview may import only src/protocol, and the trace
 * layer (src/trace/recorder.ts, src/trace/findings/types.ts) uses these same types.
 */
import type { TraceEvent } from '../engine/events';

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
  /** seqs of the events that show it, ascending. */
  evidence: number[];
  /** Upstream issue/PR or documentation URL. */
  link?: string;
}
