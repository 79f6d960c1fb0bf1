import { strict as assert } from 'node:assert';
import type { IpcMessage } from '../../../src/protocol/ipc';
import { DeltaNotification, EmptyNotification, SnapshotNotification } from '../../../src/protocol/timeline';
import { TraceRecorder } from '../../../src/trace/recorder';
import { InformerSession } from '../../../src/vscode/session';
import { TimelineStream, type StreamTimers } from '../../../src/vscode/timelineStream';

/** Timers driven by hand: advance(ms) runs what is due. */
class ManualTimers implements StreamTimers {
  t = 0;
  private queue: { at: number; fn: () => void; live: boolean }[] = [];
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): () => void {
    const entry = { at: this.t + ms, fn, live: true };
    this.queue.push(entry);
    return () => (entry.live = false);
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.queue.filter((q) => q.live && q.at <= this.t);
    this.queue = this.queue.filter((q) => !due.includes(q));
    for (const q of due) q.fn();
  }
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

function setup() {
  const timers = new ManualTimers();
  const rec = recorder();
  let stopped = false;
  const session = new InformerSession({ id: 's1', title: 'configmaps', simulated: true, recorder: rec, stop: async () => void (stopped = true), now: () => timers.t });
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
    assert.deepEqual(sent[0].params.events.map((e) => e.seq), [0]);
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
    assert.equal(sent[1].params.events.length, 1);
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
});
