import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RunError } from '../../../src/app/errors';
import { findResource } from '../../../src/app/resources';
import { profileNamed } from '../../../src/app/profiles';
import type { InformerSession } from '../../../src/app/session';
import { startSandboxConnection } from '../../../src/app/sessions';
import { answerSpillCall, encodeInSlices } from '../../../src/app/spillRead';
import { endIdleSpillReaders, readSpillInWorker, startWorkerSession } from '../../../src/app/workerSession';
import type { RecordedEvent } from '../../../src/format/events';
import { decodeBatch, diffForSeq, encodeBatch } from '../../../src/protocol/eventColumns';
import { readSegment } from '../../../src/trace/segments';
import { parseScenarioText } from '../../../src/scenario/validate';
import { engineWorkerBundle } from '../../support/engineWorker';

/** A replay of one LIST and `updates` MODIFIED events that change a ConfigMap's data (so distribute events carry diffs). */
function updatesScenario(updates: number) {
  let rv = 100;
  const obj = (i: number, r: number) => ({ metadata: { namespace: 'default', name: `cm-${i}`, resourceVersion: String(r) }, data: { v: String(r) } });
  const items = Array.from({ length: 5 }, (_, i) => obj(i, rv++));
  const events = Array.from({ length: updates }, (_, k) => ({ type: 'MODIFIED', atMs: (k + 1) * 10, object: obj(k % 5, ++rv) }));
  const text = JSON.stringify({
    format: 'informer-scenario/v1',
    name: 'spill-read',
    resource: { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
    informer: { resyncPeriodMs: 0, handlers: [{ name: 'main' }] },
    gates: { WatchListClient: false },
    profiles: ['v1.36'],
    steps: [
      { on: 'list', resourceVersion: String(rv), items },
      { on: 'watch', events, durationMs: (updates + 2) * 10, close: 'eof' },
    ],
  });
  return parseScenarioText(text, 'spill-read.json');
}

async function segmentEvents(path: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of readSegment(path)) out.push(e);
  return out;
}

function asCols(a: unknown) {
  return (a as { columns: Parameters<typeof decodeBatch>[0] }).columns;
}

function until(pred: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (pred()) resolve();
      else if (Date.now() > end) reject(new Error(`not within ${ms} ms`));
      else setTimeout(tick, 50);
    };
    tick();
  });
}

