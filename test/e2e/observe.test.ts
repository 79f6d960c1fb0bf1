/**
 * Observe your own controller, end to end: a real Go controller (client-go v0.36, two informers
 * from a SharedInformerFactory: ConfigMaps and Secrets, handlers logging every notification as
 * NDJSON) runs with the kubeconfig the observing proxy writes, against a real kube-apiserver +
 * etcd. Between the proxy and the apiserver sits the TCP fault proxy, so the upstream can reset
 * and refuse. While the test writes objects, resets connections, refuses, lets etcd compact and
 * restarts the apiserver, the reconstruction must produce, for each informer, per key and in
 * order, exactly the notifications the controller's handlers logged; its relists must match the
 * process's; Secret data must appear nowhere; and the audit log must show no request of the
 * upstream user that the controller did not send.
 */
import { strict as assert } from 'node:assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findProfile } from '../../src/engine/profiles';
import { KubeConnection } from '../../src/kube';
import type { ObservedLogLine } from '../../src/observe/reconstruct';
import type { ProxyNotice } from '../../src/observe/exchange';
import { Reconstructor } from '../../src/observe/reconstruct';
import { ObserveSession, profileFromGoMod } from '../../src/observe/session';
import { useCluster, type E2ECluster } from './cluster';
import { FaultProxy } from './faultProxy';
import { cmBody, createNamespace, readNdjsonLines, sleep, waitFor } from './helpers';

const HERE = path.join(__dirname, 'observe');
const CONTROLLER = path.join(HERE, 'bin', 'v1.36', 'controller');
const CONTROLLER_115 = path.join(HERE, 'bin', 'v1.15', 'controller');
const QUIET = ['--feature-gates=APIServerIdentity=false,UnknownVersionInteroperabilityProxy=false', '--endpoint-reconciler-type=none'];
/** Secret payloads the test writes; none may appear in a trace or log. */
const SECRET_VALUES = ['observe-e2e-secret-payload-41f3', 'observe-e2e-second-secret-9c2d'];

interface NotifyLine {
  kind: string;
  informer?: string;
  reflector?: string;
  op?: string;
  key?: string;
  rv?: string;
  oldRv?: string;
  initialList?: boolean;
  tombstone?: boolean;
}

function buildController(): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('bash', [path.join(HERE, 'build.sh')], { timeout: 20 * 60_000 }, (err, _o, stderr) =>
      err ? reject(new Error(`building the observe controller failed: ${err.message}\n${stderr}`)) : resolve(),
    ),
  );
}

const readNdjson = (file: string): NotifyLine[] => readNdjsonLines<NotifyLine>(file);

/** Per key, the notifications in order, in one comparable text each. */
function perKey(lines: NotifyLine[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const l of lines) {
    if (l.kind !== 'notify') continue;
    const text = [l.op, `rv=${l.rv}`, l.op === 'update' ? `old=${l.oldRv}` : '', l.op === 'add' ? `initial=${!!l.initialList}` : '', l.tombstone ? 'tombstone' : '']
      .filter(Boolean)
      .join(' ');
    const list = m.get(l.key ?? '') ?? [];
    list.push(text);
    m.set(l.key ?? '', list);
  }
  return m;
}

function secretB64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

