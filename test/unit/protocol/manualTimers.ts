import type { StreamTimers } from '../../../src/vscode/timelineStream';

/** TimelineStream's timers driven by hand: advance(ms) runs what is due. */
export class ManualTimers implements StreamTimers {
  t = 0;
  private queue: { at: number; fn: () => void; live: boolean }[] = [];
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): () => void {
    const entry = { at: this.t + ms, fn, live: true };
    this.queue.push(entry);
    return () => (entry.live = false);
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.queue.filter((q) => q.live && q.at <= this.t);
    this.queue = this.queue.filter((q) => !due.includes(q));
    for (const q of due) q.fn();
  }
  /** Timers still pending (not fired, not cancelled). */
  pending(): number {
    return this.queue.filter((q) => q.live).length;
  }
}
