/**
 * A trace editor's first snapshot sent in parts (webview/snapshotParts.ts, the app's onPart and
 * onSnapshot): parts are taken in as they come while the page says "Loading… n %", nothing is drawn
 * or marked drawn from them; the snapshot that names them shows exactly what a snapshot with the
 * columns shows. A part out of order breaks the set (later parts are ignored) and the snapshot
 * naming it is refused (the page asks again); a failure after some parts (an `empty` message)
 * shows its message and holds nothing.
 */
import { strict as assert } from 'node:assert';
import { underDom } from './dom';
import { EmptyNotification, ReadyCommand, SnapshotNotification, SnapshotPartNotification, type SessionInfo, type SnapshotParts, type TimelineUiState } from '../../../src/protocol/timeline';
import type { IpcMessage } from '../../../src/protocol/ipc';
import type { RecordedEvent } from '../../../src/format/events';
import type { TraceHeader } from '../../../src/format/trace';
import { SummaryModel } from '../../../src/trace/summary';
import { COLUMN_NAMES, StringTable, allocateColumns, encodeBatch, encodeRows, type ColumnBatch, type ColumnName } from '../../../src/protocol/eventColumns';
import { DEFLATED_PACKING, PACKING, packColumns, type PackedColumns } from '../../../src/protocol/columnPack';
import { DEFLATE_FROM_BYTES, columnsOut, deflateColumns } from '../../../src/vscode/columnsOut';
import { DeltaNotification } from '../../../src/protocol/timeline';
import { inflateColumns } from '../../../webview/model/inflate';
import { cycleTrace } from './fixture';

type AppModule = typeof import('../../../webview/app');

const HEADER = { format: 'informer-trace/v1', profile: 'v1.36', resource: { group: '', version: 'v1', resource: 'configmaps' }, startedAt: '2026-01-01T00:00:00Z', source: 'scenario' } as unknown as TraceHeader;
const S: SessionInfo = { id: 's1', title: 'trace', live: false, simulated: false };

class FakeVsCode {
  readonly posted: IpcMessage[] = [];
  state: unknown;
  postMessage(msg: IpcMessage): void {
    this.posted.push(msg);
  }
  getState(): unknown {
    return this.state;
  }
  setState(s: TimelineUiState): void {
    this.state = s;
  }
  readies(): number {
    return this.posted.filter((m) => ReadyCommand.is(m)).length;
  }
}

/** The events in parts of `every` as the trace editor sends them: one string table, each part's new strings and rows. */
function partsOf(events: RecordedEvent[], every: number, partsId = 7) {
  const cols = allocateColumns(events.length);
  const strings = new StringTable();
  const extras: RecordedEvent[] = [];
  encodeRows(events, cols, strings, extras, 0, events.length);
  const out = [];
  let stringsFrom = 0;
  let extrasFrom = 0;
  // Each part's strings: those its rows name first (the table grew in row order).
  for (let from = 0, index = 0; from < events.length; from += every, index++) {
    const to = Math.min(events.length, from + every);
    const part = new StringTable();
    const partExtras: RecordedEvent[] = [];
    encodeRows(events, allocateColumns(events.length), part, partExtras, 0, to);
    const columns = {} as Record<ColumnName, ArrayBuffer>;
    for (const c of COLUMN_NAMES) columns[c] = cols[c].slice(from, to).buffer as ArrayBuffer;
    const batch: ColumnBatch = { count: to - from, columns, strings: part.strings.slice(stringsFrom), extras: partExtras.slice(extrasFrom) };
    out.push(SnapshotPartNotification.create({ partsId, index, from, total: events.length, stringsFrom, columns: packColumns(batch) }));
    stringsFrom = part.strings.length;
    extrasFrom = partExtras.length;
  }
  return out;
}

function snapshot(events: RecordedEvent[], parts?: SnapshotParts) {
  // As the host sends them: the parts named, or the columns packed (src/vscode/timelineStream.ts).
  const carried = parts ? { events: [], parts } : { events: [], columns: packColumns(encodeBatch(events)) };
  return SnapshotNotification.create({ session: S, snapshotId: 1, header: HEADER, ...carried, findings: [], sessions: [S], summary: SummaryModel.of(events).snapshot() });
}

