/**
 * Vertical geometry of the lanes: one band per track of the registry (tracks.ts), in its order.
 */
import type { TimelineData } from '../model/timelineData';
import { tracksOf, type Track } from '../model/tracks';

export interface LaneBand {
  id: string;
  label: string;
  y: number;
  height: number;
  track: Track;
}

const GAP = 4;
const COMPACT_GAP = 2;

export function laneBands(data: TimelineData, top = 0, compact = false): LaneBand[] {
  const bands: LaneBand[] = [];
  let y = top;
  for (const track of tracksOf(data)) {
    const height = compact ? track.compactHeight : track.height;
    bands.push({ id: track.id, label: track.label, y, height, track });
    y += height + (compact ? COMPACT_GAP : GAP);
  }
  return bands;
}

export function bandsHeight(bands: readonly LaneBand[]): number {
  if (bands.length === 0) return 0;
  const last = bands[bands.length - 1];
  return last.y + last.height;
}

export function bandAt(bands: readonly LaneBand[], y: number): LaneBand | undefined {
  return bands.find((b) => y >= b.y && y < b.y + b.height + GAP);
}
