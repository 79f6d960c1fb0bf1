/**
 * Builds the overview of spilled events (src/format/spill.ts) once, as each chunk is written:
 * the sparse events kept whole, the per-object ones counted per chunk bin. It is small (a few
 * hundred rows per chunk at most, whatever the chunk's size) and lives in memory beside the
 * recorder or its mirror; the timeline draws it for the ranges whose events stay on disk.
 */
import type { RecordedEvent } from '../format/events';
import type { DenseRow, SegmentChunk, SpillOverview } from '../format/spill';

/** Bins per chunk for the counted events. */
export const OVERVIEW_BINS_PER_CHUNK = 16;

const EXACT_TYPES = new Set<string>([
  'informer.start',
  'reflector.state',
  'list.start',
  'list.done',
  'list.error',
  'watch.start',
  'watch.end',
  'relist',
  'fifo.resync',
  'fault.injected',
  'consistency.check',
  'synced',
  'handler.added',
  'trace.dropped',
]);

/** The spilled event is kept whole in the overview (it makes a sparse row of the timeline). */
export function keptExact(e: RecordedEvent): boolean {
  return EXACT_TYPES.has(e.type) || (e.type === 'watch.event' && e.eventType === 'BOOKMARK');
}

/** The fields a lane reads, as a row without count and time; undefined for events no lane shows. */
function denseFields(e: RecordedEvent): Omit<DenseRow, 't' | 'count'> | undefined {
  switch (e.type) {
    case 'fifo.enqueue':
      return { type: e.type, delta: e.delta, tombstone: e.tombstone !== undefined, depthKeys: e.depthKeys, depthDeltas: e.depthDeltas };
    case 'fifo.pop':
      return { type: e.type, depthKeys: e.depthKeys, depthDeltas: e.depthDeltas };
    case 'distribute':
      return e.op === 'update' && e.change === 'identical' ? { type: e.type, op: e.op, change: e.change } : undefined;
    case 'notify':
      return { type: e.type, handler: e.handler, op: e.op, change: e.change, isSync: e.isSync === true, tombstone: e.tombstone === true };
    default:
      return undefined;
  }
}

function groupKey(f: Omit<DenseRow, 't' | 'count'>): string {
  return `${f.type}|${f.delta ?? ''}|${f.tombstone ? 1 : 0}|${f.op ?? ''}|${f.change ?? ''}|${f.isSync ? 1 : 0}|${f.handler ?? ''}`;
}

export class SpillOverviewBuilder {
  private readonly chunks: SegmentChunk[] = [];
  private readonly exact: RecordedEvent[] = [];
  private readonly dense: DenseRow[] = [];

  /** Takes one written chunk and its events (in seq order). */
  add(chunk: SegmentChunk, events: readonly RecordedEvent[]): void {
    this.chunks.push(chunk);
    const span = chunk.t1 - chunk.t0;
    const groups = new Map<string, DenseRow>();
    let bin = -1;
    for (const e of events) {
      if (keptExact(e)) {
        this.exact.push(e);
        continue;
      }
      const f = denseFields(e);
      if (!f) continue;
      const b = span <= 0 ? 0 : Math.min(OVERVIEW_BINS_PER_CHUNK - 1, Math.floor(((e.t - chunk.t0) / span) * OVERVIEW_BINS_PER_CHUNK));
      if (b !== bin) {
        // Rows of one bin stay together, in the order their groups first appear.
        this.flush(groups);
        bin = b;
      }
      const key = groupKey(f);
      const row = groups.get(key);
      if (!row) groups.set(key, { ...f, t: e.t, count: 1 });
      else {
        row.count++;
        if (f.depthKeys !== undefined) row.depthKeys = Math.max(row.depthKeys ?? 0, f.depthKeys);
        if (f.depthDeltas !== undefined) row.depthDeltas = Math.max(row.depthDeltas ?? 0, f.depthDeltas);
      }
    }
    this.flush(groups);
  }

  /** One bin's rows, by time (each lane's rows must not go back in time). */
  private flush(groups: Map<string, DenseRow>): void {
    for (const row of [...groups.values()].sort((a, b) => a.t - b.t)) this.dense.push(row);
    groups.clear();
  }

  get chunkCount(): number {
    return this.chunks.length;
  }

  /** The overview (the builder's own arrays, copied: later chunks do not change what was handed out). */
  overview(): SpillOverview {
    return { chunks: [...this.chunks], exact: [...this.exact], dense: [...this.dense] };
  }
}
