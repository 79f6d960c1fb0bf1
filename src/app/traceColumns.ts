/**
 * A trace file opened from its binary companion (src/trace/traceCompanion.ts; docs/trace-format.md),
 * or read by the trace reader's worker (traceRead.ts) into the same content: the events as the
 * timeline's columns (src/protocol/eventColumns.ts), the summary and findings, and where each
 * event's line starts in the JSON. The host parses nothing of the JSON to open it; an event's diff
 * is read from its one line when a details pane asks, and the whole JSON only when something
 * needs every event as an object (`load`).
 *
 * `companionContent` is what an export writes beside the JSON.
 */
import { copyFile, open } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FieldChange, RecordedEvent } from '../format/events';
import type { Finding, FindingsState, TraceHeader } from '../format/trace';
import { COLUMN_NAMES, EXTRA, HAS_DIFF, ROW_TYPES, StringTable, batchArrays, decodeBatch, diffSourceIndex, encodeBatch, type ColumnBatch, type ColumnName, type EventColumnArrays } from '../protocol/eventColumns';
import { eachRowEvent } from '../protocol/rowView';
import { computeFindings } from '../trace/findings';
import { SummaryModel, type TraceSummary } from '../trace/summary';
import { cachedCompanionPath, copyCompanion, fingerprintOf, readCompanion, removeCompanion, sameFingerprint, writeCompanion, type CompanionContent, type Fingerprint } from '../trace/traceCompanion';
import { writeTrace, writeTraceFile, type EventSource } from '../trace/traceWrite';
import { readTrace } from './traces';
import { BadInputError, firstLine } from './errors';

interface Meta {
  count: number;
  header: TraceHeader;
  summary: TraceSummary;
  findings: Finding[];
  strings: string[];
  extras: RecordedEvent[];
}

/** The companion's section of line offsets (traceRead.ts names it in an `opened` after blocks). */
export const OFFSETS = 'lineOffsets';

/** What a session already computed from exactly these events (an imported trace): reused when the file holds them unchanged. */
export interface Computed {
  events: readonly RecordedEvent[];
  batch: ColumnBatch;
  summary: TraceSummary;
  findings: Finding[];
}

/**
 * Whether two events agree in every field but `diff`: the columns, the summary and the findings
 * never read a diff, and redaction always gives an event with a diff a copy of it.
 */
function sameButDiff(a: RecordedEvent, b: RecordedEvent): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    n++;
    if (k !== 'diff' && x[k] !== y[k]) return false;
  }
  for (const _k in y) n--;
  return n === 0;
}

/** Whether the file holds the events that were computed from, as far as the columns, summary and findings see (redaction changed none of it). */
function sameEvents(a: readonly RecordedEvent[], b: readonly RecordedEvent[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameButDiff(a[i], b[i])) return false;
  return true;
}

/** What the companion of a trace with these events holds; `offsets` from writeTrace({ lineOffsets: true }). */
export function companionContent(header: TraceHeader, events: readonly RecordedEvent[], offsets: Float64Array, findings?: Finding[], computed?: Computed): CompanionContent {
  if (computed && sameEvents(computed.events, events)) return contentOf(header, computed.batch, computed.summary, computed.findings, offsets);
  const batch = encodeBatch(events);
  const summary = new SummaryModel();
  for (const e of events) summary.add(e);
  let found = findings;
  if (!found) {
    try {
      found = computeFindings(header, events);
    } catch {
      found = [];
    }
  }
  return contentOf(header, batch, summary.snapshot(), found, offsets);
}

/**
 * What the companion of a trace holds, from its events as columns (readTraceColumns): the summary
 * and findings from the rows decoded again (they read no diff, which the rows leave out).
 */
export function companionContentOfBatch(header: TraceHeader, batch: ColumnBatch, offsets: Float64Array): CompanionContent {
  return contentOf(header, batch, summaryOfBatch(batch), findingsOfBatch(header, batch), offsets);
}

/**
 * The summary of a trace's events as columns, each row made an event only while it is counted
 * (none is kept: no array of a million objects for the collector to trace); the same summary
 * SummaryModel makes of the events.
 */
export function summaryOfBatch(batch: ColumnBatch): TraceSummary {
  const summary = new SummaryModel();
  const cols = batchArrays(batch);
  if (!cols) return summary.snapshot();
  const strings = new StringTable(batch.strings);
  eachRowEvent(cols, strings, batch.count, batch.extras, (e) => summary.add(e));
  return summary.snapshot();
}

