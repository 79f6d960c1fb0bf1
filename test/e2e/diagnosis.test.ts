/**
 * The diagnosis story end to end against a real kube-apiserver + etcd: the engine with the
 * project's HTTP ListerWatcher, wrapped in the FaultInjectingListerWatcher, recorded by a
 * TraceRecorder, and read back by the consistency check and the findings.
 *
 * - A lost delete: dropNextDelete swallows the DELETED of a ConfigMap the test deletes through
 *   the API; the cache keeps it, checkConsistency (a paginated consistent LIST, GET only) reports
 *   exactly that key as extra, and the stale-cache finding fires.
 * - Refused connections (the client's view of an apiserver restart) for 3 s: v1.15 relists and
 *   floods identical updates (refused-watch-relist, identical-updates-after-relist); v1.36 backs
 *   off and re-watches, and neither finding fires.
 *
 * The test writes with the admin user; the engine (user e2e-inspector) only reads, which the
 * audit log proves at the end. docs/findings.md lists what fired here.
 */
import { strict as assert } from 'node:assert';
import { RealClock } from '../../src/engine/clock';
import { findProfile } from '../../src/engine/profiles';
import { SharedIndexInformer } from '../../src/engine/sharedInformer';
import { HttpListerWatcher, KubeConnection } from '../../src/kube';
import { FaultInjectingListerWatcher } from '../../src/sources/faults';
import { checkConsistency } from '../../src/trace/consistency';
import { computeFindings } from '../../src/trace/findings';
import type { Finding } from '../../src/format/trace';
import { TraceRecorder } from '../../src/trace/recorder';
import type { RecordedEvent } from '../../src/format/events';
import { exportTrace, importTrace } from '../../src/trace/traceFile';
import { useCluster, type E2ECluster } from './cluster';
import { assertEngineOnlyGot, CONFIGMAPS, createConfigMaps, createNamespace, sleep, waitFor } from './helpers';

interface Diagnosed {
  informer: SharedIndexInformer;
  lw: FaultInjectingListerWatcher;
  recorder: TraceRecorder;
  clock: RealClock;
  of<T extends RecordedEvent['type']>(type: T, sinceSeq?: number): Extract<RecordedEvent, { type: T }>[];
  findings(): Finding[];
  stop(): Promise<void>;
}

function startDiagnosed(c: E2ECluster, profileName: string, namespace: string): Diagnosed {
  const profile = findProfile(profileName);
  if (!profile) throw new Error(`no profile ${profileName}`);
  const clock = new RealClock();
  const recorder = new TraceRecorder({
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: '0.1.0' },
    profile: profile.name,
    gates: { ...profile.gates },
    resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    namespace,
    context: 'e2e-inspector',
    source: 'cluster',
    startedAt: new Date().toISOString(),
    cap: 200_000,
    redacted: true,
  });
  const conn = KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml() });
  const lw = new FaultInjectingListerWatcher(new HttpListerWatcher(conn, CONFIGMAPS, { namespace, clock }), { clock, sink: recorder });
  const informer = new SharedIndexInformer({
    listerWatcher: lw,
    profile,
    clock,
    sink: recorder,
    typeDescription: '/v1, Kind=ConfigMap',
    name: `diagnosis-${profile.name}`,
  });
  informer.addEventHandler('main', {});
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const of = <T extends RecordedEvent['type']>(type: T, sinceSeq = -1) =>
    recorder.since(sinceSeq).filter((e): e is Extract<RecordedEvent, { type: T }> => e.type === type);
  return {
    informer,
    lw,
    recorder,
    clock,
    of,
    findings: () => computeFindings(recorder.header(), recorder.events()),
    async stop() {
      ac.abort();
      await running;
    },
  };
}

const ruleIds = (fs: readonly Finding[]) => fs.map((f) => f.id.split(':')[0]);
const lastSeq = (d: Diagnosed) => d.recorder.events().at(-1)?.seq ?? -1;

async function synced(d: Diagnosed, objects: number): Promise<void> {
  await waitFor(`sync of ${objects} objects`, () => d.informer.hasSynced() && d.informer.getIndexer().list().length === objects && d.informer.isIdle());
}

