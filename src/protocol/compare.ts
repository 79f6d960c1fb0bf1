/**
 * The compare view (several informers on one time axis) and how it lines sessions up. The view
 * speaks the timeline protocol (timeline.ts) once per session: the host runs one stream per
 * compared session into one webview, and the webview routes snapshots, deltas and clocks by
 * session id to that session's group of lanes. The view keeps what it compares (ComparedSession,
 * via setState) so that a window reload restores it.
 */
import type { TraceHeader } from '../format/trace';
import { IpcMessageType, isArrayOf, isRecord, isString } from './ipc';

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

/**
 * One compared session as a reload can find it again: by its trace's identity (source, profile,
 * resource, start time), not by its id (ids are per extension host), and by its trace file when
 * it was opened from one (the view opens it again).
 */
export interface ComparedSession {
  title: string;
  profile: string;
  source: TraceHeader['source'];
  /** group/version/resource. */
  resource: string;
  startedAt: string;
  /** The trace file (a URI) an imported session was read from. */
  file?: string;
}

/** What the compare view keeps with setState: the only thing a reload needs to restore it. */
export interface CompareViewState {
  compared: ComparedSession[];
}

/**
 * Host → compare view: what the view compares, in order, and which of them are gone (indices
 * into `compared`): their informers ran in the extension host before a window reload.
 */
export interface CompareListParams extends CompareViewState {
  gone: number[];
}

export function comparedSession(header: Pick<TraceHeader, 'profile' | 'source' | 'resource' | 'startedAt'>, title: string, file?: string): ComparedSession {
  const r = header.resource;
  return { title, profile: header.profile, source: header.source, resource: `${r.group}/${r.version}/${r.resource}`, startedAt: header.startedAt, ...(file !== undefined ? { file } : {}) };
}

/** Whether a session's trace is the compared one (the same recording: same source, profile, resource and start). */
export function isSameSession(c: ComparedSession, header: Pick<TraceHeader, 'profile' | 'source' | 'resource' | 'startedAt'>): boolean {
  const s = comparedSession(header, c.title);
  return s.source === c.source && s.profile === c.profile && s.resource === c.resource && s.startedAt === c.startedAt;
}

/** More than a compare view ever holds: a state with more is not ours. */
const MAX_RESTORED = 16;

const SOURCES: readonly string[] = ['cluster', 'sandbox', 'scenario', 'import'] satisfies TraceHeader['source'][];

function isComparedSession(v: unknown): v is ComparedSession {
  return (
    isRecord(v) &&
    isString(v.title) &&
    isString(v.profile) &&
    isString(v.source) &&
    SOURCES.includes(v.source) &&
    isString(v.resource) &&
    isString(v.startedAt) &&
    (v.file === undefined || isString(v.file))
  );
}

export function isCompareViewState(v: unknown): v is CompareViewState {
  return isRecord(v) && isArrayOf(v.compared, isComparedSession) && v.compared.length <= MAX_RESTORED;
}

function isCompareListParams(v: unknown): v is CompareListParams {
  if (!isRecord(v) || !isCompareViewState(v)) return false;
  const n = v.compared.length;
  return isArrayOf(v.gone, (i): i is number => Number.isInteger(i) && (i as number) >= 0 && (i as number) < n);
}

export const CompareListNotification = new IpcMessageType('notification', 'compare/list', isCompareListParams);
