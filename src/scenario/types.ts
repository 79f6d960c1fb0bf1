/**
 * The informer-scenario/v1 file (shared/spec/contracts.md §1) with the documented extensions of
 * docs/scenario-format.md. A Scenario value has passed validate.ts: every step is exactly one of
 * the kinds below, so the scripted server can switch on `stepKind` without re-checking shapes.
 */
import type { KubeObject } from '../engine/objects';
import type { StatusCause } from '../engine/listWatch';
import type { GateName } from '../engine/profiles';

export const SCENARIO_FORMAT = 'informer-scenario/v1';

export interface ScenarioResource {
  apiVersion: string;
  kind: string;
  /** The plural, e.g. "configmaps". Defaults to the lower-cased kind + "s". */
  resource?: string;
  /** Default true. */
  namespaced?: boolean;
}

export interface HandlerSpec {
  name: string;
  /** Absent: the informer default (informer.resyncPeriodMs). 0: never. */
  resyncPeriodMs?: number;
  /**
   * Extension: every call of this handler takes this many virtual ms (it awaits the clock; in
   * client-go it sleeps in its listener's goroutine). Absent or 0: returns at once.
   */
  delayMs?: number;
}

export interface ErrorSpec {
  code: number;
  reason: string;
  message: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** For close "decode-error" only the message (the decoder's error text) is meaningful. */
export type DecodeErrorSpec = Partial<ErrorSpec> & { message: string };

export interface EventSpec {
  type: string;
  object: KubeObject;
  /** Extension: delivery offset from the watch's open, virtual ms. */
  atMs?: number;
}

export type WatchClose = 'eof' | 'unexpected-eof' | 'reset' | 'timeout' | 'error' | 'decode-error';

export type NetworkFailure = 'connection-refused' | 'connection-reset' | 'timeout';

export type Verb = 'list' | 'watch';

export interface ListPageStep {
  on: 'list';
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  /** Extension: the apiVersion/kind of the list itself (default: the resource's apiVersion, `<kind>List`). */
  listTypeMeta?: { apiVersion: string; kind: string };
  /** Extension: the body is gzip-encoded (the REST client undoes it). */
  gzip?: boolean;
  /** Extension: the connection closes after this many body bytes (docs/scenario-format.md, "gzip and cut bodies"). */
  cutAtByte?: number;
}

export interface ErrorStep {
  on: Verb;
  error: ErrorSpec;
  /** Extension: the body is gzip-encoded (the REST client undoes it). */
  gzip?: boolean;
  /** Extension: the connection closes after this many body bytes (docs/scenario-format.md, "gzip and cut bodies"). */
  cutAtByte?: number;
}

export interface NetworkStep {
  on: Verb;
  network: NetworkFailure;
  /** Watch only: how long each attempt's connection stays open before it fails (default 0; the REST client's retries come on top). */
  durationMs?: number;
}

export interface WatchStreamStep {
  on: 'watch';
  events: EventSpec[];
  close: WatchClose;
  /** Required for close "error"; for "decode-error" only `message` is used. */
  error?: ErrorSpec | DecodeErrorSpec;
  /** Default 1500. */
  durationMs?: number;
  /** Extension: the stream is gzip-encoded, flushed per burst (the REST client undoes it). */
  gzip?: boolean;
  /** Extension: the connection closes after this many body bytes (docs/scenario-format.md, "gzip and cut bodies"). */
  cutAtByte?: number;
}

export interface AdvanceStep {
  advanceMs: number;
}

/** Extension: add an event handler after start, when the server reaches this step. */
export interface AddHandlerStep {
  addHandler: HandlerSpec;
}

export type Step = ListPageStep | ErrorStep | NetworkStep | WatchStreamStep | AdvanceStep | AddHandlerStep;

export type StepKind = 'list' | 'error' | 'network' | 'stream' | 'advance' | 'addHandler';

/** Extension: a named transform of the fixed catalogue (src/scenario/catalogue.ts), set with SetTransform before start. */
export type TransformName = 'strip-managed-fields' | 'drop-annotations' | 'count-transforms';

/** Extension: index name → index function of the catalogue: "namespace" or "label:<key>". */
export type IndexerSpecs = Record<string, string>;

export interface InformerSpec {
  resyncPeriodMs?: number;
  handlers: HandlerSpec[];
  /** Extension: the ListWatch's selectors, on every List and Watch call (logged on each request line). */
  labelSelector?: string;
  fieldSelector?: string;
  transform?: TransformName;
  /** Extension: indexers given to NewSharedIndexInformer; the log then ends with an `index` line. */
  indexers?: IndexerSpecs;
}

/**
 * Extension: something the test does to the informer at a virtual time (ms since the start),
 * once that instant has settled: add or remove a handler, add indexers, stop (end the run), or
 * restart (stop the informer and start a fresh one with the scenario's handlers).
 */
export type Action =
  | { atMs: number; addHandler: HandlerSpec }
  | { atMs: number; removeHandler: string }
  | { atMs: number; addIndexers: IndexerSpecs }
  | { atMs: number; stop: true }
  | { atMs: number; restart: true };

export interface Scenario {
  format: typeof SCENARIO_FORMAT;
  name: string;
  description?: string;
  resource: ScenarioResource;
  informer: InformerSpec;
  /** Extension: timed actions, in time order. */
  actions?: Action[];
  gates?: Partial<Record<GateName, boolean>>;
  /** Extension: the profiles this scenario is meant for (default: all). */
  profiles?: string[];
  steps: Step[];
}

/** Which kind a (validated) step is. */
export function stepKind(step: Step): StepKind {
  if ('advanceMs' in step) return 'advance';
  if ('addHandler' in step) return 'addHandler';
  if ('network' in step) return 'network';
  if ('events' in step || 'close' in step) return 'stream';
  if ('error' in step) return 'error';
  return 'list';
}

