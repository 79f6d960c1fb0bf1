/**
 * A large trace's columns sent in blocks while its lines are still being decoded (the trace
 * reader's worker, traceRead.ts): after every `every` rows the worker sends which rows it decoded
 * since the block before, the strings its table gained meanwhile and the events kept whole among
 * them; the last block follows once every line is read and checked. The rows are decoded into
 * columns in SharedArrayBuffers of every row, which each block names: the host reads a block's
 * rows where the worker wrote them while later rows are still being written, and the columns
 * `opened` then names are those same buffers (no block is copied, on either side). The host
 * checks the blocks follow on and name shared buffers of the trace's size (BlockAssembler), counts
 * the summary from them as they come (each row made an event only while it is counted, in order:
 * the summary summaryOfBatch makes of the whole), and forwards each one to the webview that will show the trace, so that moving and taking in the
 * columns runs beside the decoding instead of after it. A file that fails half way sends blocks
 * and then `other`: the blocks are dropped (nothing shows them as the trace).
 *
 * A block's string references are the whole table's (the table only grows; a string keeps its
 * reference), so neither side maps them.
 */
import type { RecordedEvent } from '../format/events';
import { COLUMN_NAMES, EVENT_COLUMNS, StringTable, allocateColumns, type ColumnName, type EventColumnArrays } from '../protocol/eventColumns';
import { eachRowEvent } from '../protocol/rowView';
import { SummaryModel, type TraceSummary } from '../trace/summary';
import { scanTraceLines, type ScannedLines } from '../trace/traceLines';
import { columnLines, decodeLines, redactionOf, type ColumnLines, type DecodedRows } from './traceRows';

/**
 * One block of rows: rows `from` … `from + count - 1` of `total`; its strings follow the
 * `stringsFrom` the blocks before it brought. `columns` hold those rows: as SharedArrayBuffers of
 * all `total` rows (the block's rows at `from`; the worker's blocks), or as ArrayBuffers of the
 * block's `count` rows alone.
 */
export interface BlockMessage {
  kind: 'block';
  index: number;
  from: number;
  count: number;
  total: number;
  stringsFrom: number;
  columns: Record<ColumnName, ArrayBuffer | SharedArrayBuffer>;
  strings: string[];
  extras: RecordedEvent[];
}

/** Whether a block's columns are the trace's shared columns of every row (the worker's blocks). */
const sharedBlock = (b: Pick<BlockMessage, 'columns'>): boolean => b.columns.seq instanceof SharedArrayBuffer;

/** Where a block's rows start in its columns' buffers, in rows (`from` when they hold every row). */
export const blockStart = (b: Pick<BlockMessage, 'columns' | 'from'>): number => (sharedBlock(b) ? b.from : 0);

/**
 * Column `c`'s array over `buf` from row `start`, `count` rows (all when undefined). A column's
 * arrays are typed over ArrayBuffers; a SharedArrayBuffer holds the same bytes the same way.
 */
function columnView(c: ColumnName, buf: ArrayBuffer | SharedArrayBuffer, start = 0, count?: number): EventColumnArrays[ColumnName] {
  const Ctor = EVENT_COLUMNS[c];
  return new Ctor(buf as ArrayBuffer, start * Ctor.BYTES_PER_ELEMENT, count);
}

/** Columns of `n` rows in SharedArrayBuffers. */
function sharedColumns(n: number): EventColumnArrays {
  const out = {} as Record<ColumnName, unknown>;
  for (const c of COLUMN_NAMES) out[c] = columnView(c, new SharedArrayBuffer(n * EVENT_COLUMNS[c].BYTES_PER_ELEMENT));
  return out as EventColumnArrays;
}

/**
 * readTraceColumns's answer (src/app/traceRows.ts) for the file's bytes or its lines already
 * scanned (scanTraceLines, perhaps through a FileWindow), its rows sent in blocks of `every` as
 * they are decoded (`send`), the last block once every line is read; no block when the file has
 * at most `every` lines. `blocks`: how many were sent.
 */
export function readTraceColumnsInBlocks(file: Uint8Array | ScannedLines, every: number, send: (b: BlockMessage) => void): { lines: ColumnLines; blocks: number } | undefined {
  const lines = file instanceof Uint8Array ? scanTraceLines(file) : file;
  if (!lines) return undefined;
  const total = lines.offsets.length;
  let index = 0;
  let from = 0;
  let stringsFrom = 0;
  let extrasFrom = 0;
  const block = (rows: Pick<DecodedRows, 'cols' | 'strings' | 'extras'>, to: number): void => {
    const columns = {} as Record<ColumnName, SharedArrayBuffer>;
    for (const c of COLUMN_NAMES) columns[c] = rows.cols[c].buffer as unknown as SharedArrayBuffer;
    const strings = rows.strings.strings.slice(stringsFrom);
    const extras = rows.extras.slice(extrasFrom);
    send({ kind: 'block', index: index++, from, count: to - from, total, stringsFrom, columns, strings, extras });
    from = to;
    stringsFrom += strings.length;
    extrasFrom += extras.length;
  };
  // Shared only when there will be blocks: a trace of one block goes in one piece (`opened`), its columns transferred.
  const into = total > every ? { cols: sharedColumns(total), asWritten: new Uint8Array(total) } : undefined;
  const rows = decodeLines(lines, redactionOf(lines.header), into, { every: Math.max(1, Math.floor(every)), decoded: block });
  if (!rows) return undefined;
  if (index > 0 && from < total) block(rows, total);
  return { lines: columnLines(lines, rows), blocks: index };
}

