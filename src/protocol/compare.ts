/**
 * The compare view (several informers on one time axis) and how it lines sessions up. The view
 * speaks the timeline protocol (timeline.ts) once per session: the host runs one stream per
 * compared session into one webview, and the webview routes snapshots, deltas and clocks by
 * session id to that session's group of lanes.
 */
import type { TraceHeader } from '../format/trace';

export interface Alignment {
  /** Where each session's time 0 lies on the shared axis (ms), in the order given. */
  offsets: number[];
  /** "wall clock": the sessions' real start times line up; "starts": each starts at 0 (virtual time, or runs far apart). */
  mode: 'wall clock' | 'starts';
}

/** Runs further apart than this are not shown on one wall-clock axis (their starts are lined up instead). */
export const MAX_WALL_SPREAD_MS = 10 * 60_000;

/**
 * How sessions line up on one axis. Event times count from each session's start; sessions that
 * ran on a real clock (live, sandbox, observed) and started within MAX_WALL_SPREAD_MS of each
 * other are placed by their start times, so what happened at the same moment is drawn at the
 * same x. Replayed scenarios run in virtual time, and traces recorded far apart share no moment:
 * their starts are lined up.
 */
export function alignSessions(headers: readonly Pick<TraceHeader, 'startedAt' | 'source'>[]): Alignment {
  const starts = headers.map((h) => Date.parse(h.startedAt));
  const wall = headers.length > 0 && headers.every((h, i) => h.source !== 'scenario' && Number.isFinite(starts[i]));
  const first = Math.min(...starts);
  if (!wall || Math.max(...starts) - first > MAX_WALL_SPREAD_MS) return { offsets: headers.map(() => 0), mode: 'starts' };
  return { offsets: starts.map((s) => s - first), mode: 'wall clock' };
}
