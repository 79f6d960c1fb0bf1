/**
 * Column batches (eventColumns.ts) as chunks of a longer run of events: what the engine worker
 * sends the extension host per batch, what the host keeps of a worker's window, and what the
 * host forwards to a timeline webview without decoding a row. Each chunk has its own string
 * table; its seqs increase, and every chunk of a run starts after the one before ends.
 */
import { COLUMN_NAMES, EVENT_COLUMNS, EXTRA, ROW_TYPES, StringTable, allocateColumns, type ColumnBatch, type ColumnName } from './eventColumns';
import type { RecordedEvent } from '../format/events';

/** The chunk's ArrayBuffers (a postMessage transfer list). */
export function batchBuffers(b: ColumnBatch): ArrayBuffer[] {
  return COLUMN_NAMES.map((name) => b.columns[name]);
}

export function seqColumn(b: ColumnBatch): Float64Array {
  return new Float64Array(b.columns.seq, 0, b.count);
}

/** The seq of the chunk's last row (-Infinity when it is empty). */
export function lastSeqOf(b: ColumnBatch): number {
  return b.count > 0 ? seqColumn(b)[b.count - 1] : Number.NEGATIVE_INFINITY;
}

/** The seq of the chunk's first row (+Infinity when it is empty). */
export function firstSeqOf(b: ColumnBatch): number {
  return b.count > 0 ? seqColumn(b)[0] : Number.POSITIVE_INFINITY;
}

/** Index of the first row whose seq is greater than `seq` (count when none). */
export function rowAfter(b: ColumnBatch, seq: number): number {
  const s = seqColumn(b);
  let lo = 0;
  let hi = b.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s[mid] <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The chunk's rows from `from` on (a copy; the string table is shared, it may hold strings no row uses). */
export function sliceBatch(b: ColumnBatch, from: number): ColumnBatch {
  if (from <= 0) return b;
  const start = Math.min(from, b.count);
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) {
    const size = EVENT_COLUMNS[name].BYTES_PER_ELEMENT;
    columns[name] = b.columns[name].slice(start * size, b.count * size);
  }
  const types = new Uint8Array(b.columns.type, 0, start);
  let skipped = 0;
  for (let i = 0; i < start; i++) if (types[i] === EXTRA) skipped++;
  return { count: b.count - start, columns, strings: b.strings, extras: b.extras.slice(skipped) };
}

/** The rows of `chunks` with seq greater than `seq`, as chunks (the first one sliced when it straddles). */
export function chunksAfter(chunks: readonly ColumnBatch[], seq: number): ColumnBatch[] {
  let i = chunks.length;
  while (i > 0 && lastSeqOf(chunks[i - 1]) > seq) i--;
  const out = chunks.slice(i);
  if (out.length > 0) out[0] = sliceBatch(out[0], rowAfter(out[0], seq));
  return out.filter((c) => c.count > 0);
}

/** One chunk holding the rows of several, in order, with one string table. */
export function concatBatches(chunks: readonly ColumnBatch[]): ColumnBatch {
  const n = chunks.reduce((sum, c) => sum + c.count, 0);
  const cols = allocateColumns(n);
  const strings = new StringTable();
  const extras: RecordedEvent[] = [];
  let at = 0;
  for (const c of chunks) {
    for (const name of COLUMN_NAMES) (cols[name] as Float64Array).set(new EVENT_COLUMNS[name](c.columns[name], 0, c.count) as unknown as Float64Array, at);
    const map = c.strings.map((s) => strings.ref(s));
    const ref = (r: number) => (r > 0 ? (map[r - 1] ?? 0) : 0);
    for (let i = at; i < at + c.count; i++) {
      cols.key[i] = ref(cols.key[i]);
      cols.name[i] = ref(cols.name[i]);
      if (cols.rv[i] < 0) cols.rv[i] = -ref(-cols.rv[i]);
      if (cols.oldRv[i] < 0) cols.oldRv[i] = -ref(-cols.oldRv[i]);
    }
    for (const e of c.extras) extras.push(e);
    at += c.count;
  }
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) columns[name] = cols[name].buffer as ArrayBuffer;
  return { count: n, columns, strings: strings.strings, extras };
}

/**
 * What a host-side listener hears of a chunk without decoding it: every event kept whole (the
 * rarer types: lists, watch ends, logs, faults, …) and, at the chunk's start and after each of
 * those, the first row of each row type (rebuilt by `rowAt`). Listeners that look for a kind of
 * event in order (a refusal, the server answering again) see the same first occurrences as in
 * the full batch.
 */
export function heardEvents(b: ColumnBatch, rowAt: (i: number) => RecordedEvent): RecordedEvent[] {
  const types = new Uint8Array(b.columns.type, 0, b.count);
  const out: RecordedEvent[] = [];
  let seen = 0; // bit per row type, cleared after each whole event
  let extra = 0;
  for (let i = 0; i < b.count; i++) {
    const code = types[i];
    if (code === EXTRA) {
      out.push(b.extras[extra++]);
      seen = 0;
    } else if (code < ROW_TYPES.length && !(seen & (1 << code))) {
      seen |= 1 << code;
      out.push(rowAt(i));
    }
  }
  return out;
}
