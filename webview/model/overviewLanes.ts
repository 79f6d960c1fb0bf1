/**
 * The lanes of what stays on disk: the spill overview's counted rows (src/format/spill.ts) as
 * weighted lane rows — one row stands for `w` events — in the same categories the in-memory
 * lanes use (timelineData.ts), so a renderer adds them into its bins and a zoomed-out view shows
 * the whole recording. Rows inside a span whose events were loaded (a range read) are left out:
 * the loaded events are in the lanes themselves there.
 */
import type { DenseRow } from '../../src/format/spill';
import type { RecordedEvent } from '../../src/format/events';
import { DELTA_TYPES, codeOf } from './codes';
import { PackedLane } from './packed';
import { notifyKind } from './notifyKind';

const weightedSpec = { t: Float64Array, code: Uint8Array, w: Float64Array };
const depthSpec = { t: Float64Array, keys: Float64Array, deltas: Float64Array };

export type WeightedLane = PackedLane<typeof weightedSpec>;
export type OverviewDepthLane = PackedLane<typeof depthSpec>;

export class OverviewLanes {
  readonly deltas: WeightedLane = new PackedLane(weightedSpec, 64);
  readonly identical: WeightedLane = new PackedLane(weightedSpec, 64);
  readonly tombstones: WeightedLane = new PackedLane(weightedSpec, 64);
  readonly handlers = new Map<string, WeightedLane>();
  readonly depth: OverviewDepthLane = new PackedLane(depthSpec, 64);
  /** How many events the rows stand for. */
  events = 0;

  /**
   * @param rows the overview's counted rows, in time order
   * @param skip a time span whose events are loaded (its rows are left out), if any
   * @param endT where the overview's coverage ends (the first event held in memory): the depth falls back to 0 there
   */
  constructor(rows: readonly DenseRow[], skip: [number, number] | undefined, endT: number) {
    let last = Number.NEGATIVE_INFINITY;
    const depthEnd = (t: number) => {
      if (this.depth.length > 0 && this.depth.columns.keys[this.depth.length - 1] + this.depth.columns.deltas[this.depth.length - 1] > 0) this.depth.push({ t, keys: 0, deltas: 0 });
    };
    let inSkip = false;
    for (const r of rows) {
      const t = Math.max(r.t, last);
      last = t;
      if (skip && t >= skip[0] && t <= skip[1]) {
        if (!inSkip) depthEnd(skip[0]);
        inSkip = true;
        continue;
      }
      inSkip = false;
      this.events += r.count;
      this.add(r, t);
    }
    depthEnd(Math.max(last, endT));
  }

  private add(r: DenseRow, t: number): void {
    const w = r.count;
    switch (r.type) {
      case 'fifo.enqueue':
        this.depth.push({ t, keys: r.depthKeys ?? 0, deltas: r.depthDeltas ?? 0 });
        if (r.delta !== 'Bookmark' && r.delta !== undefined) this.deltas.push({ t, code: codeOf(DELTA_TYPES, r.delta as never), w });
        if (r.tombstone) this.tombstones.push({ t, code: 0, w });
        break;
      case 'fifo.pop':
        this.depth.push({ t, keys: r.depthKeys ?? 0, deltas: r.depthDeltas ?? 0 });
        break;
      case 'distribute':
        if (r.op === 'update' && r.change === 'identical') this.identical.push({ t, code: 0, w });
        break;
      case 'notify': {
        const handler = r.handler ?? '';
        let lane = this.handlers.get(handler);
        if (!lane) this.handlers.set(handler, (lane = new PackedLane(weightedSpec, 64)));
        lane.push({ t, code: notifyKind(r as unknown as Extract<RecordedEvent, { type: 'notify' }>), w });
        if (r.tombstone) this.tombstones.push({ t, code: 1, w });
        break;
      }
    }
  }
}
