/**
 * The trace shapes that cross the host/webview boundary. The event vocabulary is the engine's
 * (type-only re-export: nothing of the engine runs in the webview). The header and findings
 * mirror the trace contract (src/trace/recorder.ts, src/trace/findings.ts) structurally, so the
 * protocol does not depend on the recorder's implementation and a recorder header is assignable.
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
  startedAt: string;
  cap: number;
  dropped: number;
  redacted: boolean;
}

export interface WireFinding {
  id: string;
  severity: 'info' | 'warning' | 'error';
  title: string;
  detail: string;
  advice: string;
  evidence: number[];
  link?: string;
}
