/**
 * The metav1.Status values and typed objects the scripted server hands out. Status causes carry
 * the cause type in both `type` and `reason`: Kubernetes JSON names the field `reason`, the
 * engine's classification reads `type` (src/engine/errors.ts), and scenarios may use either.
 */
import type { Status, StatusCause } from '../engine/listWatch';
import type { KubeObject } from '../engine/objects';
import type { ErrorSpec, ScenarioResource } from '../scenario/types';

export function statusOf(e: ErrorSpec): Status {
  const details: NonNullable<Status['details']> = {};
  if (e.causes?.length) details.causes = e.causes.map(normaliseCause);
  if (e.retryAfterSeconds) details.retryAfterSeconds = e.retryAfterSeconds;
  return {
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    message: e.message ?? '',
    reason: e.reason ?? '',
    code: e.code,
    ...(Object.keys(details).length ? { details } : {}),
  };
}

function normaliseCause(c: StatusCause): StatusCause {
  const type = c.type ?? c.reason;
  return { ...c, ...(type !== undefined ? { type, reason: type } : {}) };
}

/** A copy of a scenario object with apiVersion/kind defaulted to the scenario resource's. */
export function withResourceType(o: KubeObject, r: ScenarioResource): KubeObject {
  return { apiVersion: r.apiVersion, kind: r.kind, ...structuredClone(o) };
}
