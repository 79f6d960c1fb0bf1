/**
 * What the details pane and the accessible labels say about one event. Texts that client-go logs
 * (relist reasons, watch errors, list errors) are shown verbatim; everything else is a short,
 * plain description. Pure: the renderer only turns rows into text nodes.
 */
import { rowText } from './marks';
import type { FieldChange, RecordedEvent } from '../../src/format/events';
import { diffOf, diffSourceIndex } from '../../src/protocol/eventColumns';
import type { TimelineData } from './timelineData';

export interface EventDetails {
  title: string;
  rows: [label: string, value: string][];
  /** The update's changed fields, when the event carries them. */
  diff?: FieldChange[];
  /** The reason text exactly as client-go logs it. */
  reasonText?: string;
  /** The request the reflector sent for this list/watch (or the one a relist led to). */
  request?: string;
}

/** A duration, without trailing zeros (so round axis ticks read "+1 s", "+1.5 s"). */
export function formatMs(ms: number): string {
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1).replace(/\.?0+$/, '')} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${((ms - m * 60_000) / 1000).toFixed(0)} s`;
}

/**
 * A trace time as shown on the axis and in the details pane. Trace times count ms from the
 * session's start (the engine clock's zero; the header's startedAt), so that is the one origin:
 * the axis, the details and the findings ("t=…s") agree even when the first event is late or the
 * oldest events were dropped, and round tick values read as round times.
 */
export function formatTime(t: number): string {
  return `+${formatMs(t)}`;
}

/** One line a person can read aloud; also the accessible label of a mark. */
export function describeEvent(e: RecordedEvent): string {
  switch (e.type) {
    case 'list.done':
      return `list: ${e.items} items in ${e.pages} page${e.pages === 1 ? '' : 's'} at RV ${e.rv}, ${formatMs(e.durationMs)}`;
    case 'list.error':
      return `list failed: ${e.text}`;
    case 'watch.start':
      return `watch from RV ${e.rv || '""'}${e.watchList ? ' (watch-list)' : ''}, timeout ${e.timeoutSeconds} s`;
    case 'watch.end':
      return `watch ended (${e.how}) after ${formatMs(e.durationMs)}, ${e.eventCount} events → ${e.outcome} (row ${rowText(e.row)})`;
    case 'rest.retry':
      return `${e.verb} ${e.code ?? e.error ?? 'failed'}, retried after ${formatMs(e.waitMs)} (${e.retry}/${e.maxRetries})`;
    case 'relist':
      return `RELIST (${e.reason}${e.consistent ? ', consistent read' : ''}) from RV ${e.rv || '""'}`;
    case 'fifo.resync':
      return `resync: ${e.queued} queued, ${e.skippedBusy} skipped (busy)`;
    case 'watch.event':
      return `${e.eventType} ${e.key ?? ''} RV ${e.rv}${e.initialEventsEnd ? ' (initial events end)' : ''}`.replace(/\s+/g, ' ');
    case 'fault.injected':
      return `fault injected: ${e.fault}${e.detail ? ` (${e.detail})` : ''}`;
    case 'consistency.check':
      return `consistency check at RV ${e.rv}: ${listOf(e.missing).length} missing, ${listOf(e.extra).length} extra, ${listOf(e.rvMismatch).length} stale`;
    case 'synced':
      return 'informer synced (HasSynced true)';
    case 'reflector.state':
      return `reflector ${e.state}`;
    case 'fifo.enqueue':
      return `${e.delta} ${e.key} RV ${e.rv}${e.tombstone ? ' (tombstone)' : ''}, FIFO ${e.depthKeys} keys / ${e.depthDeltas} deltas`;
    case 'distribute':
      return `${e.op} ${e.key}${e.change ? ` (${e.change === 'identical' ? 'IDENTICAL' : e.change})` : ''} to ${e.delivered} handler(s)`;
    case 'notify':
      return `${e.handler}: ${e.op}${e.tombstone ? ' (tombstone)' : ''}${e.isSync ? ' (sync)' : ''}${e.change === 'identical' ? ' (identical)' : ''} ${e.key} RV ${e.rv}`;
    default:
      return e.type;
  }
}

export function eventDetails(data: TimelineData, e: RecordedEvent): EventDetails {
  const rows: [string, string][] = [
    ['time', formatTime(e.t)],
    ['seq', String(e.seq)],
  ];
  const out: EventDetails = { title: describeEvent(e), rows };
  const add = (label: string, v: string | number | boolean | undefined) => {
    if (v !== undefined && v !== '') rows.push([label, String(v)]);
  };
  switch (e.type) {
    case 'relist':
      add('reason', e.reason);
      add('from RV', e.rv || '""');
      add('consistent read', e.consistent);
      add('classification row', rowText(e.row));
      out.reasonText = e.text;
      out.request = describeRequest(findRequest(data, e.seq, 'forward', 'list'));
      break;
    case 'watch.end':
      add('how', e.how);
      add('outcome', e.outcome);
      add('events', e.eventCount);
      add('duration', formatMs(e.durationMs));
      add('classification row', rowText(e.row));
      add('reason', e.reason);
      out.reasonText = e.error;
      out.request = describeRequest(findRequest(data, e.seq, 'backward', 'watch'));
      break;
    case 'watch.start':
      out.request = describeRequest(findRequest(data, e.seq, 'backward', 'watch'));
      break;
    case 'list.done':
    case 'list.error':
      if (e.type === 'list.done') {
        add('RV', e.rv);
        add('items', e.items);
        add('pages', e.pages);
        add('duration', formatMs(e.durationMs));
      } else {
        add('code', e.code);
        add('reason', e.reason);
        out.reasonText = e.text;
      }
      out.request = describeRequest(findRequest(data, e.seq, 'backward', 'list'));
      break;
    case 'distribute':
      add('key', e.key);
      add('old RV', e.oldRv);
      add('RV', e.rv);
      add('change', e.change);
      out.diff = e.diff;
      break;
    case 'notify':
      add('handler', e.handler);
      add('key', e.key);
      add('old RV', e.oldRv);
      add('RV', e.rv);
      add('pending in buffer', e.pending);
      out.diff = findDiff(data, e);
      break;
    case 'fifo.enqueue':
      add('key', e.key);
      add('RV', e.rv);
      add('tombstone', e.tombstone);
      break;
    case 'watch.event':
      add('key', e.key);
      add('RV', e.rv);
      add('skipped', e.skipped);
      break;
    case 'fault.injected':
      add('fault', e.fault);
      add('detail', e.detail);
      break;
    case 'consistency.check':
      add('missing', listOf(e.missing).join(', '));
      add('extra', listOf(e.extra).join(', '));
      add('stale', listOf(e.rvMismatch).map((m) => `${m?.key} cached ${m?.cached} server ${m?.server}`).join(', '));
      break;
    default:
      break;
  }
  return out;
}

/** An array field of an event from the host, or [] when a foreign trace left it out or gave something else. */
function listOf<T>(v: readonly T[] | undefined): readonly T[] {
  return Array.isArray(v) ? v : [];
}

type RequestEvent = Extract<RecordedEvent, { type: 'request' }>;

/** The nearest request of that verb before (or after) an event, within the same cycle. */
export function findRequest(
  data: TimelineData,
  seq: number,
  direction: 'backward' | 'forward',
  verb: 'list' | 'watch',
): RequestEvent | undefined {
  const start = data.indexOfSeq(seq);
  if (start < 0) return undefined;
  const step = direction === 'backward' ? -1 : 1;
  for (let i = start + step; i >= 0 && i < data.eventCount; i += step) {
    const type = data.typeAt(i);
    if (type === 'request') {
      const e = data.eventAt(i);
      if (e.type === 'request' && e.verb === verb) return e;
    }
    // Do not cross into another cycle: a relist (forward) or a new relist marker (backward) bounds it.
    if (type === 'relist' && i !== start) return undefined;
  }
  return undefined;
}

export function describeRequest(r: RequestEvent | undefined): string | undefined {
  if (!r) return undefined;
  const q: string[] = [`resourceVersion=${r.rv}`];
  if (r.resourceVersionMatch) q.push(`resourceVersionMatch=${r.resourceVersionMatch}`);
  if (r.limit) q.push(`limit=${r.limit}`);
  if (r.continue) q.push(`continue=${r.continue}`);
  if (r.allowWatchBookmarks) q.push('allowWatchBookmarks=true');
  if (r.sendInitialEvents) q.push('sendInitialEvents=true');
  if (r.timeoutSeconds !== undefined) q.push(`timeoutSeconds=${r.timeoutSeconds}`);
  if (r.verb === 'watch') q.push('watch=true');
  return `GET ${r.verb} ?${q.join('&')}`;
}

/** A notification carries no diff itself; the distribute event just before it does. */
function findDiff(data: TimelineData, n: Extract<RecordedEvent, { type: 'notify' }>): FieldChange[] | undefined {
  const i = diffSourceIndex(data.eventCount, (j) => data.typeAt(j), (j) => data.keyAt(j), data.indexOfSeq(n.seq), n.key);
  return i < 0 ? undefined : diffOf(data.eventAt(i));
}

/**
 * Whether the diff the details of this event show is still with the host: the event is a
 * distribute (or the notification of one) whose diff came in a snapshot's columns.
 */
export function diffPending(data: TimelineData, e: RecordedEvent): boolean {
  if (e.type === 'distribute') return data.diffDeferred(e.seq);
  if (e.type !== 'notify') return false;
  const i = diffSourceIndex(data.eventCount, (j) => data.typeAt(j), (j) => data.keyAt(j), data.indexOfSeq(e.seq), e.key);
  return i >= 0 && data.diffDeferred(data.eventAt(i).seq);
}