describe('e2e: observe a real Go controller through the observing proxy', function () {
  this.timeout(300_000);
  const cluster = useCluster({ apiserverFlags: [...QUIET, '--watch-cache-sizes=configmaps#0', '--etcd-compaction-interval=2s'] });
  let dir: string;
  let fault: FaultProxy;
  let session: ObserveSession | undefined;
  let controller: ChildProcess | undefined;
  const notices: ProxyNotice[] = [];
  const stderr: Buffer[] = [];
  const forwarded: { method: string; uri: string }[] = [];
  const lines: ObservedLogLine[] = [];

  before(async function () {
    this.timeout(30 * 60_000);
    await buildController();
    dir = mkdtempSync(path.join(tmpdir(), 'ii-observe-e2e-'));
  });

  after(async function () {
    this.timeout(60_000);
    if (controller && controller.exitCode === null) controller.kill('SIGTERM');
    await session?.stop().catch(() => undefined);
    await fault?.close().catch(() => undefined);
    if (dir && process.env.KEEP_E2E_CLUSTER !== '1') rmSync(dir, { recursive: true, force: true });
  });

  async function startAll(c: E2ECluster, ns: string): Promise<void> {
    fault = new FaultProxy({ host: '127.0.0.1', port: c.port });
    await fault.listen();
    const conn = KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml({ server: `https://127.0.0.1:${fault.port}` }) });
    session = await ObserveSession.start({
      conn,
      profile: findProfile('v1.36')!,
      onLine: (l) => lines.push(l),
      onNotice: (n) => notices.push(n),
      onForward: (f) => forwarded.push(f),
    });
    const kubeconfig = path.join(dir, 'observed.kubeconfig');
    writeFileSync(kubeconfig, session.proxy.kubeconfigYaml(), { mode: 0o600 });
    controller = spawn(CONTROLLER, ['--namespace', ns, '--log', path.join(dir, 'controller.ndjson')], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    controller.stderr?.on('data', (b: Buffer) => stderr.push(b));
    controller.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(`controller exited ${code}: ${Buffer.concat(stderr).toString().slice(-2000)}`);
    });
  }

  const controllerLog = () => readNdjson(path.join(dir, 'controller.ndjson'));
  const observed = (resource: string) => lines.filter((l) => l.reflector.startsWith(`${resource}.v1 `)) as unknown as NotifyLine[];

  it('reconstructs both informers of the controller: notifications per key and in order, relists, no Secret data, no extra requests', async () => {
    const c = cluster();
    const ns = 'observed';
    await createNamespace(c, ns);
    for (let i = 0; i < 5; i++) await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, `cm-${i}`));
    await c.adminOk('POST', `/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: ns },
      data: { password: secretB64(SECRET_VALUES[0]) },
    });
    const auditFrom = c.auditEvents().length;
    await startAll(c, ns);
    await waitFor('the controller synced', () => controllerLog().some((l) => l.kind === 'synced'), 60_000);

    // Writes seen by watch.
    const cm0 = await c.adminOk<any>('GET', `/api/v1/namespaces/${ns}/configmaps/cm-0`);
    await c.adminOk('PUT', `/api/v1/namespaces/${ns}/configmaps/cm-0`, { ...cm0, data: { v: '1' } });
    await c.adminOk('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm-1`);
    await c.adminOk('POST', `/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'api', namespace: ns },
      stringData: { token: SECRET_VALUES[1] },
    });
    await sleep(1_500);

    // The upstream resets every connection: the controller's watches are reset through the proxy.
    fault.cutAll('reset');
    await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'after-reset'));
    await sleep(2_000);

    // The upstream refuses for a while (the proxy stops listening), and etcd compacts meanwhile:
    // deletes made now reach the controller through a relist, as tombstones.
    await fault.stopListening();
    fault.cutAll('reset');
    for (let i = 2; i < 4; i++) await c.adminOk('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm-${i}`);
    await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'during-refusal'));
    await sleep(5_000); // > 2 compaction intervals
    await fault.listen();
    await sleep(3_000);

    // The apiserver restarts.
    await c.restartApiserver();
    await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'after-restart'));
    await c.adminOk('DELETE', `/api/v1/namespaces/${ns}/secrets/db`);

    // Both sides have seen the last writes.
    const lastKeys = [`${ns}/after-restart`];
    await waitFor('the controller saw the last writes', () => lastKeys.every((k) => controllerLog().some((l) => l.key === k)) && controllerLog().some((l) => l.key === `${ns}/db` && l.op === 'delete'), 90_000).catch((e) => {
      throw new Error(`${(e as Error).message}\ncontroller stderr: ${Buffer.concat(stderr).toString().slice(-3000)}\nnotices: ${JSON.stringify(notices.slice(-10))}`);
    });
    await waitFor(
      'the reconstruction caught up',
      () => {
        for (const inf of ['configmaps', 'secrets']) {
          const want = perKey(controllerLog().filter((l) => l.informer === inf));
          const got = perKey(observed(inf));
          if (JSON.stringify([...want].sort()) !== JSON.stringify([...got].sort())) return false;
        }
        return true;
      },
      30_000,
    ).catch(() => undefined);

    controller!.kill('SIGTERM');
    await waitFor('the controller exited', () => controller!.exitCode !== null || controller!.signalCode !== null, 20_000);
    await session!.stop();

    // Kept for a look when something fails (KEEP_E2E_CLUSTER=1 keeps the directory).
    writeFileSync(path.join(dir, 'observed.ndjson'), session!.logText());
    for (const f of session!.traceFiles(path.join(dir, 'trace.json'))) writeFileSync(f.path, f.text);

    // 1. Notifications per informer, per key, in order.
    for (const inf of ['configmaps', 'secrets']) {
      const want = perKey(controllerLog().filter((l) => l.informer === inf));
      const got = perKey(observed(inf));
      assert.ok(want.size > 0, `the controller logged ${inf} notifications`);
      assert.deepEqual(Object.fromEntries([...got].sort()), Object.fromEntries([...want].sort()), `${inf}: reconstructed notifications differ from the controller's`);
    }
    const cmWant = perKey(controllerLog().filter((l) => l.informer === 'configmaps'));
    assert.ok((cmWant.get(`${ns}/cm-2`) ?? []).some((t) => t.includes('tombstone')), `deletes during the refusal arrive as tombstones: ${JSON.stringify(cmWant.get(`${ns}/cm-2`))}`);

    // 2. Relists: the reconstructed reflector relisted exactly when the process re-synced.
    const summary = session!.summary();
    assert.equal(summary.reflectors.length, 2, summary.reflectors.map((r) => r.reflector).join(', '));
    for (const r of session!.reconstructor.reflectors()) {
      const ev = r.recorder.events();
      const relists = ev.filter((e) => e.type === 'relist') as Array<{ reason: string; row: number }>;
      const syncRequests = r.lines.filter((l) => l.kind === 'request' && (l.verb === 'list' ? !l.continue : !!l.sendInitialEvents));
      // Each ListAndWatch after the first is one relist; a LIST fallback from a refused watch-list is part of the same one.
      const fallbacks = ev.filter((e) => e.type === 'watchlist.fallback').length;
      assert.equal(relists.length, syncRequests.length - 1 - fallbacks, `${r.name}: relists ${JSON.stringify(relists)} vs ${syncRequests.length} sync requests`);
      assert.deepEqual(r.findings, [], `${r.name}: the controller did what client-go v1.36 predicts`);
      console.log(`      ${r.name}: ${r.requests} requests, ${r.notifications} notifications, relists: ${relists.map((x) => `${x.reason}(row ${x.row})`).join(', ') || 'none'}`);
    }
    assert.ok(
      session!.reconstructor.reflectors().some((r) => r.recorder.events().some((e) => e.type === 'relist')),
      'the refusal + compaction made at least one informer relist',
    );

    // 3. Secret data appears nowhere.
    const outputs = [session!.logText(), ...session!.traceFiles(path.join(dir, 'trace.json')).map((f) => f.text), JSON.stringify(notices)].join('\n');
    for (const s of SECRET_VALUES) {
      assert.ok(!outputs.includes(s), 'a Secret payload reached a trace or log');
      assert.ok(!outputs.includes(secretB64(s)), 'a base64 Secret payload reached a trace or log');
    }
    assert.ok(!outputs.includes(session!.proxy.token), 'the proxy token reached a trace or log');

    // 4. Every request of the upstream user in the audit log is one the controller sent.
    const audit = c
      .auditEvents()
      .slice(auditFrom)
      .filter((e) => e.user?.username === 'e2e-inspector' && e.stage === 'ResponseStarted' || (e.user?.username === 'e2e-inspector' && e.stage === 'ResponseComplete'));
    const byId = new Map<string, string>();
    for (const e of audit) byId.set((e as unknown as { auditID: string }).auditID, e.requestURI);
    const sent = new Map<string, number>();
    for (const f of forwarded) sent.set(f.uri, (sent.get(f.uri) ?? 0) + 1);
    const extra: string[] = [];
    for (const uri of byId.values()) {
      const n = sent.get(uri) ?? 0;
      if (n === 0) extra.push(uri);
      else sent.set(uri, n - 1);
    }
    assert.deepEqual(extra, [], 'the audit log shows requests the controller did not send');
    assert.ok(byId.size > 0 && byId.size <= forwarded.length, `${byId.size} audited vs ${forwarded.length} forwarded`);
    console.log(`      proxy: ${summary.proxy.forwarded} forwarded, ${summary.proxy.observed} observed, ${summary.proxy.cut} cut; audit: ${byId.size} requests of the upstream user`);
    console.log(`      notices: ${notices.map((n) => n.kind).join(', ')}`);
  });

  it('bad input: a wrong token gets 401 and nothing is forwarded; a protobuf-only client keeps working, is reported and not reconstructed', async () => {
    const c = cluster();
    const ns = 'badinput';
    await createNamespace(c, ns);
    await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'x'));
    const auditFrom = c.auditEvents().length;
    const conn = KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml() });
    const seenNotices: ProxyNotice[] = [];
    const s = await ObserveSession.start({ conn, profile: findProfile('v1.36')!, onNotice: (n) => seenNotices.push(n) });
    const run = (kubeconfig: string, log: string, extra: string[]) =>
      spawn(CONTROLLER, ['--namespace', ns, '--log', log, ...extra], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: 'ignore' });
    try {
      // A wrong token: every request is refused by the proxy and nothing reaches the apiserver.
      const wrong = path.join(dir, 'wrong.kubeconfig');
      writeFileSync(wrong, s.proxy.kubeconfigYaml().replace(s.proxy.token, 'not-the-token'), { mode: 0o600 });
      const wrongLog = path.join(dir, 'wrong.ndjson');
      const p1 = run(wrong, wrongLog, []);
      await waitFor('refused requests', () => s.proxy.stats.unauthorized >= 2, 20_000);
      p1.kill('SIGTERM');
      assert.equal(s.proxy.stats.forwarded, 0);
      assert.equal(readNdjson(wrongLog).filter((l) => l.kind === 'notify').length, 0);
      assert.ok(seenNotices.every((n): boolean => n.kind === 'unauthorized'));
      assert.equal(c.auditEvents().slice(auditFrom).filter((e) => e.user?.username === 'e2e-inspector').length, 0, 'nothing was forwarded to the apiserver');

      // Protobuf only: forwarded unchanged (the controller works), reported, not reconstructed.
      const ok = path.join(dir, 'ok.kubeconfig');
      writeFileSync(ok, s.proxy.kubeconfigYaml(), { mode: 0o600 });
      const pbLog = path.join(dir, 'protobuf.ndjson');
      const p2 = run(ok, pbLog, ['--protobuf-only']);
      try {
        await waitFor('the protobuf-only controller synced', () => readNdjson(pbLog).some((l) => l.kind === 'synced'), 60_000);
        await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'y'));
        await waitFor('it saw the new object', () => readNdjson(pbLog).some((l) => l.key === `${ns}/y`), 30_000);
      } finally {
        p2.kill('SIGTERM');
      }
      assert.ok(seenNotices.filter((n) => n.kind === 'unreadable').length >= 2, JSON.stringify(seenNotices.map((n) => n.kind)));
      assert.equal(s.reconstructor.reflectors().length, 0);
      const missing = s.notReconstructed();
      assert.deepEqual(missing.map((m) => m.reflector.split(' ')[0]).sort(), ['configmaps.v1', 'secrets.v1'], JSON.stringify(missing));
      assert.ok(missing.every((m) => m.requests >= 1 && /accepts only application\/vnd\.kubernetes\.protobuf.*not reconstructed/.test(m.why)), JSON.stringify(missing));
      const index = JSON.parse(s.traceFiles(path.join(dir, 'protobuf.json'))[0].text) as { notReconstructed: unknown[] };
      assert.equal(index.notReconstructed.length, 2, 'the trace index names the reflectors it could not reconstruct');
      assert.equal(s.proxy.stats.observed, 0);
      assert.ok(s.proxy.stats.forwarded > 0);
    } finally {
      await s.stop();
    }
  });

  it('client-go 1.15 (profile from its go.mod): an apiserver restart relists at RV 0 with identical updates, reconstructed exactly; checked against v1.36 it gets findings', async () => {
    const c = cluster();
    const ns = 'legacy';
    await createNamespace(c, ns);
    for (let i = 0; i < 4; i++) await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, `cm-${i}`));
    const fromMod = profileFromGoMod(readFileSync(path.join(HERE, 'controller115', 'go.mod'), 'utf8'));
    assert.equal(fromMod?.profile.name, 'v1.15');
    const shadow = new Reconstructor({ profile: findProfile('v1.36')! });
    const lines115: ObservedLogLine[] = [];
    const s = await ObserveSession.start({
      conn: KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml() }),
      profile: fromMod!.profile,
      onLine: (l) => lines115.push(l),
      onExchange: (x) => shadow.accept(x),
    });
    const kubeconfig = path.join(dir, 'legacy.kubeconfig');
    writeFileSync(kubeconfig, s.proxy.kubeconfigYaml(), { mode: 0o600 });
    const log = path.join(dir, 'legacy.ndjson');
    const p = spawn(CONTROLLER_115, ['--namespace', ns, '--log', log], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: 'ignore' });
    const clog = () => readNdjson(log).filter((l) => l.informer === 'configmaps');
    try {
      await waitFor('the 1.15 controller synced', () => readNdjson(log).some((l) => l.kind === 'synced'), 60_000);
      await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'before-restart'));
      await waitFor('it saw the write', () => clog().some((l) => l.key === `${ns}/before-restart`), 30_000);
      await sleep(1_500);
      await c.restartApiserver();
      await waitFor('identical updates after the relist', () => clog().some((l) => l.op === 'update' && l.rv === l.oldRv), 60_000);
      await c.adminOk('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(ns, 'after-restart'));
      await waitFor('it saw the last write', () => clog().some((l) => l.key === `${ns}/after-restart`), 60_000);
      await waitFor(
        'the reconstruction caught up',
        () => JSON.stringify([...perKey(clog())].sort()) === JSON.stringify([...perKey(lines115.filter((l) => l.reflector.startsWith('configmaps.v1 ')) as unknown as NotifyLine[])].sort()),
        20_000,
      ).catch(() => undefined);
    } finally {
      p.kill('SIGTERM');
      await s.stop();
      await shadow.close();
    }
    const want = perKey(clog());
    const got = perKey(lines115.filter((l) => l.reflector.startsWith('configmaps.v1 ')) as unknown as NotifyLine[]);
    assert.deepEqual(Object.fromEntries([...got].sort()), Object.fromEntries([...want].sort()), 'v1.15: reconstructed notifications differ from the controller\'s');
    const r = s.reconstructor.reflectors().find((x) => x.name.startsWith('configmaps.v1 '))!;
    const relists = r.recorder.events().filter((e) => e.type === 'relist') as unknown as Array<{ reason: string; row: number; rv: string }>;
    assert.ok(relists.length >= 1, 'the restart made the 1.15 reflector relist');
    assert.ok(relists.every((x) => x.rv === '0'), `1.15 relists at RV 0: ${JSON.stringify(relists)}`);
    assert.deepEqual(r.findings, [], 'the 1.15 controller does what the v1.15 profile predicts');
    const shadowFindings = shadow.findings().filter((f) => f.reflector.startsWith('configmaps.v1 '));
    assert.ok(shadowFindings.length > 0, 'checked against client-go v1.36 the 1.15 controller diverges');
    console.log(`      v1.15: ${r.requests} requests, ${r.notifications} notifications, relists: ${relists.map((x) => `${x.reason}(row ${x.row}) rv=${x.rv}`).join(', ')}`);
    console.log(`      against v1.36: ${[...new Set(shadowFindings.map((f) => f.kind))].join(', ')}`);
  });
});
