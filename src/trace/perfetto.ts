/**
 * A trace as Chrome trace-event JSON (the "JSON Object Format" that ui.perfetto.dev and
 * chrome://tracing open): one process for the informer, one thread (track) each for the
 * reflector's lists and watches, the marks (relists, faults, bookmarks, cache checks, synced)
 * and every handler; FIFO depth as a counter track. Times are microseconds from the trace's t=0.
 * Pure: the CLI (`summarize --perfetto`) and the extension ("Export Perfetto trace") write it.
 */
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';

/** One trace event (the fields this exporter uses). */
export interface TraceEventJson {
  name: string;
  ph: 'X' | 'i' | 'C' | 'M';
  pid: number;
  tid?: number;
  ts?: number;
  dur?: number;
  cat?: string;
  /** Instant scope: thread. */
  s?: 't';
  args?: Record<string, string | number | boolean>;
}

export interface PerfettoTrace {
  traceEvents: TraceEventJson[];
  displayTimeUnit: 'ms';
  otherData: Record<string, string>;
}

const PID = 1;
export const TID = { lists: 1, watches: 2, marks: 3, firstHandler: 10 } as const;

const us = (ms: number) => Math.round(ms * 1000);

export function toPerfetto(header: TraceHeader, events: readonly RecordedEvent[]): PerfettoTrace {
  const out: TraceEventJson[] = [];
  const resource = [header.resource.group, header.resource.version, header.resource.resource].filter(Boolean).join('/');
  const meta = (name: string, tid: number | undefined, value: string, sort?: number) => {
    out.push({ name, ph: 'M', pid: PID, ...(tid !== undefined ? { tid } : {}), args: { name: value } });
    if (sort !== undefined && tid !== undefined) out.push({ name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: sort } });
  };
  meta('process_name', undefined, `informer ${resource} (profile ${header.profile}, ${header.source})`);
  meta('thread_name', TID.lists, 'Lists', 1);
  meta('thread_name', TID.watches, 'Watches', 2);
  meta('thread_name', TID.marks, 'Relists, faults, bookmarks', 3);
  const handlers = new Map<string, number>();
  const handlerTid = (name: string): number => {
    let tid = handlers.get(name);
    if (tid === undefined) {
      tid = TID.firstHandler + handlers.size;
      handlers.set(name, tid);
      meta('thread_name', tid, `Handler ${name}`, tid);
    }
    return tid;
  };
  const instant = (tid: number, t: number, name: string, cat: string, args?: TraceEventJson['args']) =>
    out.push({ name, ph: 'i', s: 't', pid: PID, tid, ts: us(t), cat, ...(args ? { args } : {}) });

  let openWatch: { t: number; rv: string; watchList: boolean } | undefined;
  const lastT = events.length > 0 ? events[events.length - 1].t : 0;
  for (const e of events) {
    switch (e.type) {
      case 'list.done': {
        const dur = Math.max(0, e.durationMs);
        out.push({ name: 'LIST', ph: 'X', pid: PID, tid: TID.lists, ts: us(e.t - dur), dur: us(dur), cat: 'list', args: { rv: e.rv, items: e.items, pages: e.pages } });
        break;
      }
      case 'list.error':
        instant(TID.lists, e.t, 'LIST failed', 'list', { error: e.text, ...(e.code !== undefined ? { code: e.code } : {}) });
        break;
      case 'watch.start':
        openWatch = { t: e.t, rv: e.rv, watchList: e.watchList };
        break;
      case 'watch.end': {
        const start = openWatch?.t ?? e.t - Math.max(0, e.durationMs);
        out.push({
          name: e.watchList ? 'WATCH-LIST' : 'WATCH',
          ph: 'X',
          pid: PID,
          tid: TID.watches,
          ts: us(start),
          dur: us(Math.max(0, e.t - start)),
          cat: 'watch',
          args: { rv: openWatch?.rv ?? '', how: e.how, outcome: e.outcome, row: e.row, events: e.eventCount, ...(e.reason ? { reason: e.reason } : {}) },
        });
        openWatch = undefined;
        break;
      }
      case 'relist':
        instant(TID.marks, e.t, `RELIST ${e.reason}`, 'relist', { reason: e.reason, row: e.row, rv: e.rv, consistent: e.consistent });
        break;
      case 'fault.injected':
        instant(TID.marks, e.t, `FAULT ${e.fault}`, 'fault', e.detail ? { detail: e.detail } : undefined);
        break;
      case 'watch.event':
        if (e.eventType === 'BOOKMARK') instant(TID.marks, e.t, e.initialEventsEnd ? 'BOOKMARK (initial events end)' : 'BOOKMARK', 'bookmark', { rv: e.rv });
        break;
      case 'consistency.check':
        instant(TID.marks, e.t, 'CACHE CHECK', 'check', { rv: e.rv, missing: e.missing.length, extra: e.extra.length, stale: e.rvMismatch.length });
        break;
      case 'synced':
        instant(TID.marks, e.t, 'SYNCED', 'synced');
        break;
      case 'fifo.enqueue':
      case 'fifo.pop':
        out.push({ name: 'FIFO depth', ph: 'C', pid: PID, ts: us(e.t), args: { keys: e.depthKeys, deltas: e.depthDeltas } });
        break;
      case 'notify':
        instant(handlerTid(e.handler), e.t, `${e.op}${e.tombstone ? ' (tombstone)' : ''}${e.change === 'identical' ? ' (identical)' : ''}`, 'notify', {
          key: e.key,
          rv: e.rv,
          pending: e.pending,
        });
        break;
      case 'handler.slow':
        out.push({ name: 'slow call', ph: 'X', pid: PID, tid: handlerTid(e.handler), ts: us(e.t - e.durationMs), dur: us(e.durationMs), cat: 'handler' });
        break;
      default:
        break;
    }
  }
  if (openWatch) {
    out.push({ name: openWatch.watchList ? 'WATCH-LIST (open)' : 'WATCH (open)', ph: 'X', pid: PID, tid: TID.watches, ts: us(openWatch.t), dur: us(Math.max(0, lastT - openWatch.t)), cat: 'watch', args: { rv: openWatch.rv } });
  }
  return {
    traceEvents: out,
    displayTimeUnit: 'ms',
    otherData: { tool: `${header.tool.name} ${header.tool.version}`, profile: header.profile, startedAt: header.startedAt, source: header.source },
  };
}
