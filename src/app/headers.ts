/**
 * Trace headers, built in one place for every kind of session. The gates recorded are the
 * effective profile's: the ones the engine runs with, never the ones asked for.
 */
import type { Profile } from '../engine/profiles';
import type { TraceHeader } from '../format/trace';
import { TOOL_NAME, TOOL_VERSION } from '../format/tool';
import type { Scenario } from '../scenario/types';
import { DEFAULT_TRACE_CAP, TRACE_FORMAT } from '../trace/recorder';

export type NewTraceHeader = Omit<TraceHeader, 'dropped'>;

export interface HeaderParts {
  /** The effective profile (gates resolved). */
  profile: Profile;
  resource: TraceHeader['resource'];
  source: TraceHeader['source'];
  context?: string;
  /** "" or absent = all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  cap?: number;
  /** Wall time of t=0; default now. */
  startedAt?: Date;
}

export function traceHeader(p: HeaderParts): NewTraceHeader {
  return {
    format: TRACE_FORMAT,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    profile: p.profile.name,
    gates: { ...p.profile.gates },
    resource: p.resource,
    ...(p.namespace ? { namespace: p.namespace } : {}),
    ...(p.labelSelector ? { labelSelector: p.labelSelector } : {}),
    ...(p.fieldSelector ? { fieldSelector: p.fieldSelector } : {}),
    ...(p.context !== undefined ? { context: p.context } : {}),
    source: p.source,
    startedAt: (p.startedAt ?? new Date()).toISOString(),
    cap: p.cap ?? DEFAULT_TRACE_CAP,
    redacted: true,
  };
}

/** A scenario's resource as a trace header names it (plural defaults to the lower-case kind + "s"). */
export function scenarioResource(scenario: Scenario): TraceHeader['resource'] {
  const r = scenario.resource;
  const slash = r.apiVersion.indexOf('/');
  return {
    group: slash < 0 ? '' : r.apiVersion.slice(0, slash),
    version: slash < 0 ? r.apiVersion : r.apiVersion.slice(slash + 1),
    resource: r.resource ?? `${r.kind.toLowerCase()}s`,
    kind: r.kind,
    namespaced: r.namespaced ?? true,
  };
}
