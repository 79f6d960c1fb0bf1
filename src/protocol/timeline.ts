/**
 * The timeline view's protocol. The host owns the data: the webview sends `ready`, the host
 * answers with a full `snapshot` (the trace editor sends it before the `ready` and answers that
 * with `snapshotSent`), then sends `delta` batches (at most ~30 per second). A delta
 * names the last event seq the host had sent before it (`afterSeq`); a webview whose last seq
 * differs has missed something and sends `ready` again for a fresh snapshot. A hidden view gets
 * a full snapshot when it is shown again, never the deltas it missed.
 *
 * Time: a live session's timeline ends at NOW, not at its last event (a quiet informer is still
 * watching). Snapshots and deltas carry `nowT`, the session's current engine time (its clock's
 * now(), the time base of event `t`), and while a live session's view is visible the host sends a
 * `clock` notification about once a second, so the current state span and the open watch keep
 * growing while nothing happens. An ended or imported session has no `nowT` and ends at its
 * last event.
 */
import {
  IpcMessageType,
  IpcRequestType,
  isArrayOf,
  isBoolean,
  isEmptyParams,
  isFiniteNumber,
  isRecord,
  isString,
} from './ipc';
import type { Finding, FindingsState, StaleWindow, TraceHeader, TraceSummary } from '../format/trace';
import type { FieldChange, RecordedEvent } from '../format/events';
import type { ColumnBatch } from './eventColumns';
import type { PackedColumns } from './columnPack';
import type { DenseRow, SegmentChunk, SpillOverview } from '../format/spill';

/** One informer session the host knows about (running, finished, imported or replayed). */
export interface SessionInfo {
  id: string;
  title: string;
  /** Events still arrive (a running informer). */
  live: boolean;
  /** The data comes from the built-in simulated cluster, not a real one. */
  simulated: boolean;
}

export interface SnapshotParams {
  session: SessionInfo;
  /** The stream's number for this snapshot (increasing); `snapshotSent` refers to it. */
  snapshotId?: number;
  header: TraceHeader;
  /** Events as objects; they follow the events of `columns`. */
  events: RecordedEvent[];
  /**
   * The events as columns (src/protocol/eventColumns.ts), typed arrays as ArrayBuffers, so
   * neither side serialises an object per event; the host sends them packed into one buffer
   * (src/protocol/columnPack.ts). Distribute diffs are not in them: the webview asks for one
   * with EventDiffRequest.
   */
  columns?: ColumnBatch | PackedColumns;
  findings: Finding[];
  /** Present while the findings are not known (`findings` is then empty): being computed, or why they could not be. */
  findingsState?: FindingsState;
  /** Every session, so a view can offer to switch. */
  sessions: SessionInfo[];
  /** The counts of the whole trace (src/trace/summary.ts): what the header chips show. */
  summary?: TraceSummary;
  /** The session's current engine time (same base as event t); only for a live session. */
  nowT?: number;
  /** What of the trace lies in the spill segment and not in `columns` (src/format/spill.ts). */
  spill?: SpillOverview;
  /** Where the session keeps its events: memory, disk (against its bound), dropped. */
  storage?: StorageInfo;
  /**
   * The events came before this snapshot as `snapshotPart`s (a trace opened from its JSON sends its
   * columns block by block while it is decoded) and `columns` is absent: a page that holds every
   * part `id` (`blocks` of them, `count` events) shows them; any other asks again (`ready`).
   */
  parts?: SnapshotParts;
}

/** Which parts a snapshot's events came in (SnapshotParams.parts). */
export interface SnapshotParts {
  id: number;
  blocks: number;
  count: number;
}

/**
 * One block of a snapshot's events sent ahead of it, in order (`index` from 0): rows `from` …
 * `from + columns.count - 1` of `total`. Its string references are the whole table's: the
 * strings new with this block follow the `stringsFrom` strings the blocks before it brought.
 */
export interface SnapshotPartParams {
  partsId: number;
  index: number;
  from: number;
  total: number;
  stringsFrom: number;
  columns: PackedColumns;
}

/** How many events a session holds where (the header shows it). */
export interface StorageInfo {
  memoryEvents: number;
  dropped: number;
  /** Present when the session spills: the segment's events and bytes, and its bound. */
  disk?: { events: number; bytes: number; maxBytes: number; error?: string };
}

