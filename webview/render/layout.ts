/**
 * Vertical geometry of the lanes. The lane ids match the navigable lanes of model/selection.ts
 * (plus 'depth', which has no events of its own), so a keyboard cursor maps to a band.
 */
import type { TimelineData } from '../model/timelineData';

export interface LaneBand {
  id: string;
  label: string;
  y: number;
  height: number;
}

const FIXED: [id: string, label: string, height: number][] = [
  ['state', 'Reflector', 18],
  ['marks', 'List / watch / relist', 44],
  ['depth', 'FIFO depth', 40],
  ['deltas', 'Delta types', 40],
  ['identical', 'Identical updates', 22],
  ['tombstones', 'Tombstones', 16],
];
const HANDLER_HEIGHT = 18;
const GAP = 4;

export function laneBands(data: TimelineData, top = 0): LaneBand[] {
  const bands: LaneBand[] = [];
  let y = top;
  const push = (id: string, label: string, height: number) => {
    bands.push({ id, label, y, height });
    y += height + GAP;
  };
  for (const [id, label, h] of FIXED) push(id, label, h);
  for (const name of data.handlers.keys()) push(`handler:${name}`, `Handler ${name}`, HANDLER_HEIGHT);
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
