import { strict as assert } from 'node:assert';
import type { IpcMessage } from '../../../src/protocol/ipc';
import { ClockNotification, DeltaNotification, EmptyNotification, SnapshotNotification, SnapshotSentNotification } from '../../../src/protocol/timeline';
import { TraceRecorder } from '../../../src/trace/recorder';
import { InformerSession } from '../../../src/app/session';
import { TimelineStream } from '../../../src/vscode/timelineStream';
import { ManualTimers } from './manualTimers';
import { decodeBatch } from '../../../src/protocol/eventColumns';
import { isPacked, unpackColumns } from '../../../src/protocol/columnPack';
import type { SnapshotParams } from '../../../src/protocol/timeline';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SegmentFile } from '../../../src/trace/segments';

/** A snapshot's events: those of its columns (which travel packed), then those sent as objects. */
function snapshotEvents(p: SnapshotParams) {
  assert.ok(p.columns === undefined || isPacked(p.columns), 'a snapshot packs its columns');
  return [...(p.columns ? decodeBatch(unpackColumns(p.columns)!)! : []), ...p.events];
}


function recorder(): TraceRecorder {
  return new TraceRecorder({
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: 'test' },
    profile: 'v1.36',
    gates: {},
    resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    source: 'sandbox',
    startedAt: '2025-01-01T00:00:00.000Z',
    cap: 1000,
    redacted: true,
  });
}

/** The engine clock is offset from the stream's wall timers, so a test can tell which one nowT reads. */
const ENGINE_OFFSET = 7_000;

function setup() {
  const timers = new ManualTimers();
  const rec = recorder();
  let stopped = false;
  const session = new InformerSession({
    id: 's1',
    kind: 'sandbox',
    title: 'configmaps',
    simulated: true,
    recorder: rec,
    stop: async () => void (stopped = true),
    now: () => timers.t,
    clock: () => timers.t + ENGINE_OFFSET,
  });
  const sent: IpcMessage[] = [];
  const stream = new TimelineStream((m) => sent.push(m), () => [session.info()], 'nothing running', timers, 33);
  return { timers, rec, session, sent, stream, wasStopped: () => stopped };
}

