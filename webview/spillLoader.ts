/**
 * Loads spilled events when the view zooms into a range that is on disk: after the window stays
 * put for a moment, if it reaches into the spilled span and that part is not loaded yet and holds
 * at most LOAD_LIMIT events (by the overview's chunk index), it asks the host (SpillRangeRequest)
 * and hands the answer to the model, which draws it as events in memory. One request at a time;
 * an answer to an older request, or for another session, is ignored. Zoomed out further, the
 * overview alone is drawn. The timeline has one loader; the compare view one per compared session
 * (request ids are unique across the loaders of a webview, so each answer finds its loader).
 */
import { SpillRangeRequest, type SpillRangeResult } from '../src/protocol/timeline';
import type { IpcMessage } from '../src/protocol/ipc';
import type { TimelineData } from './model/timelineData';

/** The most spilled events a window may hold for them to be loaded (above it the overview is drawn). */
export const LOAD_LIMIT = 100_000;
/** How long the window must stay put before a range is asked for. */
export const SETTLE_MS = 200;
/** Request ids of range reads start here (the app's other requests count from 1). */
const FIRST_ID = 1_000_000_000;
/** The next range read's id, shared by every loader of this webview. */
let nextRequestId = FIRST_ID;

export class SpillLoader {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: { id: number; sessionId: string } | undefined;
  private wanted: [number, number] | undefined;

  constructor(
    private readonly post: (msg: IpcMessage) => void,
    private readonly data: TimelineData,
    private readonly sessionId: () => string | undefined,
    private readonly onLoaded: (message?: string) => void,
  ) {}

  /** The view shows [t0, t1]: load its spilled part once the window settles. */
  windowChanged(t0: number, t1: number): void {
    if (!this.data.spilledSpan) return;
    if (this.wanted && this.wanted[0] === t0 && this.wanted[1] === t1) return;
    this.wanted = [t0, t1];
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.request(t0, t1);
    }, SETTLE_MS);
  }

  /** Forgets what was asked (a new snapshot, another session). */
  reset(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight = undefined;
    this.wanted = undefined;
  }

  /** The part of [t0, t1] that is spilled and not loaded, or undefined when there is nothing to load. */
  needed(t0: number, t1: number): [number, number] | undefined {
    const span = this.data.spilledSpan;
    if (!span) return undefined;
    const a = Math.max(t0, span[0]);
    const b = Math.min(t1, span[1]);
    if (a > b) return undefined;
    const loaded = this.data.loadedRange;
    if (loaded && loaded.t0 <= a && loaded.t1 >= b) return undefined;
    let events = 0;
    for (const c of this.data.spillOverview?.chunks ?? []) if (c.t1 >= a && c.t0 <= b) events += c.count;
    return events > 0 && events <= LOAD_LIMIT ? [a, b] : undefined;
  }

  private request(t0: number, t1: number): void {
    const sessionId = this.sessionId();
    const range = this.needed(t0, t1);
    if (!sessionId || !range || this.inFlight) return;
    const id = nextRequestId++;
    this.inFlight = { id, sessionId };
    this.post(SpillRangeRequest.create({ sessionId, t0: range[0], t1: range[1] }, id));
  }

  /** The host's answer; true when it was this loader's (its request in flight), false otherwise (left for another loader). */
  onResult(id: number, r: SpillRangeResult): boolean {
    const asked = this.inFlight;
    if (id < FIRST_ID || !asked || asked.id !== id) return false;
    this.inFlight = undefined;
    if (asked.sessionId !== this.sessionId()) return true;
    if (!r.columns) {
      this.onLoaded(r.message ?? 'The spilled events could not be read.');
      return true;
    }
    const ok = this.data.loadSpilled({ batch: r.columns, t0: r.t0, t1: r.t1, complete: r.complete });
    this.onLoaded(ok ? undefined : 'This view could not read the spilled events the extension sent (malformed columns).');
    // The window may have moved on while the read ran.
    if (this.wanted) this.request(this.wanted[0], this.wanted[1]);
    return true;
  }
}
