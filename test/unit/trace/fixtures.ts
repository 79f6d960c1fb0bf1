/**
 * Test fixtures for the trace layer: one complete sample of every event type (tsc refuses this
 * file when a type of the TraceEvent union has no sample), a header, and a helper that numbers
 * synthetic event arrays like the recorder does.
 */
import type { EventOf, TraceEvent, TraceEventType } from '../../../src/format/events';
import type { RecordedEvent } from '../../../src/format/events';
import type { TraceHeader } from '../../../src/format/trace';

/** Every event type of the union; a missing or extra key is a compile error. */
export const ALL_EVENT_TYPES: Record<TraceEventType, true> = {
  'informer.start': true, 'informer.stop': true, synced: true, 'handler.added': true,
  'reflector.state': true, request: true, 'rest.retry': true, relist: true, 'list.start': true, 'list.page': true,
  'list.expiredContinue': true, 'list.retryConsistent': true, 'list.done': true, 'list.error': true,
  'watch.start': true, 'watch.opened': true, 'watch.event': true, 'watch.end': true, 'watchlist.fallback': true, backoff: true,
  rv: true, 'rv.unavailable': true, 'resync.timer': true, watchErrorHandler: true, 'fifo.enqueue': true,
  'fifo.dedup': true, 'fifo.drop': true, 'fifo.replace': true, 'fifo.resync': true, 'fifo.pop': true,
  'fifo.synced': true, distribute: true, notify: true, 'resync.check': true, 'handler.slow': true,
  log: true, 'fault.injected': true, 'consistency.check': true, 'trace.dropped': true,
};

/** One sample per type, with every optional field filled. */
export const SAMPLE_EVENTS: { [K in TraceEventType]: EventOf<K> } = {
  'informer.start': { t: 0, type: 'informer.start', profile: 'v1.36', fifo: 'RealFIFO', atomic: true, watchList: true, resyncCheckPeriodMs: 0 },
  'informer.stop': { t: 1, type: 'informer.stop' },
  synced: { t: 1, type: 'synced' },
  'handler.added': { t: 0, type: 'handler.added', handler: 'main', requestedResyncMs: 0, effectiveResyncMs: 0, afterStart: false, syntheticAdds: 0 },
  'reflector.state': { t: 0, type: 'reflector.state', state: 'listing' },
  request: { t: 0, type: 'request', verb: 'watch', rv: '10', limit: 500, continue: 'abc', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 },
  'rest.retry': { t: 1, type: 'rest.retry', verb: 'list', retry: 3, maxRetries: 10, waitMs: 1000, code: 429 },
  relist: { t: 5, type: 'relist', reason: 'Expired', row: 9, rv: '11', consistent: false, text: 'too old resource version: 11 (20)' },
  'list.start': { t: 0, type: 'list.start', rv: '0', limit: 500, initial: true },
  'list.page': { t: 0, type: 'list.page', page: 1, items: 3, rv: '10', continue: 'tok' },
  'list.expiredContinue': { t: 0, type: 'list.expiredContinue' },
  'list.retryConsistent': { t: 0, type: 'list.retryConsistent', reason: 'TooLargeResourceVersion' },
  'list.done': { t: 0.5, type: 'list.done', rv: '10', items: 3, pages: 1, paginated: false, durationMs: 0.5 },
  'list.error': { t: 0, type: 'list.error', text: 'failed to list: boom', code: 500, reason: 'InternalError' },
  'watch.start': { t: 1, type: 'watch.start', rv: '10', timeoutSeconds: 312, watchList: false, propagateRVFromStart: true },
  'watch.opened': { t: 1, type: 'watch.opened', watchList: false },
  'watch.event': { t: 1, type: 'watch.event', eventType: 'BOOKMARK', key: 'default/a', rv: '11', accepted: true, skipped: 'no', initialEventsEnd: true },
  'watch.end': { t: 2, type: 'watch.end', row: 9, outcome: 'relist', durationMs: 1000, eventCount: 1, how: 'error-event', reason: 'Expired', error: 'too old', code: 410, watchList: false },
  'watchlist.fallback': { t: 0, type: 'watchlist.fallback', text: 'Data could not be fetched in watchlist mode' },
  backoff: { t: 2, type: 'backoff', purpose: 'run-loop', baseMs: 800, sleepMs: 900, reset: false },
  rv: { t: 1, type: 'rv', rv: '11', source: 'event' },
  'rv.unavailable': { t: 1, type: 'rv.unavailable', value: true },
  'resync.timer': { t: 1, type: 'resync.timer', shouldResync: false },
  watchErrorHandler: { t: 1, type: 'watchErrorHandler', text: 'Failed to watch' },
  'fifo.enqueue': { t: 1, type: 'fifo.enqueue', key: 'default/a', delta: 'Deleted', rv: '5', depthKeys: 1, depthDeltas: 1, tombstone: 'replace-known', objects: 1 },
  'fifo.dedup': { t: 1, type: 'fifo.dedup', key: 'default/a', kept: 'newer' },
  'fifo.drop': { t: 1, type: 'fifo.drop', key: 'default/a', delta: 'Sync', why: 'sync-busy' },
  'fifo.replace': { t: 1, type: 'fifo.replace', items: 3, tombstonesFromQueue: 0, tombstonesFromKnown: 1, atomic: false },
  'fifo.resync': { t: 1, type: 'fifo.resync', queued: 2, skippedBusy: 0, atomic: false },
  'fifo.pop': { t: 1, type: 'fifo.pop', key: 'default/a', deltas: ['Replaced', 'Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
  'fifo.synced': { t: 1, type: 'fifo.synced' },
  distribute: { t: 1, type: 'distribute', op: 'update', key: 'default/a', isSync: false, delivered: 1, skipped: 0, change: 'other', diff: [{ path: 'metadata.labels.app', old: 'x', new: 'y' }], oldRv: '5', rv: '6' },
  notify: { t: 1, type: 'notify', handler: 'main', op: 'delete', key: 'default/a', rv: '5', oldRv: '4', isSync: false, initialList: false, tombstone: true, change: 'identical', pending: 0 },
  'resync.check': { t: 1, type: 'resync.check', handler: 'main', due: true, nextResyncMs: 30000 },
  'handler.slow': { t: 1, type: 'handler.slow', handler: 'main', durationMs: 2500 },
  log: { t: 1, type: 'log', level: 'v4', msg: 'Watch close', kv: { reflector: 'x', totalItems: '3' } },
  'fault.injected': { t: 1, type: 'fault.injected', fault: 'resetWatch', detail: 'connection reset by peer' },
  'consistency.check': { t: 1, type: 'consistency.check', rv: '20', missing: ['default/b'], extra: ['default/c'], rvMismatch: [{ key: 'default/a', cached: '5', server: '7' }] },
  'trace.dropped': { t: 1, type: 'trace.dropped', count: 10 },
};

export function header(over: Partial<TraceHeader> = {}): TraceHeader {
  return {
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: '0.1.0' },
    profile: 'v1.36',
    gates: { WatchListClient: true },
    resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    namespace: 'default',
    source: 'scenario',
    startedAt: '2025-01-01T00:00:00.000Z',
    cap: 200_000,
    dropped: 0,
    redacted: true,
    ...over,
  };
}

/** Numbers events 0,1,2,... as the recorder would. */
export function numbered(events: TraceEvent[]): RecordedEvent[] {
  return events.map((e, seq) => ({ ...e, seq }) as RecordedEvent);
}
