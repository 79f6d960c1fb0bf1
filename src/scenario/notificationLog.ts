/**
 * The notification log (shared/spec/contracts.md §2, field rules in docs/scenario-format.md):
 * one JSON object per line. Lines are built with the same key order as the Go oracle writes them,
 * so a plain text diff of two logs is readable; the comparison itself never relies on key order.
 *
 * v2 (docs/notification-log-v2.md) adds `t` (virtual ms since the start) to every line, digests
 * of delivered objects, a `store` line with the final store, and one canonical order of the
 * merged stream (canonicalOrder). A v1 line is a v2 line without those fields.
 */
import type { ListOptions, WatchOptions } from '../engine/listWatch';
import type { Verb } from './types';

export interface RequestLine {
  kind: 'request';
  /** v2: virtual ms since the start of the run, rounded to the microsecond. */
  t?: number;
  verb: Verb;
  rv: string;
  limit?: number;
  continue?: string;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: string;
  allowWatchBookmarks?: boolean;
  /** v1: logged, not compared. v2: compared (the random draws are Go's, see docs/notification-log-v2.md). */
  timeoutSeconds?: number;
  /** The informer's selectors (scenario extension), when set. */
  labelSelector?: string;
  fieldSelector?: string;
}

export interface NotifyLine {
  kind: 'notify';
  t?: number;
  handler: string;
  op: 'add' | 'update' | 'delete';
  key: string;
  oldRv?: string;
  rv: string;
  initialList?: boolean;
  tombstone?: boolean;
  /** v2: digest of the old object of an update (objectDigest.ts). */
  oldDigest?: string;
  /** v2: digest of the object delivered (of the object inside a tombstone; "" when none). */
  digest?: string;
}

export interface DivergenceLine {
  kind: 'divergence';
  t?: number;
  /** The verb of the next step. */
  expected: Verb;
  got: { verb: Verb; rv: string };
}

/** v2: the informer's store after the run stopped: key → digest. */
export interface StoreLine {
  kind: 'store';
  t?: number;
  objects: Record<string, string>;
}

/** v2, only for scenarios with indexers: index name → indexed value → keys (sorted), after the run stopped. */
export interface IndexLine {
  kind: 'index';
  t?: number;
  indexes: Record<string, Record<string, string[]>>;
}

export type LogLine = RequestLine | NotifyLine | { kind: 'synced'; t?: number } | DivergenceLine | IndexLine | StoreLine | { kind: 'end'; t?: number };

/** Virtual ms as v2 writes it: rounded to the microsecond. */
export function virtualMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const RANK: Record<LogLine['kind'], number> = { request: 0, notify: 1, synced: 2, divergence: 3, index: 4, store: 5, end: 6 };

/**
 * The v2 canonical order of one run's lines (the Go oracle writes the same): by `t`; within one
 * instant requests, then notifications handler by handler (handlers in the order they were
 * added: `handlerOrder`, unknown names last), then synced, divergence, index, store, end; within
 * each group the order in which the lines were logged. Stable; does not modify `lines`.
 */
export function canonicalOrder(lines: readonly LogLine[], handlerOrder: readonly string[]): LogLine[] {
  const hi = (l: LogLine) => {
    if (l.kind !== 'notify') return 0;
    const i = handlerOrder.indexOf(l.handler);
    return i >= 0 ? i : handlerOrder.length;
  };
  return lines
    .map((l, i) => ({ l, i }))
    .sort((a, b) => (a.l.t ?? 0) - (b.l.t ?? 0) || RANK[a.l.kind] - RANK[b.l.kind] || hi(a.l) - hi(b.l) || a.i - b.i)
    .map((x) => x.l);
}

/** The request line for one reflector call; empty/false/zero options are left out. */
export function requestLine(verb: Verb, o: ListOptions | WatchOptions): RequestLine {
  const line: RequestLine = { kind: 'request', verb, rv: o.resourceVersion ?? '' };
  if ('limit' in o && o.limit && o.limit > 0) line.limit = o.limit;
  if ('continue' in o && o.continue) line.continue = o.continue;
  if ('sendInitialEvents' in o && o.sendInitialEvents) line.sendInitialEvents = true;
  if (o.resourceVersionMatch) line.resourceVersionMatch = o.resourceVersionMatch;
  if ('allowWatchBookmarks' in o && o.allowWatchBookmarks) line.allowWatchBookmarks = true;
  if (verb === 'watch' && 'timeoutSeconds' in o && o.timeoutSeconds !== undefined) line.timeoutSeconds = o.timeoutSeconds;
  return line;
}

export function formatLog(lines: readonly LogLine[]): string {
  return lines.map((l) => JSON.stringify(l) + '\n').join('');
}

export class LogParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogParseError';
  }
}

const KINDS = new Set(['request', 'notify', 'synced', 'divergence', 'index', 'store', 'end']);

/** Reads an NDJSON notification log; blank lines are ignored. `label` names the file in errors. */
export function parseLog(text: string, label: string): LogLine[] {
  const out: LogLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const s = raw.trim();
    if (!s) return;
    let v: unknown;
    try {
      v = JSON.parse(s);
    } catch (e) {
      throw new LogParseError(`${label}:${i + 1}: not JSON: ${(e as Error).message}`);
    }
    const kind = (v as { kind?: unknown } | null)?.kind;
    if (typeof kind !== 'string' || !KINDS.has(kind)) throw new LogParseError(`${label}:${i + 1}: unknown line kind ${JSON.stringify(kind)}`);
    out.push(v as LogLine);
  });
  return out;
}
