/**
 * The blocks of a trace's columns that the trace reader's worker sends while it decodes the JSON
 * (src/app/traceBlocks.ts), forwarded to the webviews that will show the trace as they come:
 * each packed once (src/vscode/columnsOut.ts) into a `snapshotPart` and posted to every page
 * attached, so that moving the columns and taking them in runs beside the decoding. The snapshot
 * that follows names the parts (`take`) only for a page that was attached for every one of them
 * and only when they are the whole trace; any other page gets a full snapshot as always. A page
 * drops parts that no snapshot names (a file that fails half way ends in an `empty` message, or a
 * snapshot of the text the importer read). Free of 'vscode'.
 */
import type { IpcMessage } from '../protocol/ipc';
import { SnapshotPartNotification, type SnapshotParts } from '../protocol/timeline';
import { columnsOut } from './columnsOut';
import { blockStart, type BlockMessage } from '../app/traceBlocks';
import type { ColumnBatch } from '../protocol/eventColumns';

let nextId = 1;

export class PartsRelay {
  /** This trace's parts' id (SnapshotParts.id): unique in this extension host. */
  readonly id = nextId++;
  /** The parts sent so far, for a page attached later (dropped once the trace is read). */
  private sent: IpcMessage[] = [];
  private blocks = 0;
  private rows = 0;
  private total = 0;
  private ended = false;
  private readonly pages = new Set<object>();
  private readonly posts = new Map<object, (msg: IpcMessage) => void>();

  /** A block from the trace reader: packed once and posted to every page attached. */
  block(b: BlockMessage): void {
    if (this.ended) return;
    const msg = SnapshotPartNotification.create({
      partsId: this.id,
      index: b.index,
      from: b.from,
      total: b.total,
      stringsFrom: b.stringsFrom,
      columns: columnsOut({ count: b.count, columns: b.columns as ColumnBatch['columns'], strings: b.strings, extras: b.extras }, blockStart(b)),
    });
    this.sent.push(msg);
    this.blocks++;
    this.rows = b.from + b.count;
    this.total = b.total;
    for (const post of this.posts.values()) post(msg);
  }

  /** A page (`page` names it) that will show the trace: it gets the parts sent so far and those to come. */
  attach(page: object, post: (msg: IpcMessage) => void): () => void {
    if (this.ended) return () => undefined;
    for (const msg of this.sent) post(msg);
    this.pages.add(page);
    this.posts.set(page, post);
    return () => {
      this.pages.delete(page);
      this.posts.delete(page);
    };
  }

  /** The trace is read (or failed): no more parts; a page attached from now on gets a full snapshot. */
  end(): void {
    this.ended = true;
    this.sent = [];
    this.posts.clear();
  }

  /** What the snapshot of a trace of `count` events names for `page`: the parts, when that page got every one and they are the whole trace. */
  partsFor(page: object, count: number): SnapshotParts | undefined {
    return this.pages.has(page) && this.blocks > 0 && this.rows === this.total && this.total === count ? { id: this.id, blocks: this.blocks, count } : undefined;
  }
}
