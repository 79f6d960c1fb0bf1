/**
 * Timeline filters: by object key, by operation (what a handler was told: add, update, delete,
 * resync), by delta type (what entered the FIFO: it narrows the delta-types lane only) and by handler. Pure. A filter narrows the
 * per-object lanes only (delta types, identical updates, tombstones, handler lanes); the
 * reflector's own lanes (state, lists/watches/relists, FIFO depth) stay whole, since they are not
 * about one object. A handler filter also hides the other handlers' lanes.
 */
import type { RecordedEvent } from '../../src/format/events';
import { DELTA_TYPES } from './codes';
import { keyOf } from './history';

export const OPERATIONS = ['add', 'update', 'delete', 'sync'] as const;
export type Operation = (typeof OPERATIONS)[number];
export type FilterDelta = (typeof DELTA_TYPES)[number];

export interface TimelineFilter {
  key?: string;
  op?: Operation;
  delta?: FilterDelta;
  handler?: string;
}

export function filterActive(f: TimelineFilter): boolean {
  return f.key !== undefined || f.op !== undefined || f.delta !== undefined || f.handler !== undefined;
}

/** "key team-a/x · op delete · handler main": what the active-filter chip says. */
export function filterText(f: TimelineFilter): string {
  const parts: string[] = [];
  if (f.key !== undefined) parts.push(`key ${f.key}`);
  if (f.op !== undefined) parts.push(`op ${f.op}`);
  if (f.delta !== undefined) parts.push(`delta ${f.delta}`);
  if (f.handler !== undefined) parts.push(`handler ${f.handler}`);
  return parts.join(' · ');
}

/** The operation an event stands for: a notification's or distribution's op (a resync is "sync"), a FIFO delta's type in the same words. */
export function operationOf(e: RecordedEvent): Operation | undefined {
  switch (e.type) {
    case 'notify':
      return e.isSync ? 'sync' : e.op;
    case 'distribute':
      return e.op;
    case 'fifo.enqueue':
      return DELTA_OPERATION[e.delta];
    default:
      return undefined;
  }
}

const DELTA_OPERATION: Partial<Record<string, Operation>> = { Added: 'add', Updated: 'update', Deleted: 'delete', Sync: 'sync' };

/** Whether an event of a per-object lane passes the filter. */
export function passes(f: TimelineFilter, e: RecordedEvent): boolean {
  if (f.key !== undefined && keyOf(e) !== f.key) return false;
  if (f.op !== undefined && operationOf(e) !== f.op) return false;
  // The delta type narrows what entered the FIFO; notifications are filtered by operation.
  if (f.delta !== undefined && e.type === 'fifo.enqueue' && e.delta !== f.delta) return false;
  return true;
}

/** Whether a handler's lane is shown under the filter. */
export function handlerShown(f: TimelineFilter, handler: string): boolean {
  return f.handler === undefined || f.handler === handler;
}

/** Every object key of the trace, sorted (the search box's type-ahead). */
export function objectKeys(events: readonly RecordedEvent[]): string[] {
  const keys = new Set<string>();
  for (const e of events) {
    const k = keyOf(e);
    if (k !== undefined) keys.add(k);
  }
  return [...keys].sort();
}

/** Up to `limit` keys that contain the typed text (case-insensitive), those starting with it first. */
export function matchingKeys(keys: readonly string[], typed: string, limit = 200): string[] {
  const q = typed.trim().toLowerCase();
  if (q === '') return keys.slice(0, limit);
  const starts: string[] = [];
  const contains: string[] = [];
  for (const k of keys) {
    const lk = k.toLowerCase();
    if (lk.startsWith(q) || lk.includes(`/${q}`)) starts.push(k);
    else if (lk.includes(q)) contains.push(k);
    if (starts.length >= limit) break;
  }
  return [...starts, ...contains].slice(0, limit);
}

/** The event to jump to for a key: its latest notification or FIFO entry (a row of a lane), else its latest event; undefined if none. */
export function jumpTarget(events: readonly RecordedEvent[], key: string): number | undefined {
  let any: number | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (keyOf(e) !== key) continue;
    if (e.type === 'notify' || e.type === 'fifo.enqueue') return e.seq;
    any ??= e.seq;
  }
  return any;
}
