/**
 * The track registry: the one definition of the timeline's lanes. Each track has an id (the
 * keyboard cursor and the lane bands use it), the label shown beside the lane and read by
 * assistive technology, a height, the rows it stands for (the events a cursor steps through;
 * none for the FIFO depth area) and how it is drawn (`draw`, a key of render/canvasLanes.ts's
 * drawing table, which the compiler checks is complete). Layout (render/layout.ts), keyboard
 * navigation (navigableLanes) and drawing all read this list.
 */
import type { NavLane } from './selection';
import type { PointLane, TimelineData } from './timelineData';

/** The rows of a lane that stand for events: times and seqs in time order. */
export interface TrackRows {
  length: number;
  columns: { t: Float64Array; seq: Float64Array };
}

/** How a track is drawn: one entry per kind in render/canvasLanes.ts's TRACK_DRAWERS. */
export type TrackDraw = 'state' | 'marks' | 'depth' | 'deltas' | 'identical' | 'tombstones' | 'handler' | 'stale';

export interface Track {
  id: string;
  label: string;
  height: number;
  /** The height in compact mode (a short view such as the bottom panel). */
  compactHeight: number;
  draw: TrackDraw;
  /** The events the lane's rows stand for; undefined for a lane without events of its own. */
  rows(data: TimelineData): TrackRows | undefined;
}

export const HANDLER_PREFIX = 'handler:';
const HANDLER_HEIGHT = 18;

/** The fixed tracks, top to bottom. */
export const FIXED_TRACKS: readonly Track[] = [
  { id: 'state', label: 'Reflector state', height: 18, compactHeight: 12, draw: 'state', rows: (d) => d.states },
  { id: 'marks', label: 'Lists, watches, relists, faults', height: 44, compactHeight: 36, draw: 'marks', rows: (d) => d.marks },
  { id: 'depth', label: 'FIFO depth', height: 40, compactHeight: 24, draw: 'depth', rows: () => undefined },
  { id: 'deltas', label: 'Delta types', height: 40, compactHeight: 22, draw: 'deltas', rows: (d) => d.deltas },
  { id: 'identical', label: 'Identical updates', height: 22, compactHeight: 16, draw: 'identical', rows: (d) => d.identical },
  { id: 'tombstones', label: 'Tombstones', height: 16, compactHeight: 12, draw: 'tombstones', rows: (d) => d.tombstones },
];

/** A handler's lane: its notifications, coloured by kind. */
export function handlerTrack(name: string): Track {
  return { id: `${HANDLER_PREFIX}${name}`, label: `Handler ${name}`, height: HANDLER_HEIGHT, compactHeight: 12, draw: 'handler', rows: (d) => d.handlers.get(name) };
}

/** The handler lane a handler track stands for. */
export function handlerLane(data: TimelineData, track: Track): PointLane | undefined {
  return track.id.startsWith(HANDLER_PREFIX) ? data.handlers.get(track.id.slice(HANDLER_PREFIX.length)) : undefined;
}

export const STALE_PREFIX = 'stale:';

/** An object's row while the cache held it after the server dropped it (its stale-cache window). */
export function staleTrack(key: string): Track {
  return { id: `${STALE_PREFIX}${key}`, label: `Stale ${key}`, height: 16, compactHeight: 12, draw: 'stale', rows: () => undefined };
}

/** Every track of this data: the fixed ones, one per object with a stale-cache window, then one per handler in the order handlers first appear. */
export function tracksOf(data: TimelineData): Track[] {
  const staleKeys = [...new Set(data.staleWindows.map((w) => w.key))];
  return [...FIXED_TRACKS, ...staleKeys.map(staleTrack), ...[...data.handlers.keys()].map(handlerTrack)];
}

/** The tracks whose rows stand for events, as the keyboard cursor's lanes (same ids and labels). */
export function navigableLanes(data: TimelineData): NavLane[] {
  const lanes: NavLane[] = [];
  for (const track of tracksOf(data)) {
    const rows = track.rows(data);
    if (rows) lanes.push({ id: track.id, label: track.label, times: rows.columns.t, seqs: rows.columns.seq, length: rows.length });
  }
  return lanes;
}
