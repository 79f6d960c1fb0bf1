/**
 * The scripted API server: a ListerWatcher that answers each List/Watch call of the reflector
 * with the next step of a scenario, exactly as docs/scenario-format.md says ("One step per
 * reflector-level call"). A step is what the server answers to every HTTP attempt of that call;
 * the call returns what client-go's REST client hands the reflector once its own retries of those
 * attempts are spent (src/engine/restRetries.ts, with their virtual time): StatusError /
 * TransportError values, or an already-closed empty watcher when watch-open retries run out.
 *
 * Invariant: calls are answered strictly in step order; once the steps run out (or a call's verb
 * does not match the next step) the run is over and every later call stays pending until the
 * caller's signal aborts.
 */
import { abortError, type Clock } from '../engine/clock';
import {
  StatusError,
  TransportError,
  transportErrorText,
  type ListOptions,
  type ListerWatcher,
  type ObjectList,
  type Watcher,
  type WatchOptions,
} from '../engine/listWatch';
import { watchDecodeErrorStatus } from '../engine/statusErrors';
import type { Profile } from '../engine/profiles';
import { ARTIFICIAL_RETRY_AFTER_500, restRetries, type AttemptEnd } from '../engine/restRetries';
import { requestLine, type DivergenceLine, type RequestLine } from '../scenario/notificationLog';
import { ScriptedWatcher, closedWatcher } from './scriptedWatcher';
import { statusOf, withResourceType } from './statusObjects';
import { stepKind, type ErrorSpec, type HandlerSpec, type ListPageStep, type NetworkStep, type Scenario, type Step, type Verb, type WatchStreamStep } from '../scenario/types';

/** A scripted watch stream's default lifetime: long enough not to be a "very short watch". */
export const DEFAULT_WATCH_DURATION_MS = 1_500;

export interface ScriptedServerHooks {
  /** Every call, before anything else happens for it. */
  onRequest(line: RequestLine): void;
  /** An addHandler step; resolves once the informer was idle and the handler is added. */
  addHandler(spec: HandlerSpec): Promise<void>;
  /** The run is over: no step left, or (with `divergence`) the call's verb did not match. Called once. */
  onEnd(divergence?: DivergenceLine): void;
}

/** The socket error a timed-out watch body read returns (the oracle's in-memory connection says the same). */
const STREAM_TIMEOUT_TEXT = 'read tcp 127.0.0.1:51234->127.0.0.1:6443: read: connection timed out';

export class ScriptedServer implements ListerWatcher {
  readonly url: string;
  private next = 0;
  private over = false;

  /**
   * `restClient`: which REST client the answers stand for (Profile.restRetriesWatchOpen); by
   * default the modern one, which retries a failing watch open before handing over an empty watcher.
   */
  constructor(
    private readonly scenario: Scenario,
    private readonly clock: Clock,
    private readonly hooks: ScriptedServerHooks,
    private readonly restClient: Pick<Profile, 'restRetriesWatchOpen'> = { restRetriesWatchOpen: true },
  ) {
    this.url = resourceUrl(scenario);
  }

  /** Whether the run is over (steps exhausted or diverged). */
  get ended(): boolean {
    return this.over;
  }