const frames = () => new Promise((r) => setTimeout(r, 100));
/** Waits (up to 5 s) until `done` holds: inflating runs off the page's thread. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('webview app: a snapshot sent in parts (happy-dom)', () => {
  const mod = underDom(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('../../../webview/app') as AppModule;
  });
  const events = cycleTrace();
  const every = 9;

  function fresh() {
    const doc = (globalThis as unknown as { document: { createElement(t: string): HTMLElement; body: { append(e: HTMLElement): void } } }).document;
    const root = doc.createElement('div');
    doc.body.append(root);
    const vscode = new FakeVsCode();
    const app = new (mod().TimelineApp)(vscode, root as never);
    app.start();
    return { app, vscode, root };
  }
  const empty = (root: HTMLElement) => (root.querySelector('.empty') as HTMLElement | null)?.textContent ?? '';
  const chartHidden = (root: HTMLElement) => (root.querySelector('.chart') as HTMLElement).hidden;

  it('deflated parts and snapshot (a large trace) are taken once inflated, in the order they came, with the message after them; bytes that do not inflate are refused', async () => {
    const deflate = (m: IpcMessage) => {
      const params = m.params as { columns?: PackedColumns };
      return params.columns ? { ...m, params: { ...params, columns: deflateColumns(params.columns) } } : m;
    };
    const cut = events.length - 4;
    const head = events.slice(0, cut);
    const headParts = partsOf(head, every, 8);
    const again = fresh();
    // The parts deflated but for one plain one between them, the snapshot naming them and a delta right behind it: all handed over at once.
    headParts.forEach((p, i) => again.app.handle(i === 1 ? p : deflate(p)));
    again.app.handle(snapshot(head, { id: 8, blocks: headParts.length, count: head.length }));
    again.app.handle(DeltaNotification.create({ sessionId: S.id, afterSeq: head[head.length - 1].seq, events: events.slice(cut), live: false }));
    assert.equal(again.app.data.eventCount, 0, 'nothing is taken before the first part is inflated');
    await until(() => again.root.dataset.drawnEvents !== undefined);
    assert.equal(again.vscode.readies(), 1, 'the parts were taken');
    assert.equal(again.app.data.eventCount, events.length, 'the snapshot, then the delta after it');
    assert.equal(again.root.dataset.drawnEvents, String(cut), 'the snapshot drawn (a delta does not mark it)');
    const plain = fresh();
    plain.app.handle(snapshot(events));
    assert.deepEqual(again.app.data.allEvents(), plain.app.data.allEvents());
    // A deflated snapshot with its columns: the same; and one whose bytes do not inflate shows one message.
    const whole = fresh();
    whole.app.handle(deflate(snapshot(events)));
    await until(() => whole.root.dataset.drawnEvents !== undefined);
    assert.deepEqual(whole.app.data.allEvents(), plain.app.data.allEvents());
    const broken = fresh();
    const msg = deflate(snapshot(events));
    const cols = (msg.params as { columns: PackedColumns }).columns;
    (msg.params as { columns: PackedColumns }).columns = { ...cols, packed: new Uint8Array(cols.packed).map((b, i) => (i > 4 ? b ^ 0x55 : b)).buffer };
    broken.app.handle(msg);
    await until(() => /could not read/.test(empty(broken.root)));
    assert.equal(broken.app.data.eventCount, 0);
    assert.match(empty(broken.root), /could not read/);
  });

  it('the host deflates packed columns from 64 KiB on, once per batch; inflated they are the packed bytes', async () => {
    const small = encodeBatch(events);
    assert.equal(columnsOut(small).packing, PACKING, 'a small batch goes packed');
    const base = cycleTrace();
    const many = encodeBatch(Array.from({ length: 60_000 }, (_, i) => ({ ...base[i % base.length], seq: i, t: i * 3 }) as RecordedEvent));
    const packed = packColumns(many);
    assert.ok(packed.packed.byteLength >= DEFLATE_FROM_BYTES, `${packed.packed.byteLength} bytes packed`);
    const out = columnsOut(many);
    assert.equal(out.packing, DEFLATED_PACKING);
    assert.ok(out.packed.byteLength * 4 < packed.packed.byteLength, `${out.packed.byteLength} of ${packed.packed.byteLength} bytes`);
    assert.equal(columnsOut(many), out, 'deflated once');
    const back = await inflateColumns(out);
    assert.equal(back.packing, PACKING);
    assert.deepEqual(new Uint8Array(back.packed), new Uint8Array(packed.packed));
  });

  it('parts in order are taken in as they come, nothing drawn; the snapshot naming them shows what a snapshot with the columns shows', async () => {
    assert.ok(events.length > 3 * every);
    const parts = partsOf(events, every);
    const { app, vscode, root } = fresh();
    for (const p of parts.slice(0, 2)) app.handle(p);
    assert.equal(app.data.eventCount, 2 * every, 'the parts are held');
    assert.match(empty(root), /^Loading… \d+ %$/);
    assert.ok(chartHidden(root), 'nothing is shown from parts alone');
    await frames();
    assert.equal(root.dataset.drawnEvents, undefined, 'nothing is marked drawn from parts alone');
    for (const p of parts.slice(2)) app.handle(p);
    assert.equal(root.dataset.drawnEvents, undefined);
    app.handle(snapshot(events, { id: 7, blocks: parts.length, count: events.length }));
    assert.equal(vscode.readies(), 1, 'only the first ready: the parts were taken');
    await frames();
    assert.equal(root.dataset.drawnEvents, String(events.length));
    assert.ok(!chartHidden(root));

    const other = fresh();
    other.app.handle(snapshot(events));
    assert.equal(app.data.eventCount, other.app.data.eventCount);
    assert.deepEqual(app.data.allEvents(), other.app.data.allEvents(), 'the same events');
    assert.equal(app.data.marks.length, other.app.data.marks.length, 'the same marks');
    assert.deepEqual([...app.data.marks.columns.t.subarray(0, app.data.marks.length)], [...other.app.data.marks.columns.t.subarray(0, other.app.data.marks.length)]);
    assert.equal(root.querySelector('header')!.innerHTML, other.root.querySelector('header')!.innerHTML, 'the same header');
  });

  it('a part out of order breaks the set: the parts after it are ignored, the snapshot naming them is refused (ready again) and nothing is shown', async () => {
    const parts = partsOf(events, every);
    const { app, vscode, root } = fresh();
    app.handle(parts[0]);
    app.handle(parts[2]);
    assert.equal(app.data.eventCount, 0, 'a part that does not follow on clears what was held');
    app.handle(parts[1]);
    for (const p of parts.slice(3)) app.handle(p);
    assert.equal(app.data.eventCount, 0, 'a part after a failure is ignored');
    app.handle(snapshot(events, { id: 7, blocks: parts.length, count: events.length }));
    assert.equal(vscode.readies(), 2, 'the page asks for a full snapshot');
    assert.equal(app.currentSession, undefined);
    await frames();
    assert.equal(root.dataset.drawnEvents, undefined);
    // A snapshot naming parts of another set, or fewer than held, is refused too.
    const b = fresh();
    for (const p of parts) b.app.handle(p);
    b.app.handle(snapshot(events, { id: 8, blocks: parts.length, count: events.length }));
    assert.equal(b.vscode.readies(), 2);
    assert.equal(b.app.data.eventCount, 0);
    // The full snapshot that answers shows the trace.
    b.app.handle(snapshot(events));
    assert.equal(b.app.data.eventCount, events.length);
  });

  it('a failure after some parts (the file fails half way: an empty message) shows its message and holds nothing', async () => {
    const parts = partsOf(events, every);
    const { app, root } = fresh();
    for (const p of parts.slice(0, 3)) app.handle(p);
    app.handle(EmptyNotification.create({ message: 'Cannot open t.json: invalid trace file: schema violation at /events/40/type' }));
    assert.equal(app.data.eventCount, 0);
    assert.equal(empty(root), 'Cannot open t.json: invalid trace file: schema violation at /events/40/type');
    assert.ok(chartHidden(root));
    await frames();
    assert.equal(root.dataset.drawnEvents, undefined);
    // Parts that come while a session is shown are ignored.
    const shown = fresh();
    shown.app.handle(snapshot(events));
    shown.app.handle(parts[0]);
    assert.equal(shown.app.data.eventCount, events.length);
  });
});