/** Asks for the spilled events of the segment chunks that meet [t0, t1] (session time). */
export interface SpillRangeParams {
  sessionId: string;
  t0: number;
  t1: number;
}

export interface SpillRangeResult {
  /** The events read, as columns; absent when the read failed (then `message` says why). */
  columns?: ColumnBatch;
  /** The time span of the chunks read. */
  t0: number;
  t1: number;
  /** Every chunk the range touches was read (false: the read stopped at its event limit). */
  complete: boolean;
  message?: string;
}

export interface DeltaParams {
  sessionId: string;
  /** seq of the last event the host sent this view before this batch (-1: none). */
  afterSeq: number;
  events: RecordedEvent[];
  /** Present when the findings changed since the last message. */
  findings?: Finding[];
  /** With `findings`: present while they are not known (see SnapshotParams.findingsState). */
  findingsState?: FindingsState;
  live: boolean;
  /** The counts of the whole trace after this batch. */
  summary?: TraceSummary;
  /** The session's current engine time (same base as event t); only while it is live. */
  nowT?: number;
  storage?: StorageInfo;
}

/** The answer to a `ready` when the snapshot was sent before it (the trace editor): which one. */
export interface SnapshotSentParams {
  snapshotId: number;
}

/** The heartbeat of a live session: its current engine time, sent while the view is visible. */
export interface ClockParams {
  sessionId: string;
  /** The session's clock.now(), the time base of event t. */
  nowT: number;
}

export interface SessionsParams {
  sessions: SessionInfo[];
  activeId?: string;
}

export interface EmptyState {
  /** Why there is nothing to show, e.g. "No informer running". */
  message: string;
}

export interface EventRef {
  sessionId: string;
  seq: number;
}

export interface EventDiff {
  /** The changed fields the event (or the distribute it notifies) carries; absent when none. */
  diff?: FieldChange[];
}

export interface ExportResult {
  ok: boolean;
  message: string;
}

// ---- guards (shape checks; event payloads are trusted to be engine events once they are objects with a type)

export function isSessionInfo(v: unknown): v is SessionInfo {
  return isRecord(v) && isString(v.id) && isString(v.title) && isBoolean(v.live) && isBoolean(v.simulated);
}

export function isRecordedEvent(v: unknown): v is RecordedEvent {
  return isRecord(v) && isString(v.type) && isFiniteNumber(v.t) && isFiniteNumber(v.seq);
}

export function isFinding(v: unknown): v is Finding {
  return (
    isRecord(v) &&
    isString(v.id) &&
    (v.severity === 'info' || v.severity === 'warning' || v.severity === 'error') &&
    isString(v.title) &&
    isString(v.detail) &&
    isString(v.advice) &&
    isArrayOf(v.evidence, isFiniteNumber)
  );
}

export function isTraceHeader(v: unknown): v is TraceHeader {
  return (
    isRecord(v) &&
    v.format === 'informer-trace/v1' &&
    isString(v.profile) &&
    isRecord(v.resource) &&
    isString(v.resource.resource) &&
    isString(v.startedAt) &&
    isString(v.source)
  );
}

/** The shape of a column batch; its content is checked where it is used (eventColumns.batchArrays). */
function isColumnBatch(v: unknown): v is ColumnBatch {
  return isRecord(v) && isFiniteNumber(v.count) && isRecord(v.columns) && Array.isArray(v.strings) && Array.isArray(v.extras);
}

/** The shape of packed columns; their bytes are checked when unpacked (columnPack.unpackColumns). */
function isPackedColumns(v: unknown): v is PackedColumns {
  return isRecord(v) && isFiniteNumber(v.count) && isFiniteNumber(v.packing) && v.packed instanceof ArrayBuffer && Array.isArray(v.strings) && Array.isArray(v.extras);
}

function isOptionalFindingsState(v: unknown): v is FindingsState | undefined {
  return v === undefined || (isRecord(v) && (v.state === 'ready' || v.state === 'computing' || (v.state === 'failed' && isString(v.reason))));
}

