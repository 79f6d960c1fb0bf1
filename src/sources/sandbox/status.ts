/**
 * metav1.Status failures with the texts the real API server uses, so the engine's error
 * classification (spec §1.10) sees exactly what it would see from kube-apiserver.
 */
import type { Status, StatusCause } from '../../engine/listWatch';

/** An HTTP failure: the status code, its Status body and any extra headers. */
export interface Failure {
  status: Status;
  headers?: Record<string, string>;
}

export function failure(code: number, reason: string, message: string, details?: Status['details']): Failure {
  return {
    status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) } as Status,
  };
}

export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/** A list at an exact revision that etcd has compacted away. */
export const EXPIRED_LIST_MESSAGE = 'The resourceVersion for the provided list is too old.';

export function expired(message: string): Failure {
  return failure(410, 'Expired', message);
}

/** The watch cache's answer to a watch from a revision that fell out of its window (row 9). */
export function tooOldResourceVersion(rv: number, windowStartRV: number): Failure {
  return expired(`too old resource version: ${rv} (${windowStartRV})`);
}

/** A revision the server has not reached: 504 with Retry-After 1, which client-go retries itself. */
export function tooLargeResourceVersion(rv: number, current: number): Failure {
  const cause: StatusCause = { type: 'ResourceVersionTooLarge', message: 'Too large resource version' };
  const f = failure(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [cause],
    retryAfterSeconds: 1,
  });
  return { ...f, headers: { 'Retry-After': '1' } };
}

export function badRequest(message: string): Failure {
  return failure(400, 'BadRequest', message);
}

/** 422 Invalid for a list/watch option the server's validation rejects. */
export function invalidOption(field: string, message: string, kind: string): Failure {
  return failure(422, 'Invalid', `${kind} is invalid: ${field}: ${message}`, {
    kind,
    causes: [{ reason: 'FieldValueForbidden', message, field }],
  });
}

export function notFound(message = 'the server could not find the requested resource'): Failure {
  return failure(404, 'NotFound', message);
}

export function methodNotAllowed(): Failure {
  const f = failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  return { ...f, headers: { Allow: 'GET' } };
}
