/**
 * The trace editor's relay of a trace's column blocks (src/vscode/traceParts.ts) and the snapshot
 * that names them (TimelineStream.prime(parts)): each block is posted, packed, to every page
 * attached, and replayed to one attached later while the trace is read; the snapshot names the
 * parts only for a page that got all of them and only when they are the whole trace — any other
 * page gets the columns as always, and so does every later snapshot.
 */
import { strict as assert } from 'node:assert';
import type { IpcMessage } from '../../../src/protocol/ipc';
import { SnapshotNotification, SnapshotPartNotification, SnapshotSentNotification } from '../../../src/protocol/timeline';
import { readTraceColumnsInBlocks, type BlockMessage } from '../../../src/app/traceBlocks';
import { InformerSession } from '../../../src/app/session';
import { exportTrace } from '../../../src/trace/traceFile';
import { PartsRelay } from '../../../src/vscode/traceParts';
import { TimelineStream } from '../../../src/vscode/timelineStream';
import { ManualTimers } from '../protocol/manualTimers';
import { header, numbered, SAMPLE_EVENTS } from '../trace/fixtures';

const events = numbered([...Object.values(SAMPLE_EVENTS), ...Object.values(SAMPLE_EVENTS)]);

function blocksOf(every: number): BlockMessage[] {
  const out: BlockMessage[] = [];
  assert.ok(readTraceColumnsInBlocks(new Uint8Array(Buffer.from(exportTrace({ header: header(), events }))), every, (b) => out.push(b)));
  return out;
}

describe('host: the trace editor relays the column blocks and the snapshot names them (traceParts, TimelineStream.prime)', () => {
  it('each block goes, packed and in order, to every page attached; a page attached later gets those sent so far; none after the end', () => {
    const blocks = blocksOf(10);
    assert.ok(blocks.length >= 3);
    const relay = new PartsRelay();
    const a: IpcMessage[] = [];
    const b: IpcMessage[] = [];
    const pageA = {};
    const pageB = {};
    relay.attach(pageA, (m) => a.push(m));
    relay.block(blocks[0]);
    relay.attach(pageB, (m) => b.push(m));
    for (const x of blocks.slice(1)) relay.block(x);
    for (const got of [a, b]) {
      assert.equal(got.length, blocks.length);
      got.forEach((m, i) => {
        assert.ok(SnapshotPartNotification.is(m));
        assert.equal(m.params.index, i);
        assert.equal(m.params.partsId, relay.id);
        assert.equal(m.params.from, blocks[i].from);
        assert.equal(m.params.columns.count, blocks[i].count);
      });
    }
    assert.deepEqual(relay.partsFor(pageA, events.length), { id: relay.id, blocks: blocks.length, count: events.length });
    assert.equal(relay.partsFor(pageA, events.length + 1), undefined, 'not the whole trace');
    assert.equal(relay.partsFor({}, events.length), undefined, 'a page that was not attached');
    relay.end();
    const late: IpcMessage[] = [];
    relay.attach({}, (m) => late.push(m));
    relay.block(blocks[0]);
    assert.equal(late.length, 0, 'nothing after the end');
    assert.equal(a.length, blocks.length);
  });

  it('blocks that stop short of the whole trace are named for no page', () => {
    const blocks = blocksOf(10);
    const relay = new PartsRelay();
    const page = {};
    relay.attach(page, () => undefined);
    for (const x of blocks.slice(0, -1)) relay.block(x);
    assert.equal(relay.partsFor(page, events.length), undefined);
  });

  it('the primed snapshot names the parts instead of carrying the columns; the next snapshot carries them', () => {
    const session = new InformerSession({ id: 's1', kind: 'import', title: 't', simulated: false, imported: { header: header(), events } });
    const sent: IpcMessage[] = [];
    const stream = new TimelineStream((m) => sent.push(m), () => [session.info()], 'nothing', new ManualTimers(), 33);
    stream.show(session);
    stream.prime({ id: 3, blocks: 2, count: events.length });
    assert.equal(sent.length, 1);
    assert.ok(SnapshotNotification.is(sent[0]));
    assert.deepEqual(sent[0].params.parts, { id: 3, blocks: 2, count: events.length });
    assert.equal(sent[0].params.columns, undefined, 'no columns: the page has them');
    assert.ok(sent[0].params.summary, 'the summary still comes with it');
    // The page refuses it (it does not hold the parts): ready, snapshotSent, ready again → the columns.
    stream.onReady();
    assert.ok(SnapshotSentNotification.is(sent[1]));
    stream.onReady();
    assert.ok(SnapshotNotification.is(sent[2]));
    assert.equal(sent[2].params.parts, undefined);
    assert.ok(sent[2].params.columns, 'a full snapshot');
    // Parts of another count are not named.
    const other: IpcMessage[] = [];
    const s2 = new TimelineStream((m) => other.push(m), () => [session.info()], 'nothing', new ManualTimers(), 33);
    s2.show(session);
    s2.prime({ id: 3, blocks: 2, count: events.length - 1 });
    assert.ok(SnapshotNotification.is(other[0]));
    assert.ok(other[0].params.columns);
    assert.equal(other[0].params.parts, undefined);
  });
});
