import { strict as assert } from 'node:assert';
import {
  classifyCleanClose,
  classifyListFailure,
  classifyWatchListError,
  classifyWatchOpenError,
  classifyWatchStreamError,
  errorFromWatchObject,
  isConnectionRefused,
  isExpired,
  isExpiredOrGone,
  isGone,
  isInternalError,
  isProbableEOF,
  isTooLargeResourceVersion,
  isTooManyRequests,
  UnexpectedObjectError,
  VeryShortWatchError,
  wrapError,
} from '../../../src/engine/errors';
import { StatusError, TransportError, type Status } from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { findProfile } from '../../../src/engine/profiles';

const se = (s: Status) => new StatusError(s);
const modern = findProfile('v1.36')!;
const v115 = findProfile('v1.15')!;
const never = () => false;

describe('errors: apierrors predicates', () => {
  it('Expired is the reason only; Gone is the reason or a bare 410 with an unknown reason', () => {
    assert.ok(isExpired(se({ code: 410, reason: 'Expired' })));
    assert.ok(!isGone(se({ code: 410, reason: 'Expired' })), '410 with a known reason is not Gone');
    assert.ok(isGone(se({ code: 410 })));
    assert.ok(isGone(se({ code: 400, reason: 'Gone' })));
    assert.ok(!isExpired(se({ code: 410 })));
    assert.ok(isExpiredOrGone(se({ code: 410 })));
  });

  it('429 and 500 count by code only when the reason is not a known one', () => {
    assert.ok(isTooManyRequests(se({ code: 429 })));
    assert.ok(!isTooManyRequests(se({ code: 429, reason: 'Forbidden' })));
    assert.ok(isInternalError(se({ code: 500 })));
    assert.ok(!isInternalError(se({ code: 500, reason: 'ServiceUnavailable' })));
  });

  it('TooLarge: the cause, the 1.17–1.18.5 cause message, or the legacy message (only with details present)', () => {
    assert.ok(isTooLargeResourceVersion(se({ code: 504, reason: 'Timeout', details: { causes: [{ type: 'ResourceVersionTooLarge' }] } })));
    assert.ok(isTooLargeResourceVersion(se({ code: 504, reason: 'Timeout', details: { causes: [{ message: 'Too large resource version' }] } })));
    assert.ok(isTooLargeResourceVersion(se({ code: 504, reason: 'Timeout', message: 'Too large resource version: 9, current: 3', details: {} })));
    assert.ok(!isTooLargeResourceVersion(se({ code: 504, reason: 'Timeout', message: 'Too large resource version: 9, current: 3' })));
    assert.ok(!isTooLargeResourceVersion(se({ code: 500, reason: 'InternalError', details: { causes: [{ message: 'Too large resource version' }] } })));
  });

  it('classification sees through wrapping (errors.As), texts read like Go', () => {
    const refused = new TransportError('connection-refused', 'Get "x": dial tcp 1.2.3.4:6443: connect: connection refused');
    const wrapped = wrapError('failed to list T', refused);
    assert.equal(wrapped.message, 'failed to list T: Get "x": dial tcp 1.2.3.4:6443: connect: connection refused');
    assert.ok(isConnectionRefused(wrapped));
    assert.ok(isTooManyRequests(wrapError('failed to list T', se({ code: 429 }))));
    assert.ok(isProbableEOF(new TransportError('other', 'write: use of closed network connection')));
    assert.ok(!isProbableEOF(refused));
  });

  it('FromObject: a v1 Status becomes a StatusError with its message; anything else an UnexpectedObjectError', () => {
    const e = errorFromWatchObject({ apiVersion: 'v1', kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } as unknown as KubeObject);
    assert.ok(e instanceof StatusError);
    assert.equal(e.message, 'too old');
    const u = errorFromWatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'x' } });
    assert.ok(u instanceof UnexpectedObjectError);
    assert.match(u.message, /^unexpected object: /);
    assert.ok(errorFromWatchObject({ apiVersion: 'apps/v1', kind: 'Status' }) instanceof UnexpectedObjectError);
  });
});

