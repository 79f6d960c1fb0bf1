import type { TraceEvent } from '../../../src/format/events';
import type { RecordedEvent } from '../../../src/format/events';

/** Numbers a hand-written event list the way the recorder does (seq 0, 1, 2, ...). */
export function numbered(events: TraceEvent[]): RecordedEvent[] {
  return events.map((e, seq) => ({ ...e, seq }) as RecordedEvent);
}

/** A small but complete cycle: list, watch, a 410 that relists, an identical update, a tombstone. */
export function cycleTrace(): RecordedEvent[] {
  return numbered([
    { t: 0, type: 'reflector.state', state: 'listing' },
    { t: 0, type: 'request', verb: 'list', rv: '0', limit: 500 },
    { t: 0, type: 'list.start', rv: '0', limit: 500, initial: true },
    { t: 20, type: 'list.done', rv: '10', items: 2, pages: 1, paginated: false, durationMs: 20 },
    { t: 20, type: 'fifo.enqueue', key: 'default/a', delta: 'Replaced', rv: '5', depthKeys: 1, depthDeltas: 1 },
    { t: 20, type: 'fifo.enqueue', key: 'default/b', delta: 'Replaced', rv: '6', depthKeys: 2, depthDeltas: 2 },
    { t: 20, type: 'rv', rv: '10', source: 'list' },
    { t: 21, type: 'reflector.state', state: 'watching' },
    { t: 21, type: 'request', verb: 'watch', rv: '10', allowWatchBookmarks: true, timeoutSeconds: 400 },
    { t: 21, type: 'watch.start', rv: '10', timeoutSeconds: 400, watchList: false, propagateRVFromStart: false },
    { t: 22, type: 'fifo.pop', key: 'default/a', deltas: ['Replaced'], isInInitialList: true, depthKeys: 1, depthDeltas: 1 },
    { t: 22, type: 'notify', handler: 'main', op: 'add', key: 'default/a', rv: '5', isSync: false, initialList: true, pending: 0 },
    { t: 23, type: 'fifo.pop', key: 'default/b', deltas: ['Replaced'], isInInitialList: true, depthKeys: 0, depthDeltas: 0 },
    { t: 23, type: 'notify', handler: 'main', op: 'add', key: 'default/b', rv: '6', isSync: false, initialList: true, pending: 0 },
    { t: 23, type: 'synced' },
    { t: 500, type: 'fifo.enqueue', key: 'default/a', delta: 'Updated', rv: '11', depthKeys: 1, depthDeltas: 1 },
    { t: 501, type: 'fifo.pop', key: 'default/a', deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
    {
      t: 501, type: 'distribute', op: 'update', key: 'default/a', isSync: false, delivered: 1, skipped: 0, change: 'identical',
      diff: [], oldRv: '5', rv: '11',
    },
    { t: 501, type: 'notify', handler: 'main', op: 'update', key: 'default/a', rv: '11', oldRv: '5', isSync: false, change: 'identical', pending: 0 },
    { t: 600, type: 'fifo.enqueue', key: 'default/b', delta: 'Updated', rv: '12', depthKeys: 1, depthDeltas: 1 },
    { t: 601, type: 'fifo.pop', key: 'default/b', deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
    {
      t: 601, type: 'distribute', op: 'update', key: 'default/b', isSync: false, delivered: 1, skipped: 0, change: 'other',
      diff: [{ path: 'data.x', old: '1', new: '2' }], oldRv: '6', rv: '12',
    },
    { t: 601, type: 'notify', handler: 'main', op: 'update', key: 'default/b', rv: '12', oldRv: '6', isSync: false, change: 'other', pending: 0 },
    {
      t: 2000, type: 'watch.end', row: 13, outcome: 'relist', durationMs: 1979, eventCount: 2, how: 'error-event', reason: 'Expired',
      error: 'The resourceVersion for the provided watch is too old.', watchList: false,
    },
    { t: 2000, type: 'reflector.state', state: 'listing' },
    { t: 2000, type: 'relist', reason: 'Expired', row: 13, rv: '12', consistent: false, text: 'watch of *unstructured.Unstructured ended with: The resourceVersion for the provided watch is too old.' },
    { t: 2000, type: 'request', verb: 'list', rv: '12', limit: 500, resourceVersionMatch: 'NotOlderThan' },
    { t: 2030, type: 'list.done', rv: '20', items: 1, pages: 1, paginated: false, durationMs: 30 },
    { t: 2030, type: 'fifo.enqueue', key: 'default/b', delta: 'Deleted', rv: '12', depthKeys: 1, depthDeltas: 1, tombstone: 'replace-known' },
    { t: 2031, type: 'fifo.pop', key: 'default/b', deltas: ['Deleted'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
    { t: 2031, type: 'notify', handler: 'main', op: 'delete', key: 'default/b', rv: '12', isSync: false, tombstone: true, pending: 0 },
    { t: 2031, type: 'rv', rv: '20', source: 'list' },
  ]);
}
