/**
 * The REST client's retries on the timeline: a `rest.retry` event becomes a 'REST retry' mark in
 * the marks lane, read as "list 429, retried after 1 s (3/10)".
 */
import { strict as assert } from 'node:assert';
import { MarkKind } from '../../../webview/model/codes';
import { describeEvent } from '../../../webview/model/details';
import { MARK_STYLES } from '../../../webview/model/marks';
import { TimelineData } from '../../../webview/model/timelineData';
import { numbered } from './fixture';

describe('webview model: REST client retries', () => {
  it('marks each retry and says what failed, the wait and which retry of the budget', () => {
    const events = numbered([
      { t: 0, type: 'request', verb: 'list', rv: '0', limit: 500 },
      { t: 0, type: 'rest.retry', verb: 'list', retry: 1, maxRetries: 10, waitMs: 1000, code: 429 },
      { t: 1000, type: 'rest.retry', verb: 'list', retry: 2, maxRetries: 10, waitMs: 1000, code: 429 },
      { t: 2000, type: 'rest.retry', verb: 'watch', retry: 3, maxRetries: 9, waitMs: 1000, error: 'connection-reset' },
    ]);
    const d = new TimelineData();
    d.append(events);
    const kinds = [...d.marks.columns.kind.slice(0, d.marks.length)];
    assert.deepEqual(kinds, [MarkKind.RestRetry, MarkKind.RestRetry, MarkKind.RestRetry]);
    assert.deepEqual([...d.marks.columns.t.slice(0, 3)], [0, 1000, 2000]);
    assert.equal(describeEvent(events[1]), 'list 429, retried after 1 s (1/10)');
    assert.equal(describeEvent(events[3]), 'watch connection-reset, retried after 1 s (3/9)');
    assert.equal(MARK_STYLES[MarkKind.RestRetry].label, 'REST retry');
  });
});