describe('errors: §1.10 classification', () => {
  it('watch open: refused/429 re-watch after backoff; 410 relists (#10); the rest is #18', () => {
    const refused = new TransportError('connection-refused', 'refused');
    assert.deepEqual(classifyWatchOpenError(refused, modern), { row: 6, outcome: 'rewatch-after-backoff' });
    assert.deepEqual(classifyWatchOpenError(refused, v115), { row: 6, outcome: 'relist', reason: 'ConnectionRefused' });
    assert.deepEqual(classifyWatchOpenError(se({ code: 429 }), modern), { row: 14, outcome: 'rewatch-after-backoff' });
    assert.deepEqual(classifyWatchOpenError(se({ code: 410, reason: 'Gone' }), modern), { row: 10, outcome: 'relist', reason: 'Gone' });
    assert.deepEqual(classifyWatchOpenError(se({ code: 403, reason: 'Forbidden' }), modern), { row: 18, outcome: 'relist', reason: 'WatchOpenFailed' });
    assert.equal(classifyWatchOpenError(new TransportError('timeout', 't'), modern).reason, 'Timeout');
  });

  it('watch stream errors map to rows 5, 9, 13, 15, 17, 19, 20, 23', () => {
    const row = (err: unknown, source: 'stream' | 'resync' = 'stream', retry = never) => classifyWatchStreamError(err, source, modern, retry);
    assert.equal(row(new VeryShortWatchError('r')).row, 5);
    assert.equal(row(se({ code: 410, reason: 'Expired' })).row, 9);
    assert.deepEqual(row(se({ code: 504, reason: 'Timeout' })), { row: 13, outcome: 'relist', reason: 'Timeout' });
    assert.deepEqual(row(se({ code: 429 })), { row: 15, outcome: 'rewatch-after-backoff' });
    assert.deepEqual(classifyWatchStreamError(se({ code: 429 }), 'stream', v115, never), { row: 15, outcome: 'relist', reason: 'TooManyRequests' });
    assert.deepEqual(row(se({ code: 500, reason: 'InternalError' })), { row: 17, outcome: 'relist', reason: 'InternalError' });
    assert.deepEqual(row(se({ code: 500, reason: 'InternalError' }), 'stream', () => true), { row: 17, outcome: 'rewatch' });
    assert.deepEqual(row(se({ code: 403, reason: 'Forbidden' })), { row: 19, outcome: 'relist', reason: 'ErrorEvent' });
    assert.equal(row(new UnexpectedObjectError({})).row, 20);
    assert.equal(row(new Error('x'), 'resync').row, 23);
  });

  it('clean closes: #1 at the timeout, #2 earlier EOF, #3, #4, #8', () => {
    assert.equal(classifyCleanClose('eof', 300_000, 300).row, 1);
    assert.equal(classifyCleanClose('eof', 299_999, 300).row, 2);
    assert.equal(classifyCleanClose('unexpected-eof', 5000, 300).row, 3);
    assert.equal(classifyCleanClose('timeout', 5000, 300).row, 4);
    assert.equal(classifyCleanClose('open-retries-exhausted', 10_000, 300).row, 8);
  });

  it('watch-list: refused/429 back off, Expired/TooLarge set unavailable, the rest falls back (#27)', () => {
    const wl = (err: unknown, phase: 'open' | 'stream' = 'open') => classifyWatchListError(err, phase, modern);
    assert.deepEqual(wl(se({ code: 429 })), { row: 14, outcome: 'watchlist-again', reason: 'TooManyRequests', backoff: true, unavailable: false });
    assert.equal(wl(se({ code: 429 }), 'stream').row, 15);
    assert.deepEqual(wl(se({ code: 410, reason: 'Expired' })), { row: 10, outcome: 'watchlist-again', reason: 'Expired', backoff: false, unavailable: true });
    assert.equal(wl(se({ code: 504, reason: 'Timeout', details: { causes: [{ type: 'ResourceVersionTooLarge' }] } })).row, 12);
    assert.deepEqual(wl(new VeryShortWatchError('r'), 'stream'), { row: 27, outcome: 'fallback-to-list', reason: 'VeryShortWatch', backoff: false, unavailable: false });
  });

  it('list failures: #7, #16, #25', () => {
    assert.deepEqual(classifyListFailure(new TransportError('connection-refused', 'x'), 'request'), { row: 7, outcome: 'relist', reason: 'ConnectionRefused' });
    assert.deepEqual(classifyListFailure(se({ code: 403, reason: 'Forbidden' }), 'request'), { row: 7, outcome: 'relist', reason: 'ListFailed' });
    assert.equal(classifyListFailure(se({ code: 429 }), 'request').row, 16);
    assert.equal(classifyListFailure(new Error('boom'), 'sync').row, 25);
  });
});