/** The findings of a trace's events as columns (the rows decoded again); none when a rule trips over the trace. */
export function findingsOfBatch(header: TraceHeader, batch: ColumnBatch): Finding[] {
  try {
    return computeFindings(header, decodeBatch(batch) ?? []);
  } catch {
    return [];
  }
}

/** What the companion of a trace holds, from its parts. */
export function contentOf(header: TraceHeader, batch: ColumnBatch, summary: TraceSummary, findings: Finding[], offsets: Float64Array): CompanionContent {
  const meta: Meta = { count: batch.count, header, summary, findings, strings: batch.strings, extras: batch.extras };
  return {
    meta,
    sections: [...COLUMN_NAMES.map((name) => ({ name, data: new Uint8Array(batch.columns[name]) })), { name: OFFSETS, data: offsets }],
  };
}

/**
 * Writes a trace file and, when its events are all at hand (an array), its companion beside it;
 * an async source (a spill segment) is written without one. An old companion at that place is
 * removed first, so none outlives the file it was made for. Resolves with the number of events.
 */
export async function writeTraceWithCompanion(path: string, header: TraceHeader, events: EventSource, findings?: Finding[], computed?: Computed): Promise<number> {
  await removeCompanion(path);
  if (!Array.isArray(events)) return writeTraceFile(path, header, events);
  const written = await writeTrace(path, header, events, { lineOffsets: true });
  await writeCompanion(path, companionContent(header, written.events!, written.offsets!, findings, computed));
  return written.count;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The columns and meta of a companion as a batch, or a reason it is not one. */
function batchOf(meta: unknown, sections: Map<string, ArrayBuffer>): { batch: ColumnBatch; cols: EventColumnArrays; offsets: Float64Array; meta: Meta } | string {
  if (!isObject(meta)) return 'it has no description';
  const m = meta as unknown as Meta;
  if (!Number.isSafeInteger(m.count) || m.count < 0) return 'its event count is not a count';
  if (!isObject(m.header) || !isObject(m.summary) || !Array.isArray(m.findings) || !Array.isArray(m.strings) || !Array.isArray(m.extras)) return 'its description is incomplete';
  const columns = {} as Record<ColumnName, ArrayBuffer>;
  for (const name of COLUMN_NAMES) {
    const buf = sections.get(name);
    if (!buf) return `it has no ${name} column`;
    columns[name] = buf;
  }
  const batch: ColumnBatch = { count: m.count, columns, strings: m.strings, extras: m.extras };
  const cols = batchArrays(batch);
  if (!cols) return 'its columns are malformed';
  const off = sections.get(OFFSETS);
  if (!off || off.byteLength !== m.count * 8) return 'its line offsets do not match its events';
  return { batch, cols, offsets: new Float64Array(off), meta: m };
}

/** What the trace reader found out about a file after it sent its columns (traceRead.ts). */
export interface ReadCheck {
  /** The file is the canonical text an export of its events writes: an export can copy it. */
  canonical: boolean;
  /** The companion written beside it. */
  companion?: string;
  /** Why none was written, when one was due (one line). */
  companionReason?: string;
}

/**
 * Writes the opened trace's events (read again from its JSON, which must still be the file that
 * was opened) to `path` with a companion: the events written, or why not (one line).
 */
export type ExportElsewhere = (
  path: string,
  opened: { fingerprint: Fingerprint; count: number; lastSeq: number; findings: Finding[] },
) => Promise<{ events: number } | { message: string }>;

const NO_FINDINGS: Finding[] = [];

export class ColumnarTrace {
  private loaded: { header: TraceHeader; events: RecordedEvent[] } | undefined;
  /** The events kept whole, by row. */
  private readonly extraAt = new Map<number, RecordedEvent>();
  private found: Finding[] | undefined;
  private findingsFailure: string | undefined;
  private readonly findingsListeners = new Set<() => void>();
  /** Resolves with the findings once they are known; rejects (one line) when they cannot be computed. */
  readonly findingsReady: Promise<Finding[]>;

  private constructor(
    readonly jsonPath: string,
    /** Resolves when it is known whether the JSON is canonical and which companion belongs to it. */
    readonly checked: Promise<ReadCheck>,
    /** Asks for `checked` now (an export waits for it). */
    private readonly hurry: () => void,
    /** Writes the trace from its events to a path off this thread (the trace reader's worker), when the JSON is not canonical. */
    private readonly exportElsewhere: ExportElsewhere | undefined,
    private readonly fingerprint: Fingerprint,
    readonly header: TraceHeader,
    readonly batch: ColumnBatch,
    private readonly cols: EventColumnArrays,
    private readonly offsets: Float64Array,
    readonly summary: TraceSummary,
    findings: Finding[] | Promise<Finding[]>,
  ) {
    for (let i = 0, next = 0; i < batch.count; i++) if (cols.type[i] === EXTRA) this.extraAt.set(i, batch.extras[next++]);
    if (Array.isArray(findings)) {
      this.found = findings;
      this.findingsReady = Promise.resolve(findings);
    } else {
      this.findingsReady = findings;
      findings.then(
        (f) => this.settleFindings(f, undefined),
        (e: unknown) => this.settleFindings(undefined, firstLine(e)),
      );
    }
  }

  private settleFindings(found: Finding[] | undefined, failure: string | undefined): void {
    this.found = found;
    this.findingsFailure = failure;
    for (const fn of this.findingsListeners) {
      try {
        fn();
      } catch {
        // One listener's failure must not keep the others from hearing of the findings.
      }
    }
    this.findingsListeners.clear();
  }

  /** The findings as far as they are known: none while they are being computed or when that failed (findingsState says which). */
  get findings(): Finding[] {
    return this.found ?? NO_FINDINGS;
  }

  get findingsState(): FindingsState {
    if (this.found) return { state: 'ready' };
    return this.findingsFailure === undefined ? { state: 'computing' } : { state: 'failed', reason: this.findingsFailure };
  }

  /** Calls fn once when the findings are known or failed (not at all when they already are). */
  onFindings(fn: () => void): () => void {
    if (this.findingsState.state !== 'computing') return () => undefined;
    this.findingsListeners.add(fn);
    return () => this.findingsListeners.delete(fn);
  }

  /** The findings, once known (an export waits for them); a failure to compute them as a one-line BadInputError. */
  private async knownFindings(): Promise<Finding[]> {
    try {
      return await this.findingsReady;
    } catch (e) {
      throw new BadInputError(`the trace's findings could not be computed (${firstLine(e)}); reopen it`);
    }
  }

  /**
   * The trace at `jsonPath` from its companion (beside it, else the one an earlier open wrote in
   * `companionDir`), or `{ reason }` when there is none (reason undefined) or it cannot be used
   * (one line: the caller notes it and parses the JSON).
   */
  static async open(jsonPath: string, companionDir?: string): Promise<ColumnarTrace | { reason?: string }> {
    let read = await readCompanion(jsonPath);
    if (!read.ok && read.reason === undefined && companionDir !== undefined) read = await readCompanion(jsonPath, cachedCompanionPath(companionDir, jsonPath));
    if (!read.ok) return { reason: read.reason };
    const b = batchOf(read.companion.meta, read.companion.sections);
    if (typeof b === 'string') return { reason: b };
    const checked = Promise.resolve({ canonical: true, companion: read.companion.path });
    return new ColumnarTrace(jsonPath, checked, () => undefined, undefined, read.companion.fingerprint, b.meta.header, b.batch, b.cols, b.offsets, b.meta.summary, b.meta.findings);
  }

  /**
   * The trace at `jsonPath` from a companion's content that was not read from a file (the trace
   * reader built it from the JSON as it was at `fingerprint`), or why that content is unusable.
   */
  static fromContent(
    jsonPath: string,
    fingerprint: Fingerprint,
    meta: unknown,
    sections: Map<string, ArrayBuffer>,
    checked: Promise<ReadCheck>,
    hurry: () => void,
    exportElsewhere?: ExportElsewhere,
    /** The findings when they come after the content (its own `findings` are then not read). */
    lateFindings?: Promise<Finding[]>,
  ): ColumnarTrace | string {
    const b = batchOf(meta, sections);
    if (typeof b === 'string') return b;
    return new ColumnarTrace(jsonPath, checked, hurry, exportElsewhere, fingerprint, b.meta.header, b.batch, b.cols, b.offsets, b.meta.summary, lateFindings ?? b.meta.findings);
  }

  get count(): number {
    return this.batch.count;
  }

  get lastSeq(): number {
    return this.count > 0 ? this.cols.seq[this.count - 1] : -1;
  }

  private indexOfSeq(seq: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cols.seq[mid] < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.count && this.cols.seq[lo] === seq ? lo : -1;
  }

  private typeAt(i: number): string {
    return this.cols.type[i] === EXTRA ? (this.extraAt.get(i)?.type ?? '') : ROW_TYPES[this.cols.type[i]];
  }

  private keyAt(i: number): string | undefined {
    if (this.cols.type[i] !== EXTRA) return this.cols.key[i] > 0 ? this.batch.strings[this.cols.key[i] - 1] : undefined;
    const k = (this.extraAt.get(i) as { key?: unknown } | undefined)?.key;
    return typeof k === 'string' ? k : undefined;
  }

  /** The event of row i, read from its line of the JSON (checked to be that event). */
  private async lineEvent(i: number): Promise<RecordedEvent | undefined> {
    await this.checkUnchanged();
    const start = this.offsets[i];
    const end = i + 1 < this.count ? this.offsets[i + 1] : (await fingerprintOf(this.jsonPath)).size;
    const fh = await open(this.jsonPath, 'r');
    try {
      const buf = Buffer.alloc(Math.max(0, end - start));
      await fh.read(buf, 0, buf.length, start);
      const text = buf.toString('utf8');
      const nl = text.indexOf('\n');
      const line = (nl < 0 ? text : text.slice(0, nl)).replace(/,$/, '');
      const e = JSON.parse(line) as RecordedEvent;
      return e.seq === this.cols.seq[i] ? e : undefined;
    } finally {
      await fh.close();
    }
  }

  /**
   * The diff a details pane shows for the event with that seq (diffForSeq's answer): a
   * distribute event's own, or for a notification that of the distribute event it stands for.
   */
  async diffFor(seq: number): Promise<FieldChange[] | undefined> {
    const i = this.indexOfSeq(seq);
    if (i < 0) return undefined;
    const type = this.typeAt(i);
    let j = i;
    if (type === 'notify') {
      j = diffSourceIndex(this.count, (x) => this.typeAt(x), (x) => this.keyAt(x), i, this.keyAt(i) ?? '');
    } else if (type !== 'distribute') {
      return undefined;
    }
    if (j < 0) return undefined;
    const e = this.extraAt.get(j) ?? ((this.cols.flags[j] & HAS_DIFF) === 0 ? undefined : await this.lineEvent(j));
    return e?.type === 'distribute' ? e.diff : undefined;
  }

  private async checkUnchanged(): Promise<void> {
    if (!sameFingerprint(this.fingerprint, await fingerprintOf(this.jsonPath))) throw new BadInputError(`the trace file ${this.jsonPath} changed on disk since it was opened; reopen it`);
  }

  /** Every event as an object: the JSON parsed (once), when something needs them all. */
  load(): { header: TraceHeader; events: RecordedEvent[] } {
    if (!this.loaded) {
      const data = readTrace(readFileSync(this.jsonPath, 'utf8'));
      if (data.events.length !== this.count || (this.count > 0 && data.events[this.count - 1].seq !== this.lastSeq)) {
        throw new BadInputError(`the trace file ${this.jsonPath} changed on disk since it was opened; reopen it`);
      }
      this.loaded = data;
    }
    return this.loaded;
  }

  /**
   * Writes the trace to `path` with its companion. A JSON that is exactly what export writes (a
   * companion belongs to it, or the reader found it canonical) is copied; any other is written
   * from its events, parsed off this thread when the trace reader gave one (exportElsewhere).
   */
  async exportTo(path: string): Promise<number> {
    await this.checkUnchanged();
    this.hurry();
    // The companion holds the findings: an export asked for while they are computed waits for them.
    const findings = await this.knownFindings();
    const check = await this.checked;
    const same = resolve(path) === resolve(this.jsonPath);
    if (check.canonical && same) return this.count;
    if (!check.canonical && this.exportElsewhere) {
      const written = await this.exportElsewhere(path, { fingerprint: this.fingerprint, count: this.count, lastSeq: this.lastSeq, findings });
      if ('message' in written) throw new BadInputError(written.message);
      return written.events;
    }
    if (!check.canonical) {
      const { header, events } = this.load();
      return writeTraceWithCompanion(path, header, events.slice(), findings, { events, batch: this.batch, summary: this.summary, findings });
    }
    await removeCompanion(path);
    await copyFile(this.jsonPath, path);
    if (check.companion) await copyCompanion(check.companion, path);
    else await writeCompanion(path, contentOf(this.header, this.batch, this.summary, findings, this.offsets));
    return this.count;
  }
}