describe('host: timeline stream', () => {
  it('sends nothing before ready, then a snapshot with everything recorded so far', () => {
    const { rec, sent, stream, session } = setup();
    rec.emit({ t: 1, type: 'synced' });
    stream.show(session);
    assert.equal(sent.length, 0);
    stream.onReady();
    assert.equal(sent.length, 1);
    assert.ok(SnapshotNotification.is(sent[0]));
    assert.deepEqual(snapshotEvents(sent[0].params).map((e) => e.seq), [0]);
    assert.equal(sent[0].params.events.length, 0, 'a snapshot sends its events as columns');
  });

  it('prime: the snapshot goes before ready, the first ready is answered with its number, a later one with a snapshot', () => {
    const { rec, sent, stream, session, timers } = setup();
    rec.emit({ t: 1, type: 'synced' });
    stream.show(session);
    stream.prime();
    assert.equal(sent.length, 1);
    assert.ok(SnapshotNotification.is(sent[0]));
    assert.deepEqual(snapshotEvents(sent[0].params).map((e) => e.seq), [0]);
    const id = sent[0].params.snapshotId;
    assert.ok(id !== undefined);
    stream.onReady();
    assert.equal(sent.length, 2);
    assert.ok(SnapshotSentNotification.is(sent[1]), 'the first ready is told which snapshot was sent, not sent it again');
    assert.equal(sent[1].params.snapshotId, id);
    rec.emit({ t: 2, type: 'synced' });
    timers.advance(33);
    assert.ok(DeltaNotification.is(sent[2]), 'deltas follow the primed snapshot');
    assert.equal(sent[2].params.afterSeq, 0);
    stream.onReady();
    assert.ok(SnapshotNotification.is(sent[3]), 'a second ready (the page did not hold it, or reloaded) gets a snapshot');
    assert.ok(sent[3].params.snapshotId! > id!, 'snapshot numbers increase');
  });

  it('prime: a view hidden and shown again before its first ready gets a snapshot for that ready; a hidden view is not primed', () => {
    const a = setup();
    a.stream.show(a.session);
    a.stream.prime();
    a.stream.setVisible(false);
    a.stream.setVisible(true);
    const before = a.sent.length;
    a.stream.onReady();
    assert.equal(a.sent.length, before + 1);
    assert.ok(SnapshotNotification.is(a.sent[a.sent.length - 1]));
    const b = setup();
    b.stream.show(b.session);
    b.stream.setVisible(false);
    b.stream.prime();
    assert.equal(b.sent.length, 0);
    b.stream.setVisible(true);
    b.stream.onReady();
    assert.ok(b.sent.length >= 1 && SnapshotNotification.is(b.sent[b.sent.length - 1]));
  });

  it('batches many emits into one delta per interval, with contiguous afterSeq', () => {
    const { rec, sent, stream, session, timers } = setup();
    stream.show(session);
    stream.onReady();
    for (let i = 0; i < 50; i++) rec.emit({ t: i, type: 'resync.timer', shouldResync: false });
    assert.equal(sent.length, 1, 'nothing before the interval elapses');
    timers.advance(33);
    assert.equal(sent.length, 2);
    const d1 = sent[1];
    assert.ok(DeltaNotification.is(d1));
    assert.equal(d1.params.afterSeq, -1);
    assert.equal(d1.params.events.length, 50);
    rec.emit({ t: 60, type: 'synced' });
    timers.advance(10);
    assert.equal(sent.length, 2, 'rate limited: the next batch waits for the interval');
    timers.advance(30);
    const d2 = sent[2];
    assert.ok(DeltaNotification.is(d2));
    assert.equal(d2.params.afterSeq, 49);
    assert.deepEqual(d2.params.events.map((e) => e.seq), [50]);
  });

  it('a hidden view gets nothing, then one full snapshot when shown again', () => {
    const { rec, sent, stream, session, timers } = setup();
    stream.show(session);
    stream.onReady();
    stream.setVisible(false);
    rec.emit({ t: 1, type: 'synced' });
    timers.advance(100);
    assert.equal(sent.length, 1);
    stream.setVisible(true);
    assert.equal(sent.length, 2);
    assert.ok(SnapshotNotification.is(sent[1]));
    assert.equal(snapshotEvents(sent[1].params).length, 1);
  });

  it('an ended session sends a final delta with live=false', async () => {
    const { sent, stream, session, timers, wasStopped } = setup();
    stream.show(session);
    stream.onReady();
    await session.stop();
    assert.equal(wasStopped(), true);
    timers.advance(33);
    const last = sent[sent.length - 1];
    assert.ok(DeltaNotification.is(last));
    assert.equal(last.params.live, false);
  });

  it('no session: an empty state with the message', () => {
    const { sent, stream } = setup();
    stream.onReady();
    assert.ok(EmptyNotification.is(sent[0]));
    assert.equal(sent[0].params.message, 'nothing running');
  });

  describe('clock heartbeat (a live timeline ends at now)', () => {
    const clocks = (sent: IpcMessage[]) => sent.filter((m) => ClockNotification.is(m));

    it('snapshot and deltas carry the session\'s engine time', () => {
      const { rec, sent, stream, session, timers } = setup();
      stream.show(session);
      stream.onReady();
      const snap = sent[0];
      assert.ok(SnapshotNotification.is(snap));
      assert.equal(snap.params.nowT, ENGINE_OFFSET);
      timers.advance(100);
      rec.emit({ t: ENGINE_OFFSET + 100, type: 'synced' });
      timers.advance(33);
      const d = sent.find((m) => DeltaNotification.is(m));
      assert.ok(d && DeltaNotification.is(d));
      assert.equal(d.params.nowT, ENGINE_OFFSET + 133);
    });

    it('a quiet live session gets one clock notification per second while visible', () => {
      const { sent, stream, session, timers } = setup();
      stream.show(session);
      stream.onReady();
      for (let i = 0; i < 3; i++) timers.advance(1000);
      const c = clocks(sent);
      assert.equal(c.length, 3);
      assert.deepEqual(
        c.map((m) => (ClockNotification.is(m) ? m.params : undefined)),
        [1000, 2000, 3000].map((t) => ({ sessionId: 's1', nowT: t + ENGINE_OFFSET })),
      );
      assert.equal(timers.pending(), 1, 'one heartbeat timer, never more');
    });

    it('no heartbeat before ready or while hidden; it resumes (after a snapshot) when shown', () => {
      const { sent, stream, session, timers } = setup();
      stream.show(session);
      timers.advance(3000);
      assert.equal(sent.length, 0, 'not ready: nothing');
      assert.equal(stream.heartbeatActive, false);
      stream.onReady();
      stream.setVisible(false);
      assert.equal(stream.heartbeatActive, false);
      assert.equal(timers.pending(), 0);
      timers.advance(5000);
      assert.equal(clocks(sent).length, 0);
      stream.setVisible(true);
      assert.ok(SnapshotNotification.is(sent[sent.length - 1]));
      timers.advance(1000);
      assert.equal(clocks(sent).length, 1);
    });

    it('stops when the session ends: the final delta has live=false and no nowT, then silence', async () => {
      const { sent, stream, session, timers } = setup();
      stream.show(session);
      stream.onReady();
      timers.advance(1000);
      assert.equal(clocks(sent).length, 1);
      await session.stop();
      assert.equal(stream.heartbeatActive, false);
      timers.advance(33);
      const last = sent[sent.length - 1];
      assert.ok(DeltaNotification.is(last));
      assert.equal(last.params.live, false);
      assert.equal(last.params.nowT, undefined);
      const before = sent.length;
      timers.advance(10_000);
      assert.equal(sent.length, before);
      assert.equal(timers.pending(), 0);
    });

    it('stops when the view is disposed, and never restarts', () => {
      const { sent, stream, session, timers } = setup();
      stream.show(session);
      stream.onReady();
      stream.dispose();
      assert.equal(timers.pending(), 0);
      stream.onReady();
      stream.setVisible(false);
      stream.setVisible(true);
      assert.equal(stream.heartbeatActive, false);
      timers.advance(5000);
      assert.equal(clocks(sent).length, 0);
    });

    it('a session without a live clock (replayed or imported) has no heartbeat and no nowT', () => {
      const timers = new ManualTimers();
      const rec = recorder();
      rec.emit({ t: 5, type: 'synced' });
      const replay = new InformerSession({ id: 'r', kind: 'replay', title: 'replay', simulated: false, recorder: rec });
      const sent: IpcMessage[] = [];
      const stream = new TimelineStream((m) => sent.push(m), () => [replay.info()], 'none', timers, 33);
      stream.show(replay);
      stream.onReady();
      assert.ok(SnapshotNotification.is(sent[0]));
      assert.equal(sent[0].params.nowT, undefined);
      timers.advance(5000);
      assert.equal(sent.length, 1);
      assert.equal(timers.pending(), 0);
    });

    it('switching to another session moves the heartbeat with it', () => {
      const { sent, stream, session, timers } = setup();
      stream.show(session);
      stream.onReady();
      const replay = new InformerSession({ id: 'r', kind: 'replay', title: 'replay', simulated: false, recorder: recorder() });
      stream.show(replay);
      assert.equal(timers.pending(), 0);
      stream.show(session);
      timers.advance(1000);
      const c = clocks(sent);
      assert.equal(c.length, 1);
      assert.equal(timers.pending(), 1);
    });
  });

  it('a session that spilled: the snapshot carries the overview and the storage, deltas the storage; a damaged segment is one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-spill-'));
    try {
      const seg = new SegmentFile({ dir, maxBytes: 1 << 20, name: 's' });
      const rec = new TraceRecorder({ ...recorder().header(), cap: 20 }, 20, seg);
      const session = new InformerSession({ id: 'sp', kind: 'replay', title: 'spill', simulated: false, recorder: rec });
      for (let i = 0; i < 100; i++) rec.emit(i % 10 === 0 ? { t: i, type: 'relist', reason: 'Expired', row: 1, rv: String(i), consistent: true, text: 'x' } : { t: i, type: 'resync.timer', shouldResync: false });
      const timers = new ManualTimers();
      const sent: IpcMessage[] = [];
      const stream = new TimelineStream((m) => sent.push(m), () => [session.info()], 'none', timers, 33);
      stream.show(session);
      stream.onReady();
      const snap = sent[0];
      assert.ok(SnapshotNotification.is(snap));
      assert.equal(snap.params.spill?.exact.filter((e) => e.type === 'relist').length, 8, 'the spilled relists, whole');
      assert.deepEqual(snap.params.storage, { memoryEvents: rec.events().length, dropped: 0, disk: { events: seg.state().events, bytes: seg.state().bytes, maxBytes: 1 << 20 } });
      rec.emit({ t: 200, type: 'synced' });
      timers.advance(33);
      const delta = sent[1];
      assert.ok(DeltaNotification.is(delta));
      assert.equal(delta.params.storage?.disk?.events, seg.state().events);
      // The range of the first chunks, and the same read after the file was damaged.
      const range = await session.spilledColumns(0, 25);
      const seqs = [...new Float64Array(range.columns.columns.seq)];
      assert.ok(seqs.length > 0);
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i));
      writeFileSync(seg.state().path, 'not json\n'.repeat(200));
      await assert.rejects(session.spilledColumns(0, 25), /the spill segment .* is damaged/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
