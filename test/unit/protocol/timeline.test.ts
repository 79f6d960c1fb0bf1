import { strict as assert } from 'node:assert';
import {
  ClockNotification,
  DeltaNotification,
  ExportTraceRequest,
  ReadyCommand,
  SelectSessionCommand,
  SnapshotNotification,
  isTimelineUiState,
} from '../../../src/protocol/timeline';
import type { SnapshotParams } from '../../../src/protocol/timeline';

const header: SnapshotParams['header'] = {
  format: 'informer-trace/v1',
  tool: { name: 'informer-inspector', version: '0.1.0' },
  profile: 'v1.36',
  gates: {},
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  source: 'sandbox',
  startedAt: '2025-01-01T00:00:00.000Z',
  cap: 200000,
  dropped: 0,
  redacted: true,
};
const session = { id: 's1', title: 'configmaps', live: true, simulated: true };

describe('protocol: timeline messages', () => {
  it('ready round-trips through create/is and is not mistaken for another command', () => {
    const msg = ReadyCommand.create({});
    assert.equal(ReadyCommand.is(msg), true);
    assert.equal(SelectSessionCommand.is(msg), false);
    assert.equal(ReadyCommand.is(JSON.parse(JSON.stringify(msg))), true);
  });

  it('rejects messages whose params do not have the declared shape', () => {
    assert.equal(SelectSessionCommand.is({ kind: 'command', method: 'timeline/selectSession', params: { sessionId: 3 } }), false);
    assert.equal(SelectSessionCommand.is({ kind: 'command', method: 'timeline/selectSession', params: { sessionId: 's' } }), true);
    assert.equal(ReadyCommand.is({ kind: 'notification', method: 'timeline/ready', params: {} }), false, 'kind must match');
    assert.equal(ReadyCommand.is(null), false);
    assert.equal(ReadyCommand.is('timeline/ready'), false);
  });

  it('snapshot guard checks header, events and findings', () => {
    const good: SnapshotParams = {
      session,
      header,
      events: [{ type: 'synced', t: 5, seq: 0 }],
      findings: [{ id: 'f', severity: 'warning', title: 't', detail: 'd', advice: 'a', evidence: [0] }],
      sessions: [session],
    };
    assert.equal(SnapshotNotification.is(SnapshotNotification.create(good)), true);
    const badEvent = { ...good, events: [{ type: 'synced', t: 'later', seq: 0 }] };
    assert.equal(SnapshotNotification.is(SnapshotNotification.create(badEvent as unknown as SnapshotParams)), false);
    const badHeader = { ...good, header: { ...header, format: 'informer-trace/v2' } };
    assert.equal(SnapshotNotification.is(SnapshotNotification.create(badHeader as unknown as SnapshotParams)), false);
    const badFinding = { ...good, findings: [{ id: 'f', severity: 'fatal', title: 't', detail: 'd', advice: 'a', evidence: [] }] };
    assert.equal(SnapshotNotification.is(SnapshotNotification.create(badFinding as unknown as SnapshotParams)), false);
  });

  it('delta carries afterSeq and optional findings', () => {
    const d = DeltaNotification.create({ sessionId: 's1', afterSeq: 4, events: [{ type: 'synced', t: 1, seq: 5 }], live: true });
    assert.equal(DeltaNotification.is(d), true);
    assert.equal(DeltaNotification.is({ ...d, params: { ...d.params, afterSeq: undefined } }), false);
  });

  it('a live session\'s engine time: clock heartbeat guard, optional nowT on delta and snapshot', () => {
    const c = ClockNotification.create({ sessionId: 's1', nowT: 61_234.5 });
    assert.equal(ClockNotification.is(c), true);
    assert.equal(ClockNotification.is(JSON.parse(JSON.stringify(c))), true);
    assert.equal(ClockNotification.is({ ...c, params: { sessionId: 's1' } }), false, 'nowT is required');
    assert.equal(ClockNotification.is({ ...c, params: { sessionId: 's1', nowT: '5' } }), false);
    assert.equal(ClockNotification.is({ ...c, params: { sessionId: 's1', nowT: Number.NaN } }), false);
    assert.equal(ClockNotification.is({ ...c, params: { nowT: 5 } }), false, 'sessionId is required');
    assert.equal(ClockNotification.is({ ...c, kind: 'command' }), false);
    assert.equal(DeltaNotification.is(c), false, 'a heartbeat is not a delta');
    const d = DeltaNotification.create({ sessionId: 's1', afterSeq: 4, events: [], live: true, nowT: 900 });
    assert.equal(DeltaNotification.is(d), true);
    assert.equal(DeltaNotification.is({ ...d, params: { ...d.params, nowT: 'now' } }), false);
    assert.equal(DeltaNotification.is({ ...d, params: { ...d.params, nowT: Number.POSITIVE_INFINITY } }), false);
    const snap: SnapshotParams = { session, header, events: [], findings: [], sessions: [session], nowT: 12 };
    assert.equal(SnapshotNotification.is(SnapshotNotification.create(snap)), true);
    assert.equal(SnapshotNotification.is(SnapshotNotification.create({ ...snap, nowT: null } as unknown as SnapshotParams)), false);
  });

  it('a request has a typed completion with its own method and the same id', () => {
    const req = ExportTraceRequest.create({ sessionId: 's1' }, 7);
    assert.equal(req.id, 7);
    assert.equal(ExportTraceRequest.is(req), true);
    const done = ExportTraceRequest.completion.create({ ok: true, message: 'saved' }, 7);
    assert.equal(done.method, 'timeline/exportTrace/completion');
    assert.equal(ExportTraceRequest.completion.is(done), true);
    assert.equal(ExportTraceRequest.completion.is({ ...done, params: { ok: 'yes', message: '' } }), false);
  });

  it('UI state guard accepts only UI fields of the right type', () => {
    assert.equal(isTimelineUiState({ follow: true }), true);
    assert.equal(isTimelineUiState({ follow: false, window: [0, 10], selectedSeq: 3, sessionId: 'x' }), true);
    assert.equal(isTimelineUiState({ follow: false, window: [0] }), false);
    assert.equal(isTimelineUiState({ window: [0, 1] }), false);
  });
});
