/**
 * A large trace file's lines decoded into columns on two threads (the trace reader's worker and a
 * helper worker it started, traceJobs.ts `rowsHelperInWorker`): the file's bytes are shared
 * (a SharedArrayBuffer), the helper decodes the second part of the lines into rows and a string
 * table of its own, this thread the first part, and the two are joined into exactly what
 * readTraceColumns makes on one thread — the same columns, the same string table in the same
 * order (every string where it was first seen), the same whole events, the same marks.
 *
 * Joining: the helper's rows are copied behind this thread's, each string ref in them (key,
 * name, a resource version's string) mapped to the joined table, where the strings the first
 * part did not hold are added in the order the helper first saw them. The helper sends no event
 * objects: its lines kept whole are read again here (lineEvent), so they are the very objects a
 * read on one thread makes.
 */
import type { RecordedEvent } from '../format/events';
import { COLUMN_NAMES, EVENT_COLUMNS, EXTRA, allocateColumns, type ColumnName } from '../protocol/eventColumns';
import { lineEvent, memoryWindow, scanTraceLines } from '../trace/traceLines';
import { columnLines, decodeLines, redactionOf, type ColumnLines, type DecodedRows, type Redaction } from './traceRows';

/** What the helper decodes: its lines (offsets and ends in the shared bytes), rows 0 … n - 1 of its own. */
export interface RowsJob {
  bytes: Uint8Array;
  ascii: boolean;
  offsets: Float64Array;
  ends: Float64Array;
  redaction: Redaction;
}

/** The helper's rows: its columns (ArrayBuffers of its lines' count), its string table, and which lines were decoded and as written. */
export interface RowsResult {
  columns: Record<ColumnName, ArrayBuffer>;
  strings: string[];
  decoded: number;
  asWritten: Uint8Array;
}

/**
 * Decodes a job's lines: `declined` when one is not an event importTrace accepts (or the seqs do
 * not increase), undefined when the helper failed (its part is then decoded on this thread).
 */
export type RowsHelper = (job: RowsJob) => Promise<RowsResult | 'declined' | undefined>;

/** The helper's side (its thread, or this one in tests and when the helper failed). */
export function decodeRowsJob(job: RowsJob): RowsResult | 'declined' {
  const rows = decodeLines({ ...job, window: memoryWindow(job.bytes) }, job.redaction);
  if (!rows) return 'declined';
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const c of COLUMN_NAMES) columns[c] = rows.cols[c].buffer as ArrayBuffer;
  return { columns, strings: rows.strings.strings, decoded: rows.decoded, asWritten: rows.asWritten };
}

/** The share of the lines this thread decodes; the helper decodes the rest. */
export const FIRST_SHARE = 0.5;

/** A file's lines split at `mid`: the helper's job for the lines from mid on, and this thread's columns for all of them. */
interface Split {
  lines: NonNullable<ReturnType<typeof scanTraceLines>>;
  redaction: Redaction;
  mid: number;
  job: RowsJob;
}

/** The file's lines split for a helper at `firstShare`, or the whole answer when they are not (fewer than `minLines`, or no helper). */
function split(bytes: Uint8Array, minLines: number, firstShare: number, helped: boolean): Split | ColumnLines | undefined {
  const lines = scanTraceLines(bytes);
  if (!lines) return undefined;
  const n = lines.offsets.length;
  const redaction = redactionOf(lines.header);
  const mid = Math.min(n, Math.max(0, Math.round(n * firstShare)));
  if (!helped || n < minLines || mid === n) {
    const rows = decodeLines(lines, redaction);
    return rows && columnLines(lines, rows);
  }
  return { lines, redaction, mid, job: { bytes, ascii: lines.ascii, offsets: lines.offsets.slice(mid), ends: lines.ends.slice(mid), redaction } };
}

/** This thread's part: the lines before mid as the first rows of columns for every line. */
function decodeFirst(s: Split): DecodedRows | undefined {
  const n = s.lines.offsets.length;
  return decodeLines({ ...s.lines, offsets: s.lines.offsets.subarray(0, s.mid), ends: s.lines.ends.subarray(0, s.mid) }, s.redaction, { cols: allocateColumns(n), asWritten: new Uint8Array(n) });
}

/** The two parts joined (see the module's comment); undefined when either declined or the seqs do not increase across the join. */
function join(s: Split, first: DecodedRows | undefined, rest: RowsResult | 'declined'): ColumnLines | undefined {
  if (!first || rest === 'declined') return undefined;
  const { lines, mid } = s;
  const n = lines.offsets.length;
  const { cols, asWritten } = first;
  const restSeq = new Float64Array(rest.columns.seq);
  if (restSeq.length !== n - mid || (mid > 0 && !(restSeq[0] > cols.seq[mid - 1]))) return undefined;
  for (const c of COLUMN_NAMES) (cols[c] as Float64Array).set(new EVENT_COLUMNS[c](rest.columns[c]) as Float64Array, mid);
  asWritten.set(rest.asWritten, mid);
  const table = first.strings;
  const remap = new Uint32Array(rest.strings.length + 1);
  for (let j = 0; j < rest.strings.length; j++) remap[j + 1] = table.ref(rest.strings[j]);
  const extras: RecordedEvent[] = first.extras;
  const { key, name, rv, oldRv, type } = cols;
  for (let i = mid; i < n; i++) {
    if (type[i] === EXTRA) {
      const e = lineEvent(lines, i);
      if (!e) return undefined;
      extras.push(e);
      continue;
    }
    if (key[i] > 0) key[i] = remap[key[i]];
    if (name[i] > 0) name[i] = remap[name[i]];
    if (rv[i] < 0) rv[i] = -remap[-rv[i]];
    if (oldRv[i] < 0) oldRv[i] = -remap[-oldRv[i]];
  }
  return columnLines(lines, { cols, strings: table, extras, decoded: first.decoded + rest.decoded, asWritten });
}

/**
 * readTraceColumns's answer, the lines from `firstShare` on decoded by `helper` (at least
 * `minLines` lines; fewer, or no helper: all on this thread). `bytes` should lie in a
 * SharedArrayBuffer, so that the helper reads them without a copy. Never throws; a helper that
 * fails leaves its part to this thread.
 */
export async function readTraceColumnsInParts(bytes: Uint8Array, helper: RowsHelper | undefined, minLines: number, firstShare = FIRST_SHARE): Promise<ColumnLines | undefined> {
  const s = split(bytes, minLines, firstShare, helper !== undefined);
  if (!s || !('job' in s)) return s;
  const second = helper!(s.job).catch(() => undefined);
  const first = decodeFirst(s);
  return join(s, first, (await second) ?? decodeRowsJob(s.job));
}

/** readTraceColumnsInParts with the helper's part decoded on this thread (tests: the same split and join). */
export function readTraceColumnsInPartsHere(bytes: Uint8Array, firstShare = FIRST_SHARE): ColumnLines | undefined {
  const s = split(bytes, 0, firstShare, true);
  if (!s || !('job' in s)) return s;
  return join(s, decodeFirst(s), decodeRowsJob(s.job));
}