describe('e2e: diagnosis against kube-apiserver (lost delete, refused connections)', function () {
  this.timeout(180_000);
  const cluster = useCluster();
  const running: Diagnosed[] = [];
  const start = (...a: Parameters<typeof startDiagnosed>) => {
    const d = startDiagnosed(...a);
    running.push(d);
    return d;
  };
  afterEach(async () => {
    for (const d of running.splice(0)) await d.stop();
  });

  it('lost delete: the cache keeps a deleted ConfigMap, checkConsistency reports exactly it as extra, stale-cache fires', async () => {
    const c = cluster();
    await createNamespace(c, 'lost');
    await createConfigMaps(c, 'lost', 'cm', 6);
    const d = start(c, 'v1.36', 'lost');
    await synced(d, 6);

    d.lw.dropNextDelete();
    await c.adminOk('DELETE', '/api/v1/namespaces/lost/configmaps/cm-2');
    await waitFor('the DELETED event to be swallowed', () => d.of('fault.injected').some((e) => e.fault === 'dropNextDelete'));
    // The watch stays up and later events still arrive: only the delete was lost.
    await c.adminOk('DELETE', '/api/v1/namespaces/lost/configmaps/cm-4');
    await waitFor('the second delete to reach the cache', () => d.informer.getIndexer().list().length === 5);
    assert.deepEqual(d.lw.pendingFaults(), []);
    assert.ok(d.informer.getIndexer().listKeys().includes('lost/cm-2'), 'the deleted object is still cached');

    const result = await checkConsistency({
      listerWatcher: d.lw,
      cache: d.informer.getIndexer(),
      clock: d.clock,
      sink: d.recorder,
      lastSyncResourceVersion: () => d.informer.lastSyncResourceVersion(),
      catchUpMs: 3000,
      confirmDelayMs: 1000,
    });
    assert.deepEqual(result.extra, ['lost/cm-2']);
    assert.deepEqual(result.missing, []);
    assert.deepEqual(result.rvMismatch, []);
    assert.equal(result.serverObjects, 4);
    assert.equal(result.cachedObjects, 5);

    const stale = d.findings().filter((f) => f.id.startsWith('stale-cache'));
    assert.equal(stale.length, 1, JSON.stringify(d.findings().map((f) => f.id)));
    assert.equal(stale[0].severity, 'error');
    assert.match(stale[0].detail, /lost\/cm-2/);
    assert.match(stale[0].detail, /dropped on purpose by fault injection/);
    const evidenceTypes = stale[0].evidence.map((s) => d.recorder.events().find((e) => e.seq === s)?.type);
    assert.deepEqual(evidenceTypes, ['fault.injected', 'consistency.check']);
    // The exported trace carries the diagnosis: imported again, it gives the same findings.
    const reread = importTrace(exportTrace(d.recorder));
    assert.deepEqual(computeFindings(reread.header, reread.events), d.findings());
    if (process.env.E2E_PRINT_FINDINGS === '1') console.log(`      findings (lost delete, v1.36): ${d.findings().map((f) => f.id).join(', ')}`);
  });

  it('refused connections for 3 s: v1.15 relists with identical updates and both findings fire; v1.36 re-watches and neither does', async () => {
    const c = cluster();
    await createNamespace(c, 'refused-old');
    await createNamespace(c, 'refused-new');
    await createConfigMaps(c, 'refused-old', 'cm', 12);
    await createConfigMaps(c, 'refused-new', 'cm', 12);
    const v115 = start(c, 'v1.15', 'refused-old');
    const v136 = start(c, 'v1.36', 'refused-new');
    await synced(v115, 12);
    await synced(v136, 12);
    await sleep(1_500); // the open watches are not "very short" (< 1 s) when they end
    const since115 = lastSeq(v115);
    const since136 = lastSeq(v136);
    const refusedUntil = Date.now() + 3_000;
    v115.lw.refuseConnections(3_000);
    v136.lw.refuseConnections(3_000);

    await waitFor(
      'v1.15 to relist after the window and hand every object over again',
      () => v115.of('list.done', since115).length >= 1 && v115.of('distribute', since115).filter((e) => e.op === 'update').length >= 12 && v115.informer.isIdle(),
      30_000,
    );
    await waitFor('v1.36 to re-watch after the window', () => Date.now() > refusedUntil && v136.of('watch.start', since136).length >= 1, 30_000);
    await sleep(500);

    const relists115 = v115.of('relist', since115);
    assert.ok(relists115.some((e) => e.reason === 'ConnectionRefused' && e.row === 6), JSON.stringify(relists115));
    const updates115 = v115.of('distribute', since115).filter((e) => e.op === 'update');
    assert.deepEqual(updates115.filter((u) => u.change !== 'identical'), [], 'every relisted object is an identical update');
    const found115 = ruleIds(v115.findings());
    assert.ok(found115.includes('refused-watch-relist'), found115.join(', '));
    assert.ok(found115.includes('identical-updates-after-relist'), found115.join(', '));

    assert.equal(v136.of('relist', since136).length, 0);
    assert.equal(v136.of('list.start', since136).length, 0);
    assert.ok(v136.of('watch.end', since136).some((e) => e.row === 6 && e.outcome === 'rewatch-after-backoff'));
    assert.equal(v136.of('distribute', since136).filter((e) => e.op === 'update').length, 0);
    const found136 = ruleIds(v136.findings());
    for (const id of ['refused-watch-relist', 'identical-updates-after-relist', 'relist-storm']) assert.ok(!found136.includes(id), found136.join(', '));
    // Both caches still match the server.
    for (const [d, ns] of [[v115, 'refused-old'], [v136, 'refused-new']] as const) {
      const fresh = await c.consistentList(`/api/v1/namespaces/${ns}/configmaps`);
      assert.equal(d.informer.getIndexer().list().length, fresh.items.length);
    }
    if (process.env.E2E_PRINT_FINDINGS === '1') console.log(`      findings v1.15: ${v115.findings().map((f) => f.id).join(', ')}; v1.36: ${v136.findings().map((f) => f.id).join(', ') || 'none'}`);
  });

  it('the engine and the consistency check sent nothing but GET requests (audit log)', () => {
    assertEngineOnlyGot(cluster());
  });
});
