import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunError } from '../../../src/app/errors';
import { findResource } from '../../../src/app/resources';
import { profileNamed } from '../../../src/app/profiles';
import type { InformerSession } from '../../../src/app/session';
import { configureSessions, createSession, startSandboxConnection } from '../../../src/app/sessions';
import { startWorkerSession } from '../../../src/app/workerSession';
import { ENGINE_WORKER_LIMITS } from '../../../src/app/workerLimits';
import { writeFileSync } from 'node:fs';
import type { RecordedEvent } from '../../../src/format/events';
import { parseScenarioText } from '../../../src/scenario/validate';
import { computeFindings } from '../../../src/trace/findings';
import { SummaryModel } from '../../../src/trace/summary';
import { importTrace } from '../../../src/trace/traceFile';
import { engineWorkerBundle } from '../../support/engineWorker';

const SCENARIOS = join(__dirname, '../../conformance/scenarios');
const scenario = (name: string) => parseScenarioText(readFileSync(join(SCENARIOS, `${name}.json`), 'utf8'), `${name}.json`);

/** Resolves when `pred` holds for the session's events (checked on every batch), or rejects after ms. */
function until(s: InformerSession, pred: (events: readonly RecordedEvent[]) => boolean, ms = 15000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pred(s.events())) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`not within ${ms} ms; last events: ${s.events().slice(-5).map((e) => e.type).join(', ')}`));
    }, ms);
    const off = s.subscribe(() => {
      if (!pred(s.events())) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

function ended(s: InformerSession): Promise<void> {
  return new Promise((resolve) => (s.live ? s.onEnded(resolve) : resolve()));
}

describe('app: sessions in an engine worker', function () {
  this.timeout(60_000);

  it('a replay runs in the worker: the host has every event, seqs contiguous, once the session comes back ended', async () => {
    const sc = scenario('gate-inorder-informers-unknown-to-v132');
    const s = await startWorkerSession('r1', 'replay', { kind: 'replay', scenario: sc, profile: 'v1.32' }, { simulated: false, workerFile: engineWorkerBundle(), batchMaxEvents: 5 });
    // The replay was finished when the session came back: nothing is live, every event is here.
    assert.equal(s.live, false);
    const seqs = s.events().map((e) => e.seq);
    assert.ok(seqs.length > 10, `only ${seqs.length} events`);
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i));
    assert.equal(s.header().source, 'scenario');
    assert.match(s.title, /replay, v1\.32/);
    // Summary and findings were computed in the worker; they match what the host would compute from the same events.
    const model = new SummaryModel();
    for (const e of s.events()) model.add(e);
    assert.deepEqual(s.summary(), model.snapshot());
    assert.deepEqual(s.findings(true), computeFindings(s.header(), s.events()));
    assert.equal(s.findings(), s.findings(), 'the same array until the worker sends new findings');
  });

  it('a live sandbox session shows list, watch and notifications through the worker; faults and the cache check go there and back; close() ends worker and sandbox', async () => {
    const { sandbox, conn } = await startSandboxConnection();
    const resource = await findResource(conn, 'pods');
    const s = await createSession('w1', { kind: 'sandbox', sandbox, conn, resource, profile: profileNamed('v1.36'), namespace: '' });
    try {
      assert.equal(s.live, true);
      assert.match(s.title, /SIMULATED/);
      await until(s, (ev) => ev.some((e) => e.type === 'notify') && ev.some((e) => e.type === 'watch.start'));
      assert.ok(s.engineNow()! > 0, 'the engine clock is readable on the host');
      s.controls!.injectFault('resetWatch');
      await until(s, (ev) => ev.some((e) => e.type === 'fault.injected' && e.fault === 'resetWatch'));
      const check = await s.controls!.checkConsistency();
      assert.equal(typeof check.cachedObjects, 'number');
    } finally {
      await s.close();
    }
    assert.equal(s.live, false);
    assert.equal(s.failure, undefined);
    await Promise.race([sandbox.stopped, new Promise((_, rej) => setTimeout(() => rej(new Error('the sandbox was not stopped with the session')), 3000))]);
    // The worker is gone: a call is refused at once.
    await assert.rejects(s.controls!.checkConsistency(), /ended/);
  });

  it('batches: with a long interval the worker sends exactly batchMaxEvents at a time', async () => {
    const { sandbox, conn } = await startSandboxConnection();
    const resource = await findResource(conn, 'pods');
    const spec = { kind: 'live' as const, kubeconfigYaml: conn.kubeconfigYaml(), resource, profile: profileNamed('v1.36'), namespace: '' };
    const s = await startWorkerSession('w1b', 'sandbox', spec, { simulated: true, workerFile: engineWorkerBundle(), batchMaxEvents: 5, batchIntervalMs: 60_000, onStopped: () => sandbox.stop() });
    const sizes: number[] = [];
    const off = s.subscribe((b) => sizes.push(b.length));
    try {
      await until(s, () => sizes.length >= 4);
      assert.deepEqual(sizes.slice(0, 4), [5, 5, 5, 5]);
      const seqs = s.events().map((e) => e.seq);
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i));
    } finally {
      off();
      await s.close();
    }
  });

  it('a long session through the worker spills past a tiny window: the export has every event, the tooltip numbers add up, close() deletes the segment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'worker-spill-'));
    const { sandbox, conn } = await startSandboxConnection();
    const resource = await findResource(conn, 'configmaps');
    const spec = { kind: 'live' as const, kubeconfigYaml: conn.kubeconfigYaml(), resource, profile: profileNamed('v1.36'), namespace: '' };
    const s = await startWorkerSession('w-spill', 'sandbox', spec, { simulated: true, workerFile: engineWorkerBundle(), cap: 20, spill: { dir, maxBytes: 1 << 24 }, onStopped: () => sandbox.stop() });
    try {
      await until(s, () => (s.storage()?.spill?.events ?? 0) > 20, 40_000);
      await s.stop();
      const st = s.storage()!;
      assert.ok(st.memoryEvents <= 20, `memory holds ${st.memoryEvents}`);
      assert.equal(st.dropped, 0);
      const out = join(dir, 'all.informer-trace.json');
      const n = await s.exportTo(out);
      const back = importTrace(readFileSync(out, 'utf8'));
      assert.equal(back.events.length, n);
      assert.equal(n, st.spill!.events + st.memoryEvents, 'segment + memory, nothing twice');
      assert.deepEqual(back.events.map((e) => e.seq), Array.from({ length: n }, (_, i) => i), 'every seq from 0, in order');
      assert.ok(existsSync(st.spill!.path));
      await s.close();
      assert.equal(existsSync(st.spill!.path), false, 'the segment is deleted when the session is closed');
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a crash in the worker ends the session with one line (failed), and the host goes on', async () => {
    const { sandbox, conn } = await startSandboxConnection();
    const resource = await findResource(conn, 'pods');
    const s = await createSession('w2', { kind: 'sandbox', sandbox, conn, resource, profile: profileNamed('v1.36'), namespace: '' });
    try {
      const done = ended(s);
      (s.controls as unknown as { crashForTest(): void }).crashForTest();
      await done;
      assert.equal(s.live, false);
      assert.match(s.failure ?? '', /crash requested by a test/);
      assert.ok(!s.failure!.includes('\n'), 'one line');
      assert.match(s.info().title, /\(failed\)$/);
    } finally {
      await s.close();
    }
  });

  describe('resource limits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ii-worker-limits-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const script = (name: string, onStart: string): string => {
      const file = join(dir, name);
      writeFileSync(file, `const { parentPort, resourceLimits } = require('node:worker_threads');\nparentPort.once('message', () => { ${onStart} });\n`);
      return file;
    };
    const spec = { kind: 'live' as const, kubeconfigYaml: '', resource: {} as never, profile: profileNamed('v1.36'), namespace: '' };

    it('the engine worker runs with ENGINE_WORKER_LIMITS (the limits it sees itself)', async () => {
      // The worker answers its start with a failure that carries the limits it was given.
      const file = script('limits.js', `parentPort.postMessage({ type: 'failed', message: JSON.stringify(resourceLimits) });`);
      await assert.rejects(startWorkerSession('l1', 'cluster', spec, { simulated: false, workerFile: file }), (e: Error) => {
        const seen = JSON.parse(e.message) as Record<string, number>;
        assert.equal(seen.maxOldGenerationSizeMb, ENGINE_WORKER_LIMITS.maxOldGenerationSizeMb);
        assert.equal(seen.maxYoungGenerationSizeMb, ENGINE_WORKER_LIMITS.maxYoungGenerationSizeMb);
        return true;
      });
    });

    it('sessions get the heap limit of the engineHeapLimitMB setting (configureSessions heapLimitMb)', async () => {
      const file = script('limits2.js', `parentPort.postMessage({ type: 'failed', message: JSON.stringify(resourceLimits) });`);
      const s = scenario('gate-inorder-informers-unknown-to-v132');
      configureSessions({ workerFile: file, heapLimitMb: 512 });
      try {
        await assert.rejects(createSession('l3', { kind: 'replay', scenario: s }), (e: Error) => {
          const seen = JSON.parse(e.message.slice(e.message.indexOf('{'))) as Record<string, number>;
          assert.equal(seen.maxOldGenerationSizeMb, 512);
          assert.equal(seen.maxYoungGenerationSizeMb, ENGINE_WORKER_LIMITS.maxYoungGenerationSizeMb);
          return true;
        });
      } finally {
        configureSessions({ workerFile: engineWorkerBundle, heapLimitMb: undefined });
      }
    });

    it('a worker that runs out of heap ends in one line that names the limit', async () => {
      const file = script('hog.js', `const keep = []; for (;;) keep.push(new Array(100000).fill(keep.length));`);
      await assert.rejects(
        startWorkerSession('l2', 'cluster', spec, { simulated: false, workerFile: file, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } }),
        (e: Error) => e instanceof RunError && /^the engine ran out of memory: its worker's heap is limited to 32 MB/.test(e.message) && !e.message.includes('\n'),
      );
    });
  });

  it('a worker that cannot start rejects with one RunError line', async () => {
    const bad = { kind: 'live' as const, kubeconfigYaml: 'not: [a kubeconfig', resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as never, profile: profileNamed('v1.36'), namespace: '' };
    await assert.rejects(startWorkerSession('w3', 'cluster', bad, { simulated: false, workerFile: engineWorkerBundle() }), (e: Error) => e instanceof RunError && !e.message.includes('\n'));
  });
});
