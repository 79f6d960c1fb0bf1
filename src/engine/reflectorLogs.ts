/**
 * The log lines client-go's reflector prints, as 'log' trace events: structured (msg + key/values,
 * v0.33+) or printf-style (≤v0.32) per profile.logStyle. Texts are quoted exactly from the spec
 * (§1.3, §1.4, §1.6–§1.8, §2); only the values differ.
 */
import type { EventSink, LogLevel } from '../format/events';
import type { Clock } from './clock';
import type { Profile } from './profiles';

/** Go's time.Duration %s rendering for whole and fractional seconds/minutes/hours ("0s", "1.5s", "2m0s"). */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${trim(ms)}ms`;
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = `${trim(s)}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

function trim(n: number): string {
  return String(Number(n.toFixed(9)));
}

function text(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class ReflectorLog {
  private readonly printf: boolean;

  constructor(
    profile: Pick<Profile, 'logStyle'>,
    private readonly name: string,
    private readonly type: string,
    private readonly clock: Clock,
    private readonly sink: EventSink,
  ) {
    this.printf = profile.logStyle === 'printf';
  }

  private line(level: LogLevel, structured: string, kv: Record<string, string>, printf: string): void {
    if (this.printf) this.sink.emit({ t: this.clock.now(), type: 'log', level, msg: printf });
    else this.sink.emit({ t: this.clock.now(), type: 'log', level, msg: structured, kv });
  }

  private ids(extra: Record<string, string> = {}): Record<string, string> {
    return { reflector: this.name, type: this.type, ...extra };
  }

  /** v0.36 text up to its first sentence break (the rest points at Go documentation). */
  watchListUnsupported(): void {
    const msg = "The client used to build this informer/reflector doesn't support WatchList semantics. The feature will be disabled.";
    this.line('v2', msg, { feature: 'WatchListClient' }, msg);
  }

  starting(resyncPeriodMs: number): void {
    const d = goDuration(resyncPeriodMs);
    this.line('v3', 'Starting reflector', { type: this.type, resyncPeriod: d, reflector: this.name }, `Starting reflector ${this.type} (${d}) from ${this.name}`);
  }

  stopping(resyncPeriodMs: number): void {
    const d = goDuration(resyncPeriodMs);
    this.line('v3', 'Stopping reflector', { type: this.type, resyncPeriod: d, reflector: this.name }, `Stopping reflector ${this.type} (${d}) from ${this.name}`);
  }

  listingAndWatching(): void {
    this.line('v3', 'Listing and watching', { type: this.type, reflector: this.name }, `Listing and watching ${this.type} from ${this.name}`);
  }

  cachesPopulated(): void {
    this.line('v2', 'Caches populated', { type: this.type, reflector: this.name }, `Caches populated for ${this.type} from ${this.name}`);
  }

  /** ≤v0.32 only: the extra warning next to the returned list error (removed in v0.33). */
  listFailed(err: unknown): void {
    if (this.printf) this.sink.emit({ t: this.clock.now(), type: 'log', level: 'warning', msg: `${this.name}: failed to list ${this.type}: ${text(err)}` });
  }

  watchClose(totalItems: number): void {
    this.line('v4', 'Watch close', this.ids({ totalItems: String(totalItems) }), `${this.name}: Watch close - ${this.type} total ${totalItems} items received`);
  }

  watchFailedBackingOff(err: unknown): void {
    this.line('v4', 'Watch failed - backing off', this.ids({ err: text(err) }), `${this.name}: watch of ${this.type} returned ${text(err)} - backing off`);
  }

  /** watch() ended with Expired/Gone; also the default handler's first branch. */
  watchClosed(err: unknown): void {
    this.line('v4', 'Watch closed', this.ids({ err: text(err) }), `${this.name}: watch of ${this.type} closed with: ${text(err)}`);
  }

  watch429(): void {
    this.line('v2', 'Watch returned 429 - backing off', this.ids(), `${this.name}: watch of ${this.type} returned 429 - backing off`);
  }

  retryingInternalError(err: unknown): void {
    this.line('v2', 'Retrying watch after internal error', this.ids({ err: text(err) }), `${this.name}: retrying watch of ${this.type} internal error: ${text(err)}`);
  }

  watchEndedWithError(err: unknown): void {
    if (this.printf) this.sink.emit({ t: this.clock.now(), type: 'log', level: 'warning', msg: `${this.name}: watch of ${this.type} ended with: ${text(err)}` });
    else this.sink.emit({ t: this.clock.now(), type: 'log', level: 'info', msg: 'Warning: watch ended with error', kv: this.ids({ err: text(err) }) });
  }

  /** DefaultWatchErrorHandler's last branch: utilruntime.HandleError at error level. */
  failedToWatch(err: unknown): void {
    this.line('error', 'Failed to watch', { err: text(err), reflector: this.name, type: this.type }, `${this.name}: Failed to watch ${this.type}: ${text(err)}`);
  }

  watchListBackingOff(err: unknown): void {
    this.line('v2', 'watch-list failed - backing off', this.ids({ err: text(err) }), `${this.name}: watch-list of ${this.type} returned ${text(err)} - backing off`);
  }

  /** v0.32's dynamic/typed client List: its own watch-list failed, the plain LIST follows (a klog warning). */
  listWatchListFallback(resource: string, err: unknown): void {
    this.sink.emit({
      t: this.clock.now(),
      type: 'log',
      level: 'warning',
      msg: `The watchlist request for ${resource} ended with an error, falling back to the standard LIST semantics, err = ${text(err)}`,
    });
  }

  watchListFallback(err: unknown): void {
    if (this.printf) {
      this.sink.emit({
        t: this.clock.now(),
        type: 'log',
        level: 'warning',
        msg: `The watchlist request ended with an error, falling back to the standard LIST/WATCH semantics because making progress is better than deadlocking, err = ${text(err)}`,
      });
      return;
    }
    this.sink.emit({
      t: this.clock.now(),
      type: 'log',
      level: 'v4',
      msg: "Data couldn't be fetched in watchlist mode. Falling back to regular list. This is expected if watchlist is not supported or disabled in kube-apiserver.",
      kv: { err: text(err) },
    });
  }

  exitingOnInitialEventsEnd(totalItems: number, durationMs: number): void {
    this.line(
      'v4',
      'Exiting watch because received the bookmark that marks the end of initial events stream',
      { reflector: this.name, totalItems: String(totalItems), duration: goDuration(durationMs) },
      `exiting ${this.name} Watch because received the bookmark that marks the end of initial events stream, total ${totalItems} items received in ${goDuration(durationMs)}`,
    );
  }

  /** The watch-list 10 s ticker while the initial-events-end bookmark is outstanding. */
  bookmarkExpired(errText: string): void {
    if (this.printf) this.sink.emit({ t: this.clock.now(), type: 'log', level: 'warning', msg: errText });
    else this.sink.emit({ t: this.clock.now(), type: 'log', level: 'info', msg: 'Warning: event bookmark expired', kv: { err: errText } });
  }

  forcingResync(): void {
    this.line('v4', 'Forcing resync', { reflector: this.name }, `${this.name}: forcing resync`);
  }

  storeError(op: 'add' | 'update' | 'delete', object: string, err: unknown): void {
    const prep = op === 'delete' ? 'from' : 'to';
    this.line('error', `Unable to ${op} watch event object ${prep} store`, { err: text(err), reflector: this.name, object }, `${this.name}: unable to ${op} watch event object (${object}) ${prep} store: ${text(err)}`);
  }

  bookmarkStoreError(err: unknown): void {
    this.line('error', 'Unable to send bookmark event to store', { err: text(err), reflector: this.name }, `${this.name}: unable to send bookmark event to store: ${text(err)}`);
  }

  unknownEvent(eventType: string): void {
    this.line('error', 'Unknown watch event', { reflector: this.name, event: eventType }, `${this.name}: unable to understand watch event ${eventType}`);
  }

  unexpectedGVK(expected: string, actual: string): void {
    this.line('error', 'Unexpected watch event object gvk', { reflector: this.name, expectedGVK: expected, actualGVK: actual }, `${this.name}: expected gvk ${expected}, but watch event object had gvk ${actual}`);
  }

  unsupportedGVK(actual: string): void {
    this.line('error', 'Unsupported watch event object gvk', { reflector: this.name, actualGVK: actual }, `${this.name}: unsupported watch event object gvk ${actual}`);
  }

  unableToUnderstand(eventType: string): void {
    this.line('error', 'Unable to understand watch event', { reflector: this.name, event: eventType }, `${this.name}: unable to understand watch event ${eventType}`);
  }

  /** What apimachinery's StreamWatcher logs when a stream ends below the ListerWatcher boundary (§1.9). */
  streamEnd(kind: 'unexpected-eof' | 'reset' | 'timeout', message: string): void {
    if (kind === 'unexpected-eof') {
      this.line('v1', 'Unexpected EOF during watch stream event decoding', { err: message }, `Unexpected EOF during watch stream event decoding: ${message}`);
    } else {
      this.line('v5', 'Unable to decode an event from the watch stream', { err: message }, `Unable to decode an event from the watch stream: ${message}`);
    }
  }
}
