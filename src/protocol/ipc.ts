/**
 * Typed IPC between the extension host and the timeline webview (gitlens pattern). Three kinds:
 * - command: webview → host, fire and forget;
 * - request: webview → host, answered by exactly one typed completion carrying the same id;
 * - notification: host → webview.
 * Every message type has an `is()` guard that checks the method AND the params' shape, so a
 * receiver never acts on a message it does not understand (it is dropped, not thrown on).
 */

export type IpcKind = 'command' | 'request' | 'notification';

export interface IpcMessage<M extends string = string, P = unknown> {
  readonly kind: IpcKind;
  readonly method: M;
  readonly params: P;
  /** Correlates a request with its completion; absent on commands and notifications. */
  readonly id?: number;
}

/** Checks that an unknown value has the params shape of a message type. */
export type ParamsGuard<P> = (value: unknown) => value is P;

export class IpcMessageType<M extends string, P> {
  constructor(
    readonly kind: IpcKind,
    readonly method: M,
    private readonly paramsOk: ParamsGuard<P>,
  ) {}

  is(msg: unknown): msg is IpcMessage<M, P> {
    if (!isRecord(msg)) return false;
    return msg.kind === this.kind && msg.method === this.method && this.paramsOk(msg.params);
  }

  create(params: P, id?: number): IpcMessage<M, P> {
    return id === undefined ? { kind: this.kind, method: this.method, params } : { kind: this.kind, method: this.method, params, id };
  }
}

/** A request and the completion type that answers it. */
export class IpcRequestType<M extends string, P, R> extends IpcMessageType<M, P> {
  readonly completion: IpcMessageType<`${M}/completion`, R>;
  constructor(method: M, paramsOk: ParamsGuard<P>, resultOk: ParamsGuard<R>) {
    super('request', method, paramsOk);
    this.completion = new IpcMessageType('notification', `${method}/completion` as `${M}/completion`, resultOk);
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isString(v: unknown): v is string {
  return typeof v === 'string';
}

export function isBoolean(v: unknown): v is boolean {
  return typeof v === 'boolean';
}

export function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

export function isArrayOf<T>(v: unknown, item: (x: unknown) => x is T): v is T[] {
  return Array.isArray(v) && v.every(item);
}

export function isEmptyParams(v: unknown): v is Record<string, never> {
  return isRecord(v) && Object.keys(v).length === 0;
}