  /** A `stop` action: the run ends now, whatever steps are left; pending and later calls stay unanswered. */
  endNow(): void {
    if (!this.over) this.finish();
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList> {
    const step = await this.nextStep('list', options, signal);
    switch (stepKind(step)) {
      case 'network': {
        const net = step as NetworkStep;
        const r = await this.afterRetries('list', { kind: 'network', network: net.network }, net.durationMs, signal);
        if (r.outcome === 'internal-error') throw new StatusError(ARTIFICIAL_RETRY_AFTER_500);
        throw this.transportError(net.network);
      }
      case 'error':
        throw await this.statusError('list', (step as { error: ErrorSpec }).error, signal);
      default:
        return listBody(step as ListPageStep, this.scenario.resource);
    }
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<Watcher> {
    const step = await this.nextStep('watch', options, signal);
    switch (stepKind(step)) {
      case 'network': {
        const net = step as NetworkStep;
        const r = await this.afterRetries('watch', { kind: 'network', network: net.network }, net.durationMs, signal);
        if (r.outcome === 'empty-watcher') {
          return closedWatcher(transportErrorText(net.network === 'timeout' ? 'timeout' : 'connection-reset', this.url));
        }
        throw this.transportError(net.network);
      }
      case 'error':
        throw await this.statusError('watch', (step as { error: ErrorSpec }).error, signal);
      default:
        return this.openStream(step as WatchStreamStep, signal);
    }
  }

  /**
   * Every HTTP attempt of a call ends the same way (the step is the server's state during the
   * call); the REST client's retries of it take their time (src/engine/restRetries.ts). A network
   * step's `durationMs` is how long each attempt's connection stays open before it fails.
   */
  private async afterRetries(verb: Verb, end: AttemptEnd, attemptMs: number | undefined, signal: AbortSignal) {
    const r = restRetries(this.restClient, verb, end);
    const each = end.kind === 'network' && end.network !== 'connection-refused' ? (attemptMs ?? 0) : 0;
    await this.clock.sleep((r.retries + 1) * each + r.retries * r.waitMs, signal);
    return r;
  }

  private async statusError(verb: Verb, e: ErrorSpec, signal: AbortSignal): Promise<StatusError> {
    await this.afterRetries(verb, { kind: 'status', code: e.code, retryAfterSeconds: e.retryAfterSeconds }, 0, signal);
    return new StatusError(statusOf(e));
  }

  private openStream(step: WatchStreamStep, signal: AbortSignal): Watcher {
    const r = this.scenario.resource;
    const events = step.events.map((e) => ({
      type: e.type,
      // An ERROR event's object is a Status and is delivered as is.
      object: e.type === 'ERROR' ? structuredClone(e.object) : withResourceType(e.object, r),
      atMs: e.atMs,
    }));
    let finalError;
    if (step.close === 'error') finalError = statusOf(step.error as Parameters<typeof statusOf>[0]);
    if (step.close === 'decode-error') finalError = watchDecodeErrorStatus(step.error?.message ?? '');
    // client-go 1.15's StreamWatcher.receive has no IsTimeout case: a socket timeout is not
    // probable-EOF, so it reports the read error as an ERROR event (apimachinery watch/streamwatcher.go).
    if (step.close === 'timeout' && !this.restClient.restRetriesWatchOpen) finalError = watchDecodeErrorStatus(STREAM_TIMEOUT_TEXT);
    const w = new ScriptedWatcher(this.clock, {
      events,
      close: step.close,
      finalError,
      durationMs: step.durationMs ?? DEFAULT_WATCH_DURATION_MS,
      url: this.url,
    });
    signal.addEventListener('abort', () => w.stop(), { once: true });
    return w;
  }

  /**
   * Logs the call, runs the leading advanceMs/addHandler steps and returns the step that answers
   * it. When the run is over it never resolves (it rejects once `signal` aborts). The HTTP
   * responder (scriptedHttp.ts) calls it for the first HTTP request of each call.
   */
  async nextStep(verb: Verb, options: ListOptions | WatchOptions, signal: AbortSignal): Promise<Step> {
    if (signal.aborted) throw abortError();
    // The selectors are the ListWatch's (client-go's tweakListOptions sets them on every call).
    const { labelSelector, fieldSelector } = this.scenario.informer;
    this.hooks.onRequest({ ...requestLine(verb, options), ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) });
    // A call is a round trip: the reflector blocks on it, so whatever else the informer has to do
    // at this instant (a woken Pop) runs before the answer arrives, as with the oracle's server goroutine.
    await this.clock.sleep(0, signal);
    const steps = this.scenario.steps;
    while (!this.over && this.next < steps.length) {
      const step = steps[this.next];
      if ('advanceMs' in step) {
        this.next++;
        await this.clock.sleep(step.advanceMs, signal);
      } else if ('addHandler' in step) {
        this.next++;
        await this.hooks.addHandler(step.addHandler);
        if (signal.aborted) throw abortError();
      } else break;
    }
    if (this.over) return pendingUntilAbort(signal);
    const step = steps[this.next];
    if (step === undefined) {
      this.finish();
      return pendingUntilAbort(signal);
    }
    const expected = (step as { on: Verb }).on;
    if (expected !== verb) {
      this.finish({ kind: 'divergence', expected, got: { verb, rv: options.resourceVersion ?? '' } });
      return pendingUntilAbort(signal);
    }
    this.next++;
    return step;
  }

  private finish(divergence?: DivergenceLine): void {
    this.over = true;
    this.hooks.onEnd(divergence);
  }

  private transportError(network: NetworkStep['network']): TransportError {
    return new TransportError(network, transportErrorText(network, this.url));
  }
}

function pendingUntilAbort(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(abortError());
    else signal.addEventListener('abort', () => reject(abortError()), { once: true });
  });
}

/** A list step's page as the server sends it (items with the resource's apiVersion/kind). */
export function listBody(page: ListPageStep, r: Scenario['resource']): ObjectList {
  return {
    apiVersion: page.listTypeMeta?.apiVersion ?? r.apiVersion,
    kind: page.listTypeMeta?.kind ?? `${r.kind}List`,
    metadata: { resourceVersion: page.resourceVersion, ...(page.continue ? { continue: page.continue } : {}) },
    items: page.items.map((o) => withResourceType(o, r)),
  };
}

/** The URL client-go would request, used only in error texts. */
export function resourceUrl(s: Scenario): string {
  const r = s.resource;
  const plural = r.resource ?? `${r.kind.toLowerCase()}s`;
  const group = r.apiVersion.includes('/') ? `apis/${r.apiVersion}` : `api/${r.apiVersion}`;
  return `https://127.0.0.1:6443/${group}/${plural}`;
}
