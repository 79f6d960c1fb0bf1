/**
 * The one window of a compare view's shared time axis, which every group shows. Pure: it holds
 * what the user chose, not a pixel transform, and `window(domain)` says what that is on the axis
 * as it is now, so two groups drawn for the same domain show the same window whatever their
 * widths and whenever each of them draws.
 *
 * Following live, the window is a share of the axis whose right edge is the axis's end (now, for
 * live sessions): it slides with now and grows with the axis as the single timeline's does.
 * Not following, it is a fixed range of shared time; an axis that shrank below it (a live session
 * ended) is shown whole.
 */

/** Shares of the axis this close to 1 are the whole axis. */
const WHOLE = 0.9999;

export type Range = readonly [number, number];

export class SharedWindow {
  private following = true;
  /** Following: the share of the axis shown (0 < share ≤ 1). */
  private share = 1;
  /** Not following: the window in shared time. */
  private fixed: [number, number] = [0, 1];

  get follow(): boolean {
    return this.following;
  }

  /** The window [t0, t1] in shared time on an axis spanning `domain`. */
  window(domain: Range): [number, number] {
    const [d0, d1] = domain;
    const span = d1 - d0;
    if (this.following) return this.share >= WHOLE ? [d0, d1] : [d1 - span * this.share, d1];
    const [a, b] = this.fixed;
    return b - a >= span ? [d0, d1] : [a, b];
  }

  /**
   * The user moved the window to [t0, t1] on an axis that spanned `drawn` when they did (the
   * domain the moved view was drawn for). Following, the window keeps following with the new share
   * of the axis; otherwise it stays at [t0, t1].
   */
  moveTo(t0: number, t1: number, drawn: Range): void {
    const a = Math.min(t0, t1);
    const b = Math.max(t0, t1);
    if (!(b > a) || !Number.isFinite(a) || !Number.isFinite(b)) return;
    if (this.following) this.share = shareOf(b - a, drawn);
    else this.fixed = [a, b];
  }

  /** Starts or stops following live, keeping the window shown on `domain` (the axis now). Says whether it changed. */
  setFollow(follow: boolean, domain: Range): boolean {
    if (this.following === follow) return false;
    const [a, b] = this.window(domain);
    this.following = follow;
    if (follow) this.share = shareOf(b - a, domain);
    else this.fixed = [a, b];
    return true;
  }

  /** The whole axis, following live. */
  reset(): void {
    this.following = true;
    this.share = 1;
  }
}

function shareOf(width: number, domain: Range): number {
  const span = domain[1] - domain[0];
  return span > 0 ? Math.min(1, width / span) : 1;
}

/**
 * A compare view's shared time axis: several views (one per informer) show one window of shared
 * time, held once by the compare view (a SharedWindow), never copied into a view: each view draws
 * what the axis says for the domain of the moment. Shared time is a view's own time (ms from its
 * session's start) plus its `offset`.
 */
export interface SharedAxis {
  /** The whole shared axis [t0, t1], in shared time. */
  domain(): [number, number];
  /** Where this view's time 0 lies on the shared axis. */
  readonly offset: number;
  /** The window every view shows, in shared time, on the axis as it is now. */
  window(): [number, number];
  /** Whether the views follow live. */
  following(): boolean;
  /** The user moved this view's window (wheel, drag, brush, keys) to [t0, t1] on an axis that spanned `drawn` then: every view shows it. */
  moveTo(t0: number, t1: number, drawn: [number, number]): void;
  /** Follow live on or off, for every view. */
  setFollow(follow: boolean): void;
  /** The whole axis, following live, for every view. */
  reset(): void;
}
