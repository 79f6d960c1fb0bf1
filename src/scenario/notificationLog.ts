/**
 * The notification log (shared/spec/contracts.md §2, field rules in docs/scenario-format.md):
 * one JSON object per line. Lines are built with the same key order as the Go oracle writes them,
 * so a plain text diff of two logs is readable; the comparison itself never relies on key order.
 */
import type { ListOptions, WatchOptions } from '../engine/listWatch';
import type { Verb } from './types';

export interface RequestLine {
  kind: 'request';
  verb: Verb;
  rv: string;
  limit?: number;
  continue?: string;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: string;
  allowWatchBookmarks?: boolean;
  /** Logged, never compared (it is random). */
  timeoutSeconds?: number;
}

export interface NotifyLine {
  kind: 'notify';
  handler: string;
  op: 'add' | 'update' | 'delete';
  key: string;
  oldRv?: string;
  rv: string;
  initialList?: boolean;
  tombstone?: boolean;
}

export interface DivergenceLine {
  kind: 'divergence';
  /** The verb of the next step. */
  expected: Verb;
  got: { verb: Verb; rv: string };
}

export type LogLine = RequestLine | NotifyLine | { kind: 'synced' } | DivergenceLine | { kind: 'end' };

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

const KINDS = new Set(['request', 'notify', 'synced', 'divergence', 'end']);

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