/**
 * The host's side: the blocks put together in order into columns for every row. A block out of
 * order, of another size or past the end makes it broken (one line), and `finish` says so.
 */
export class BlockAssembler {
  private cols: EventColumnArrays | undefined;
  private total = 0;
  private rows = 0;
  private next = 0;
  private readonly strings: string[] = [];
  private readonly extras: RecordedEvent[] = [];
  private broken: string | undefined;
  private readonly table = new StringTable();
  private readonly summary = new SummaryModel();

  /** Takes a block; false (and broken from then on) when it does not follow on from those before. */
  add(b: BlockMessage): boolean {
    if (this.broken !== undefined) return false;
    if (b.index !== this.next || b.from !== this.rows || b.stringsFrom !== this.strings.length || (this.cols !== undefined && b.total !== this.total) || b.from + b.count > b.total) {
      this.broken = `its block ${b.index} does not follow block ${this.next - 1}`;
      return false;
    }
    const shared = sharedBlock(b);
    if (!this.cols) {
      this.total = b.total;
      // Shared columns are the trace's own (the first block names them); others are put together here.
      this.cols = shared ? this.adopt(b) : allocateColumns(b.total);
      if (!this.cols) {
        this.broken = `its block ${b.index} has malformed shared columns`;
        return false;
      }
    }
    for (const c of COLUMN_NAMES) {
      const Ctor = EVENT_COLUMNS[c];
      const buf = b.columns[c];
      // A shared block's buffers are the first block's memory (each message brings its own SharedArrayBuffer object over it): their size is checked, the first block's are read.
      if (shared ? !(buf instanceof SharedArrayBuffer) || buf.byteLength !== this.cols[c].byteLength : !(buf instanceof ArrayBuffer) || buf.byteLength !== b.count * Ctor.BYTES_PER_ELEMENT) {
        this.broken = `its block ${b.index} has a malformed ${c} column`;
        return false;
      }
      if (!shared) (this.cols[c] as Float64Array).set(columnView(c, buf) as Float64Array, b.from);
    }
    for (const s of b.strings) {
      this.strings.push(s);
      this.table.ref(s);
    }
    for (const e of b.extras) this.extras.push(e);
    // The summary of the rows so far: the block's own arrays, its references the whole table's.
    const cols = {} as Record<ColumnName, unknown>;
    for (const c of COLUMN_NAMES) cols[c] = shared ? this.cols[c].subarray(b.from, b.from + b.count) : columnView(c, b.columns[c]);
    const block = cols as EventColumnArrays;
    eachRowEvent(block, this.table, b.count, b.extras, (e) => this.summary.add(e));
    this.rows += b.count;
    this.next++;
    return true;
  }

  /** The shared columns of every row a first block names, or undefined when they are not that. */
  private adopt(b: BlockMessage): EventColumnArrays | undefined {
    const out = {} as Record<ColumnName, unknown>;
    for (const c of COLUMN_NAMES) {
      const buf = b.columns[c];
      if (!(buf instanceof SharedArrayBuffer) || buf.byteLength !== b.total * EVENT_COLUMNS[c].BYTES_PER_ELEMENT) return undefined;
      out[c] = columnView(c, buf);
    }
    return out as EventColumnArrays;
  }

  /** Every block came (`blocks` of them, `count` rows): the columns, strings and whole events; else why not (one line). */
  finish(blocks: number, count: number): { columns: Map<string, ArrayBuffer | SharedArrayBuffer>; strings: string[]; extras: RecordedEvent[]; summary: TraceSummary } | string {
    if (this.broken !== undefined) return this.broken;
    if (!this.cols || blocks !== this.next || count !== this.total || this.rows !== this.total) return `it sent ${this.next} of ${blocks} blocks (${this.rows} of ${count} events)`;
    const columns = new Map<string, ArrayBuffer | SharedArrayBuffer>(COLUMN_NAMES.map((c) => [c, this.cols![c].buffer]));
    return { columns, strings: this.strings, extras: this.extras, summary: this.summary.snapshot() };
  }
}
