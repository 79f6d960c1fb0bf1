/**
 * A snapshot's events sent ahead of it in parts (the trace editor sends a trace's columns block by
 * block while its JSON is decoded: SnapshotPartParams): each part is appended to the data and its
 * lanes as it comes, while the page still says "Loading…", so that the snapshot that names them
 * has only the header, the panels and the first frame left to do. Parts must come in order, from
 * the first, each following on from the rows held; one that does not breaks the set (the data is
 * cleared, later parts of it are ignored) and the snapshot naming it is refused (`holds`: the
 * page asks for a full snapshot instead). Nothing is drawn or marked drawn from parts alone.
 */
import type { SnapshotPartParams, SnapshotParts } from '../src/protocol/timeline';
import type { TimelineData } from './model/timelineData';

export class SnapshotPartsIn {
  private id: number | undefined;
  private next = 0;
  private broken = false;

  constructor(private readonly data: TimelineData) {}

  /** A part: appended when it follows on (the first of a set starts afresh). The share of the rows held, or undefined when it was not taken. */
  add(p: SnapshotPartParams): number | undefined {
    if (p.index === 0) {
      this.data.reset();
      this.id = p.partsId;
      this.next = 0;
      this.broken = false;
    }
    if (p.partsId !== this.id || this.broken) return undefined;
    if (p.index !== this.next || !this.data.appendPart(p)) {
      this.broken = true;
      this.data.reset();
      return undefined;
    }
    this.next++;
    return p.total > 0 ? this.data.eventCount / p.total : 1;
  }

  /** The data holds exactly the parts a snapshot names: they are its events. */
  holds(parts: SnapshotParts): boolean {
    return !this.broken && parts.id === this.id && parts.blocks === this.next && parts.count === this.data.eventCount;
  }

  /** Forgets the set (its rows stay in the data until the data is reset). */
  reset(): void {
    this.id = undefined;
    this.next = 0;
    this.broken = false;
  }
}