function isSnapshot(v: unknown): v is SnapshotParams {
  return (
    isRecord(v) &&
    (v.columns === undefined || isColumnBatch(v.columns) || isPackedColumns(v.columns)) &&
    isSessionInfo(v.session) &&
    isOptionalTime(v.snapshotId) &&
    isTraceHeader(v.header) &&
    isArrayOf(v.events, isRecordedEvent) &&
    isArrayOf(v.findings, isFinding) &&
    isOptionalFindingsState(v.findingsState) &&
    isArrayOf(v.sessions, isSessionInfo) &&
    isOptionalSummary(v.summary) &&
    isOptionalTime(v.nowT) &&
    (v.spill === undefined || isSpillOverview(v.spill)) &&
    (v.storage === undefined || isStorageInfo(v.storage)) &&
    (v.parts === undefined || (isRecord(v.parts) && isFiniteNumber(v.parts.id) && isFiniteNumber(v.parts.blocks) && isFiniteNumber(v.parts.count)))
  );
}

function isSnapshotPart(v: unknown): v is SnapshotPartParams {
  return isRecord(v) && ['partsId', 'index', 'from', 'total', 'stringsFrom'].every((k) => isFiniteNumber(v[k])) && isPackedColumns(v.columns);
}

function isChunk(v: unknown): v is SegmentChunk {
  return isRecord(v) && ['firstSeq', 'lastSeq', 't0', 't1', 'count', 'offset', 'bytes'].every((k) => isFiniteNumber(v[k]));
}

function isDenseRow(v: unknown): v is DenseRow {
  return isRecord(v) && isString(v.type) && isFiniteNumber(v.t) && isFiniteNumber(v.count) && v.count > 0;
}

export function isSpillOverview(v: unknown): v is SpillOverview {
  return isRecord(v) && isArrayOf(v.chunks, isChunk) && isArrayOf(v.exact, isRecordedEvent) && isArrayOf(v.dense, isDenseRow);
}

export function isStorageInfo(v: unknown): v is StorageInfo {
  return (
    isRecord(v) &&
    isFiniteNumber(v.memoryEvents) &&
    isFiniteNumber(v.dropped) &&
    (v.disk === undefined ||
      (isRecord(v.disk) && isFiniteNumber(v.disk.events) && isFiniteNumber(v.disk.bytes) && isFiniteNumber(v.disk.maxBytes) && (v.disk.error === undefined || isString(v.disk.error))))
  );
}

function isSpillRange(v: unknown): v is SpillRangeParams {
  return isRecord(v) && isString(v.sessionId) && typeof v.t0 === 'number' && typeof v.t1 === 'number' && !Number.isNaN(v.t0) && !Number.isNaN(v.t1);
}

function isSpillRangeResult(v: unknown): v is SpillRangeResult {
  return (
    isRecord(v) &&
    (v.columns === undefined || isColumnBatch(v.columns)) &&
    isFiniteNumber(v.t0) &&
    isFiniteNumber(v.t1) &&
    isBoolean(v.complete) &&
    (v.message === undefined || isString(v.message))
  );
}

function isDelta(v: unknown): v is DeltaParams {
  return (
    isRecord(v) &&
    isString(v.sessionId) &&
    isFiniteNumber(v.afterSeq) &&
    isArrayOf(v.events, isRecordedEvent) &&
    (v.findings === undefined || isArrayOf(v.findings, isFinding)) &&
    isOptionalFindingsState(v.findingsState) &&
    isBoolean(v.live) &&
    isOptionalSummary(v.summary) &&
    isOptionalTime(v.nowT) &&
    (v.storage === undefined || isStorageInfo(v.storage))
  );
}

/** The counts the chips read: numbers and the per-reason list must be well-formed. */
export function isTraceSummary(v: unknown): v is TraceSummary {
  if (!isRecord(v)) return false;
  const numbers = ['relists', 'relistsListRefused', 'lists', 'watches', 'updates', 'identicalUpdates', 'identicalShare', 'tombstones', 'fifoKeys', 'fifoDeltas', 'events', 'dropped'];
  return (
    numbers.every((k) => isFiniteNumber(v[k])) &&
    isArrayOf(v.relistsByReason, (r): r is [string, number] => Array.isArray(r) && r.length === 2 && isString(r[0]) && isFiniteNumber(r[1])) &&
    isString(v.currentRv) &&
    isBoolean(v.synced) &&
    isString(v.state) &&
    isArrayOf(v.staleWindows, isStaleWindow)
  );
}

function isStaleWindow(v: unknown): v is StaleWindow {
  return (
    isRecord(v) &&
    isString(v.key) &&
    isFiniteNumber(v.fromT) &&
    (v.toT === undefined || isFiniteNumber(v.toT)) &&
    (v.revealedBy === 'relist' || v.revealedBy === 'check') &&
    isFiniteNumber(v.revealSeq)
  );
}

