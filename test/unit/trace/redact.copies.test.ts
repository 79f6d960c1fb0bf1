import { strict as assert } from 'assert';
import type { RecordedEvent, TraceEvent } from '../../../src/format/events';
import { emitterOf } from '../../../src/engine/sink';
import { TraceRecorder } from '../../../src/trace/recorder';
import { REDACTED, redactEvent } from '../../../src/trace/redact';
import { header } from './fixtures';

const SECRETS = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const ctx = { resource: SECRETS };

function recorder(): TraceRecorder {
  const { dropped: _d, ...h } = header({ resource: SECRETS, redacted: true });
  return new TraceRecorder(h);
}

describe('redaction copies only what it must', () => {
  it('hands back an event that nothing could change as it is, and a scrubbed copy otherwise', () => {
    const clean: TraceEvent = { t: 1, type: 'notify', handler: 'h', op: 'update', key: 'default/db', rv: '12', oldRv: '11', isSync: false, change: 'other', pending: 0 };
    assert.equal(redactEvent(clean, ctx), clean);
    const dirty: TraceEvent = { t: 2, type: 'log', level: 'info', msg: 'ok', kv: { token: 'tok-1' } };
    const out = redactEvent(dirty, ctx);
    assert.notEqual(out, dirty);
    assert.deepEqual(out, { t: 2, type: 'log', level: 'info', msg: 'ok', kv: { token: REDACTED } });
  });

  it('still scans every string of every event type, not only the usual carriers of text', () => {
    // Fields that never hold credentials in practice: the quick path must still see these.
    const events: TraceEvent[] = [
      { t: 0, type: 'request', verb: 'list', rv: '0', continue: 'Bearer abcdef123456' },
      { t: 0, type: 'fifo.pop', key: 'ns/a', deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0, ...{ extra: ['password=letmein'] } } as TraceEvent,
      { t: 0, type: 'consistency.check', rv: '9', missing: ['ns/token=tok-22'], extra: [], rvMismatch: [{ key: 'ns/b', cached: '1', server: 'https://u:pw-33@h/x' }] },
      { t: 0, type: 'watch.event', eventType: 'MODIFIED', key: 'ns/c', rv: '5', accepted: false, skipped: `id-token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln` },
    ];
    const text = JSON.stringify(events.map((e) => redactEvent(e, ctx)));
    for (const leak of ['abcdef123456', 'letmein', 'tok-22', 'pw-33', 'eyJhbGciOiJSUzI1NiJ9']) assert.ok(!text.includes(leak), `leaked ${leak}`);
  });

  it('a Secret diff is always copied and scrubbed, even when its values look harmless', () => {
    const e: TraceEvent = {
      t: 0, type: 'distribute', op: 'update', key: 'ns/s', isSync: false, delivered: 1, skipped: 0, change: 'other',
      diff: [{ path: 'data.color', old: 'cmVk', new: 'Ymx1ZQ==' }],
    };
    const out = redactEvent(e, ctx);
    assert.notEqual(out, e);
    assert.deepEqual(out.type === 'distribute' && out.diff, [{ path: 'data.color', old: REDACTED, new: REDACTED }]);
  });

  it('the recorder never stores or changes the engine\'s own event object', () => {
    const r = recorder();
    const value = { labels: { app: 'db' } };
    const withDiff: TraceEvent = {
      t: 1, type: 'distribute', op: 'update', key: 'ns/s', isSync: false, delivered: 1, skipped: 0, change: 'other',
      diff: [{ path: 'metadata', old: value, new: value }],
    };
    const plain: TraceEvent = { t: 2, type: 'rv', rv: '7', source: 'event' };
    r.emit(withDiff);
    r.emit(plain);
    const [a, b] = r.events();
    assert.notEqual(b, plain);
    assert.ok(!('seq' in plain), 'the emitted event got no seq');
    value.labels.app = 'changed later';
    assert.deepEqual(a.type === 'distribute' && a.diff?.[0].new, { labels: { app: 'db' } }, 'diff values are copies, not the cache objects');
    assert.deepEqual(b, { t: 2, type: 'rv', rv: '7', source: 'event', seq: 1 });
  });

  it('an adopted event (handed over by the engine) goes to subscribers as that object with its seq, unless it had to be scrubbed', () => {
    const r = recorder();
    const plain: TraceEvent = { t: 2, type: 'rv', rv: '7', source: 'event' };
    const dirty: TraceEvent = { t: 3, type: 'log', level: 'info', msg: 'ok', kv: { token: 'tok-1' } };
    const seen: RecordedEvent[] = [];
    r.subscribe((batch) => seen.push(...batch));
    r.adopt(plain);
    r.adopt(dirty);
    assert.equal(seen[0], plain, 'no copy');
    assert.notEqual(seen[1], dirty);
    const [a, b] = r.events();
    assert.deepEqual(a, { t: 2, type: 'rv', rv: '7', source: 'event', seq: 0 });
    assert.notEqual(b, dirty);
    assert.deepEqual(b, { t: 3, type: 'log', level: 'info', msg: 'ok', kv: { token: REDACTED }, seq: 1 });
    assert.deepEqual(dirty, { t: 3, type: 'log', level: 'info', msg: 'ok', kv: { token: 'tok-1' } }, 'the scrubbed event stays as it was');
  });

  it('the engine hands events over to a sink that adopts them, and emits them to any other', () => {
    const seen: string[] = [];
    const e: TraceEvent = { t: 0, type: 'synced' };
    emitterOf({ emit: () => seen.push('emit'), adopt: () => seen.push('adopt') })(e);
    emitterOf({ emit: () => seen.push('emit') })(e);
    assert.deepEqual(seen, ['adopt', 'emit']);
  });
});
