/**
 * A scripted watch stream in virtual time (docs/scenario-format.md): events are handed out in
 * order, each no earlier than its `atMs` offset from the open (no offset: at the open); the
 * stream ends `durationMs` after the open, never before the last event. For close "error" and
 * "decode-error" the end is one ERROR event carrying the Status, after which the channel is closed.
 */
import type { Clock, TimerHandle } from '../engine/clock';
import type { Status, StreamEnd, Watcher, WatchEvent } from '../engine/listWatch';
import type { KubeObject } from '../engine/objects';
import type { WatchClose } from '../scenario/types';

export interface ScriptedStream {
  events: { type: string; object: KubeObject; atMs?: number }[];
  close: WatchClose;
  /** The Status of the final ERROR event (close "error" / "decode-error"). */
  finalError?: Status;
  durationMs: number;
  url: string;
}

export class ScriptedWatcher implements Watcher {
  private readonly openedAt: number;
  /** Offsets from the open at which each event becomes available (non-decreasing). */
  private readonly due: number[];
  private readonly closeAt: number;
  private index = 0;
  private finalErrorSent = false;
  private stopped = false;
  private ended?: StreamEnd;
  private wake?: () => void;

  constructor(
    private readonly clock: Clock,
    private readonly stream: ScriptedStream,
  ) {
    this.openedAt = clock.now();
    let last = 0;
    this.due = stream.events.map((e) => (last = Math.max(last, e.atMs ?? 0)));
    this.closeAt = Math.max(stream.durationMs, last);
  }

  get end(): StreamEnd | undefined {
    return this.ended;
  }

  async next(): Promise<WatchEvent | null> {
    if (this.index < this.due.length) {
      if (!(await this.waitUntil(this.due[this.index]))) return this.closed({ kind: 'stopped' });
      const e = this.stream.events[this.index++];
      return { type: e.type, object: structuredClone(e.object) };
    }
    if (!(await this.waitUntil(this.closeAt))) return this.closed({ kind: 'stopped' });
    if (this.stream.finalError && !this.finalErrorSent) {
      this.finalErrorSent = true;
      return { type: 'ERROR', object: structuredClone(this.stream.finalError) as KubeObject };
    }
    return this.closed(this.streamEnd());
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
  }

  private streamEnd(): StreamEnd {
    switch (this.stream.close) {
      case 'unexpected-eof':
        return { kind: 'unexpected-eof' };
      case 'reset':
        return { kind: 'reset', message: 'read tcp 127.0.0.1:50000->127.0.0.1:6443: read: connection reset by peer' };
      case 'timeout':
        return { kind: 'timeout', message: `Get "${this.stream.url}": context deadline exceeded (Client.Timeout or context cancellation while reading body)` };
      default:
        return { kind: 'eof' };
    }
  }

  private closed(end: StreamEnd): null {
    this.ended ??= end;
    return null;
  }

  /** Resolves true once `offset` ms after the open is reached, false if stopped first. */
  private waitUntil(offset: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const wait = this.openedAt + offset - this.clock.now();
    if (wait <= 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let timer: TimerHandle | undefined = undefined;
      this.wake = () => {
        timer?.cancel();
        this.wake = undefined;
        resolve(false);
      };
      timer = this.clock.setTimer(wait, () => {
        this.wake = undefined;
        resolve(!this.stopped);
      });
    });
  }
}

/** What Watch returns when the REST client's retries of a probable-EOF/timeout open run out (row 8). */
export function closedWatcher(message: string): Watcher {
  const end: StreamEnd = { kind: 'open-retries-exhausted', message };
  return {
    next: () => Promise.resolve(null),
    stop: () => undefined,
    end,
  };
}