function isOptionalSummary(v: unknown): v is TraceSummary | undefined {
  return v === undefined || isTraceSummary(v);
}

function isOptionalTime(v: unknown): v is number | undefined {
  return v === undefined || isFiniteNumber(v);
}

function isClock(v: unknown): v is ClockParams {
  return isRecord(v) && isString(v.sessionId) && isFiniteNumber(v.nowT);
}

function isSessions(v: unknown): v is SessionsParams {
  return isRecord(v) && isArrayOf(v.sessions, isSessionInfo) && (v.activeId === undefined || isString(v.activeId));
}

function isEmptyState(v: unknown): v is EmptyState {
  return isRecord(v) && isString(v.message);
}

function isSessionRef(v: unknown): v is { sessionId: string } {
  return isRecord(v) && isString(v.sessionId);
}

function isUrlParams(v: unknown): v is { url: string } {
  return isRecord(v) && isString(v.url);
}

function isEventRef(v: unknown): v is EventRef {
  return isRecord(v) && isString(v.sessionId) && isFiniteNumber(v.seq);
}

function isEventDiff(v: unknown): v is EventDiff {
  return isRecord(v) && (v.diff === undefined || isArrayOf(v.diff, (c): c is FieldChange => isRecord(c) && isString(c.path)));
}

function isExportResult(v: unknown): v is ExportResult {
  return isRecord(v) && isBoolean(v.ok) && isString(v.message);
}

// ---- webview → host

/** The webview's script is running and wants a full snapshot. */
export const ReadyCommand = new IpcMessageType('command', 'timeline/ready', isEmptyParams);
/** Show another session in this view. */
export const SelectSessionCommand = new IpcMessageType('command', 'timeline/selectSession', isSessionRef);
/** Open a finding's upstream link (the host only opens https URLs). */
export const OpenLinkCommand = new IpcMessageType('command', 'timeline/openLink', isUrlParams);
/** Save the shown session's trace to a file the user picks. */
export const ExportTraceRequest = new IpcRequestType('timeline/exportTrace', isSessionRef, isExportResult);
/** The diff of one event, which a snapshot's columns leave with the host. */
export const EventDiffRequest = new IpcRequestType('timeline/eventDiff', isEventRef, isEventDiff);
/** The spilled events of a time range the view zoomed into (they are on disk, not in the snapshot). */
export const SpillRangeRequest = new IpcRequestType('timeline/spillRange', isSpillRange, isSpillRangeResult);

// ---- host → webview

export const SnapshotNotification = new IpcMessageType('notification', 'timeline/snapshot', isSnapshot);
/** A block of the next snapshot's events, sent while the rest is still being read (SnapshotPartParams). */
export const SnapshotPartNotification = new IpcMessageType('notification', 'timeline/snapshotPart', isSnapshotPart);
export const DeltaNotification = new IpcMessageType('notification', 'timeline/delta', isDelta);
/** A `ready` is answered by a snapshot already sent: a page that does not hold it sends `ready` again. */
export const SnapshotSentNotification = new IpcMessageType('notification', 'timeline/snapshotSent', (v: unknown): v is SnapshotSentParams => isRecord(v) && isFiniteNumber(v.snapshotId));
export const SessionsNotification = new IpcMessageType('notification', 'timeline/sessions', isSessions);
/** A live session's current engine time (heartbeat, ~1/s while the view is visible). */
export const ClockNotification = new IpcMessageType('notification', 'timeline/clock', isClock);
export const EmptyNotification = new IpcMessageType('notification', 'timeline/empty', isEmptyState);

/** The UI state a webview persists with setState (never domain data). */
export interface TimelineUiState {
  sessionId?: string;
  /** Visible time window [t0, t1] in trace ms, absent when following live. */
  window?: [number, number];
  follow: boolean;
  selectedSeq?: number;
}

export function isTimelineUiState(v: unknown): v is TimelineUiState {
  return (
    isRecord(v) &&
    isBoolean(v.follow) &&
    (v.sessionId === undefined || isString(v.sessionId)) &&
    (v.selectedSeq === undefined || isFiniteNumber(v.selectedSeq)) &&
    (v.window === undefined || (isArrayOf(v.window, isFiniteNumber) && v.window.length === 2))
  );
}