describe('app: spilled events are read off the host thread (spillRead.ts)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spill-read-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A replay of 150 updates in a worker with a 40-event window: it has ended (its worker is gone) and most of it is on disk. */
  const endedReplay = (id: string) =>
    startWorkerSession(id, 'replay', { kind: 'replay', scenario: updatesScenario(150), profile: 'v1.36' }, { simulated: false, workerFile: engineWorkerBundle(), cap: 40, spill: { dir, maxBytes: 1 << 24 } });

  it('encodeInSlices makes the same batch as encodeBatch, however small its slices', async () => {
    const events: RecordedEvent[] = Array.from({ length: 5000 }, (_, i) =>
      i % 7 === 0
        ? { seq: i, t: i * 2, type: 'log', level: 'v3', msg: `line ${i}`, kv: {} }
        : { seq: i, t: i * 2, type: 'notify', handler: i % 2 ? 'main' : 'audit', op: 'update', key: `ns/p${i % 13}`, rv: String(100 + i), isSync: false, pending: i % 5 },
    ) as RecordedEvent[];
    const whole = encodeBatch(events);
    for (const sliceMs of [0, 1000]) {
      const sliced = await encodeInSlices(events, sliceMs);
      assert.equal(sliced.count, whole.count);
      assert.deepEqual(sliced.strings, whole.strings);
      assert.deepEqual(sliced.extras, whole.extras);
      for (const name of Object.keys(whole.columns) as (keyof typeof whole.columns)[]) assert.deepEqual(new Uint8Array(sliced.columns[name]), new Uint8Array(whole.columns[name]), name);
    }
    assert.deepEqual(decodeBatch(await encodeInSlices(events, 0))!.map((e) => e.seq), events.map((e) => e.seq));
  });

  it('an ended session (its worker gone): a reader worker returns the range as columns and a spilled diff, the same as read here', async () => {
    const s = await endedReplay('r');
    try {
      assert.equal(s.live, false);
      const spill = s.storage()!.spill!;
      assert.ok(spill.events > 100, `only ${spill.events} spilled`);
      const onDisk = await segmentEvents(spill.path);
      const all = await s.spilledColumns(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
      assert.equal(all.complete, true);
      assert.deepEqual(decodeBatch(all.columns), decodeBatch((await answerSpillCall(spill, { op: 'spilledRange', t0: -Infinity, t1: Infinity }) as { columns: never }).columns));
      assert.deepEqual(decodeBatch(all.columns)!.map((e) => e.seq), onDisk.map((e) => e.seq));
      // A range inside the second chunk returns that chunk whole.
      const c = spill.chunks[1];
      const part = await s.spilledColumns(c.t0, c.t1);
      const partSeqs = decodeBatch(part.columns)!.map((e) => e.seq);
      assert.ok(partSeqs.includes(c.firstSeq) && partSeqs.includes(c.lastSeq), 'the chunk is whole');
      // The diff of a spilled update is answered by the reader, as diffForSeq over the file says.
      const withDiff = onDisk.find((e) => e.type === 'distribute' && (e.diff?.length ?? 0) > 0);
      assert.ok(withDiff, 'the segment holds an update with a diff');
      const diff = await s.diffFor(withDiff.seq);
      assert.ok(diff && diff.length > 0);
      assert.deepEqual(diff, diffForSeq(onDisk, withDiff.seq));
    } finally {
      await s.close();
    }
  });

  it('the reads of an ended session in a row go to the reader that answered the last one; endIdleSpillReaders ends it', async () => {
    const s = await endedReplay('r3');
    try {
      const spill = s.storage()!.spill!;
      // A reader script that notes each start, then is the real reader; the engine worker path only names its folder.
      const workers = join(dir, 'workers');
      mkdirSync(workers);
      const startsLog = join(dir, 'starts.log');
      const real = join(dirname(engineWorkerBundle()), 'spillReaderWorker.js');
      writeFileSync(join(workers, 'spillReaderWorker.js'), `require('node:fs').appendFileSync(${JSON.stringify(startsLog)}, 'start\\n');\nrequire(${JSON.stringify(real)});\n`);
      const engine = join(workers, 'engineWorker.js');
      const starts = () => readFileSync(startsLog, 'utf8').split('\n').filter(Boolean).length;
      const call = { op: 'spilledRange' as const, t0: -Infinity, t1: Infinity };
      endIdleSpillReaders();
      const first = decodeBatch(asCols(await readSpillInWorker(spill, call, engine)));
      for (let i = 0; i < 3; i++) assert.deepEqual(decodeBatch(asCols(await readSpillInWorker(spill, call, engine))), first);
      assert.equal(starts(), 1, 'four reads in a row, one reader');
      // Two at once: the waiting reader takes one, a new one the other; one of them waits after.
      const both = await Promise.all([readSpillInWorker(spill, call, engine), readSpillInWorker(spill, call, engine)]);
      assert.deepEqual(both.map((a) => decodeBatch(asCols(a))), [first, first]);
      assert.equal(starts(), 2);
      assert.equal(endIdleSpillReaders(), 1);
      assert.equal(endIdleSpillReaders(), 0);
      await readSpillInWorker(spill, call, engine);
      assert.equal(starts(), 3, 'once ended, the next read starts a reader');
      endIdleSpillReaders();
    } finally {
      await s.close();
    }
  });

  it('a segment truncated or deleted under an ended session: one clear line (a RunError), nothing thrown into the host', async () => {
    const s = await endedReplay('r2');
    try {
      const spill = s.storage()!.spill!;
      truncateSync(spill.path, Math.floor(spill.bytes / 2));
      const oneLine = (re: RegExp) => (e: Error) => e instanceof RunError && re.test(e.message) && !e.message.includes('\n');
      await assert.rejects(s.spilledColumns(-Infinity, Infinity), oneLine(/spill segment .* is shorter than its index/));
      rmSync(spill.path);
      await assert.rejects(s.spilledColumns(-Infinity, Infinity), oneLine(/spill segment .* is gone/));
      await assert.rejects(s.diffFor(spill.chunks[0].firstSeq), oneLine(/spill segment .* is gone/));
      // A reader given a bad state answers with its line as well.
      await assert.rejects(readSpillInWorker({ ...spill, path: join(dir, 'nothing-here') }, { op: 'spilledRange', t0: 0, t1: 1e12 }, engineWorkerBundle()), oneLine(/is gone/));
    } finally {
      await s.close();
    }
  });

  it('a live session: its engine worker answers the read; a segment deleted under it is one line and the session runs on', async () => {
    const { sandbox, conn } = await startSandboxConnection();
    const resource = await findResource(conn, 'configmaps');
    const spec = { kind: 'live' as const, kubeconfigYaml: conn.kubeconfigYaml(), resource, profile: profileNamed('v1.36'), namespace: '' };
    const s: InformerSession = await startWorkerSession('w', 'sandbox', spec, { simulated: true, workerFile: engineWorkerBundle(), cap: 20, spill: { dir, maxBytes: 1 << 24 }, onStopped: () => sandbox.stop() });
    try {
      await until(() => (s.storage()?.spill?.chunks.length ?? 0) >= 3, 40_000);
      const spill = s.storage()!.spill!;
      const first = spill.chunks[0];
      const r = await s.spilledColumns(first.t0, first.t0);
      const seqs = decodeBatch(r.columns)!.map((e) => e.seq);
      assert.equal(seqs[0], first.firstSeq);
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => first.firstSeq + i), 'contiguous seqs from the first chunk');
      const onDisk = (await segmentEvents(spill.path)).slice(0, seqs.length);
      assert.deepEqual(decodeBatch(r.columns), decodeBatch((await answerSpillCall(spill, { op: 'spilledRange', t0: first.t0, t1: first.t0 }) as { columns: never }).columns));
      assert.deepEqual(onDisk.map((e) => e.seq), seqs);
      rmSync(spill.path);
      await assert.rejects(s.spilledColumns(first.t0, first.t0), (e: Error) => e instanceof RunError && /spill segment .* is gone/.test(e.message));
      assert.equal(s.live, true, 'the session runs on');
      const before = s.events().length > 0 ? s.events()[s.events().length - 1].seq : -1;
      await until(() => s.events().length > 0 && s.events()[s.events().length - 1].seq > before, 20_000);
    } finally {
      await s.close();
    }
  });
});
