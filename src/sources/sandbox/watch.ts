/**
 * WATCH semantics of the API server's watch cache, served as newline-delimited JSON events on
 * a chunked 200 response:
 * - resourceVersion "" or "0" (no sendInitialEvents): synthetic ADDED events for the current
 *   state, then live events;
 * - N: the window's changes after N, then live events; N below the window → one ERROR event
 *   410 Expired `too old resource version: N (start)` and the stream ends (spec §1.10 row 9);
 * - sendInitialEvents=true (watch-list): synthetic ADDED events for the current state, a
 *   BOOKMARK annotated `k8s.io/initial-events-end: "true"`, then live events;
 * - allowWatchBookmarks: a BOOKMARK every bookmark interval and one shortly before timeoutSeconds;
 * - timeoutSeconds: the server ends the stream cleanly then (row 1).
 * A MODIFIED change that moves an object into or out of the selection is sent as ADDED or
 * DELETED, like the cacher does.
 */
import type { ServerResponse } from 'node:http';
import type { Clock, TimerHandle } from '../../engine/clock';
import type { KubeObject } from '../../engine/objects';
import type { WatchEvent } from '../../engine/listWatch';
import { apiVersionOf, resourceId, type SandboxResource } from './resources';
import type { Change, SandboxStorage } from './storage';
import { type Selection, isFailure, parseRV, parseSelection, selects } from './list';
import { type Failure, invalidOption, badRequest, tooLargeResourceVersion, tooOldResourceVersion } from './status';

export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export interface WatchServing {
  clock: Clock;
  /** Periodic bookmarks (the real cacher: about every minute). */
  bookmarkIntervalMs: number;
  /** How long before the timeout the last bookmark goes out (the real cacher: about 2 s). */
  bookmarkBeforeTimeoutMs: number;
  /** Used when the client gives no timeoutSeconds. */
  defaultTimeoutMs: number;
  /** The server's WatchList feature gate; off → sendInitialEvents gets 422. */
  watchListEnabled: boolean;
}

interface WatchPlan {
  sel: Selection;
  /** The revision the live part starts after; backlog holds what comes before. */
  initial: 'state' | 'state+bookmark' | 'replay';
  fromRV: number;
  bookmarks: boolean;
  timeoutMs: number;
}

function flag(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v === 'true' || v === '1';
}

/** Validates a watch request the way the server's option validation does. */
export function planWatch(storage: SandboxStorage, r: SandboxResource, query: URLSearchParams, namespace: string | undefined, serving: WatchServing): WatchPlan | Failure {
  const sel = parseSelection(query, namespace);
  if (isFailure(sel)) return sel;
  const rvText = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const initialEvents = query.has('sendInitialEvents') ? flag(query, 'sendInitialEvents') : undefined;
  const bookmarks = flag(query, 'allowWatchBookmarks');
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '0');
  const timeoutMs = timeoutSeconds > 0 ? timeoutSeconds * 1000 : serving.defaultTimeoutMs;
  if (initialEvents !== undefined) {
    if (!serving.watchListEnabled) {
      return invalidOption('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', r.kind);
    }
    if (match !== 'NotOlderThan') return invalidOption('resourceVersionMatch', "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan", r.kind);
    if (initialEvents && !bookmarks) return invalidOption('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true', r.kind);
  } else if (match !== '') {
    return invalidOption('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided', r.kind);
  }
  const rv = rvText === '' ? undefined : parseRV(rvText);
  if (rvText !== '' && rv === undefined) return badRequest(`invalid resource version: ${rvText}`);
  if (initialEvents) {
    if (rv !== undefined && rv > storage.currentRV) return tooLargeResourceVersion(rv, storage.currentRV);
    return { sel, initial: 'state+bookmark', fromRV: storage.currentRV, bookmarks, timeoutMs };
  }
  if (rv === undefined || rv === 0) return { sel, initial: 'state', fromRV: storage.currentRV, bookmarks, timeoutMs };
  return { sel, initial: 'replay', fromRV: rv, bookmarks, timeoutMs };
}

/** One open watch stream. It ends on timeout, on stop(), or when the client goes away. */
export class WatchStream {
  private readonly timers: TimerHandle[] = [];
  private unsubscribe: () => void = () => undefined;
  private closed = false;
  private readonly id: string;

  constructor(
    private readonly res: ServerResponse,
    private readonly storage: SandboxStorage,
    private readonly r: SandboxResource,
    private readonly plan: WatchPlan,
    private readonly serving: WatchServing,
    private readonly onClose: (stream: WatchStream) => void,
  ) {
    this.id = resourceId(r);
  }

  /** Sends headers, the backlog and then follows live changes. */
  start(): void {
    this.res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    this.res.flushHeaders();
    this.res.on('close', () => this.finish());
    const { plan, storage } = this;
    if (plan.initial === 'replay' && plan.fromRV < storage.windowStartRV) {
      const status = tooOldResourceVersion(plan.fromRV, storage.windowStartRV).status;
      this.send({ type: 'ERROR', object: status as KubeObject });
      this.stop();
      return;
    }
    // Subscribing and sending the backlog happen in one synchronous turn, so no change falls between.
    this.unsubscribe = storage.subscribe((c) => this.onChange(c));
    if (plan.initial === 'replay') {
      for (const c of storage.changesSince(plan.fromRV)) this.onChange(c);
    } else {
      for (const obj of storage.list(this.id)) if (selects(plan.sel, obj)) this.send({ type: 'ADDED', object: obj });
      if (plan.initial === 'state+bookmark') this.sendBookmark(true);
    }
    const { clock } = this.serving;
    this.timers.push(clock.setTimer(plan.timeoutMs, () => this.stop()));
    if (plan.bookmarks) {
      const beforeEnd = plan.timeoutMs - this.serving.bookmarkBeforeTimeoutMs;
      if (beforeEnd > 0) this.timers.push(clock.setTimer(beforeEnd, () => this.sendBookmark(false)));
      this.scheduleBookmark();
    }
  }

  /** Ends the stream cleanly (the terminating chunk is sent): a normal close for the client. */
  stop(): void {
    if (this.closed) return;
    this.finish();
    this.res.end();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    for (const t of this.timers) t.cancel();
    this.onClose(this);
  }

  private scheduleBookmark(): void {
    this.timers.push(
      this.serving.clock.setTimer(this.serving.bookmarkIntervalMs, () => {
        this.sendBookmark(false);
        this.scheduleBookmark();
      }),
    );
  }

  private onChange(c: Change): void {
    if (c.resource !== this.id) return;
    const now = selects(this.plan.sel, c.object);
    const before = c.previous !== undefined && selects(this.plan.sel, c.previous);
    if (c.type === 'ADDED' && now) this.send({ type: 'ADDED', object: c.object });
    else if (c.type === 'DELETED' && before) this.send({ type: 'DELETED', object: c.object });
    else if (c.type === 'MODIFIED') {
      if (now && before) this.send({ type: 'MODIFIED', object: c.object });
      else if (now) this.send({ type: 'ADDED', object: c.object });
      else if (before) this.send({ type: 'DELETED', object: c.object });
    }
  }

  private sendBookmark(initialEventsEnd: boolean): void {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(this.storage.currentRV) };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.send({ type: 'BOOKMARK', object: { kind: this.r.kind, apiVersion: apiVersionOf(this.r), metadata } });
  }

  private send(event: WatchEvent): void {
    if (this.closed) return;
    this.res.write(`${JSON.stringify(event)}\n`);
  }
}
