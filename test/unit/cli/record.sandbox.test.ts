/**
 * `record` and `check-consistency` live: the real CLI code, real loopback HTTP to the built-in
 * sandbox (no storyline; the tests make their own changes), on virtual time. One FakeClock drives
 * the command (CliIo.clock: its duration, fault and check schedules, the engine's backoff), the
 * sandbox (bookmarks, watch timeouts) and the tests' own changes; runOnVirtualTime() moves it only
 * while no request or byte is in flight on loopback, so what each run sees at t does not depend on
 * the machine's load (it used to run on wall-clock time, and a busy machine failed different cases).
 */
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/cli';
import { parseLog, type RequestLine } from '../../../src/scenario/notificationLog';
import { sandboxKubeconfig, startSandbox, type Sandbox } from '../../../src/sources/sandbox';
import { importTrace } from '../../../src/trace/traceFile';
import { memoryIo } from './memoryIo';
import { closedPort, VirtualCli } from './virtualTime';

const SEEDED_CONFIGMAPS = 12;

const vt = new VirtualCli();
const { later, virtualIo, live } = vt;

/**
 * A sandbox on a fresh FakeClock, with the loopback traffic watched from here on. Bookmarks every
 * 500 ms let the consistency check see the informer catch up without waiting seconds.
 */
async function sandbox(): Promise<Sandbox> {
  const clock = vt.start();
  return startSandbox({ runStoryline: false, writeKubeconfig: true, bookmarkIntervalMs: 500, clock });
}

function requests(log: string): RequestLine[] {
  return parseLog(log, 'record log').filter((l): l is RequestLine => l.kind === 'request');
}

describe('cli record against the sandbox (live, real loopback HTTP, virtual time)', function () {
  // Seconds of virtual time each; the wall-clock bound only catches a hang (runOnVirtualTime fails first).
  this.timeout(60_000);
  let sb: Sandbox | undefined;
  afterEach(async () => {
    await sb?.stop();
    sb = undefined;
    vt.stop();
  });

  it('v1.15: refused connections for 2 s end in a relist; the trace is valid; identical updates are a finding', async () => {
    sb = await sandbox();
    const m = virtualIo();
    const code = await live(
      ['record', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'configmaps', '--profile', 'v1.15', '--duration', '5s',
        '--fault', 'refuse=2s@0.5s', '--log', 'out.ndjson', '--trace', 'out.json'],
      m,
    );
    assert.equal(code, 0, m.err());
    const verbs = requests(m.files['out.ndjson']).map((r) => r.verb);
    assert.deepEqual(verbs.slice(0, 2), ['list', 'watch'], verbs.join(' '));
    const relistAt = verbs.indexOf('list', 2);
    assert.ok(relistAt > 0, `a list after the first watch: ${verbs.join(' ')}`);
    assert.equal(verbs[verbs.length - 1], 'watch', `watching again at the end: ${verbs.join(' ')}`);

    const trace = importTrace(m.files['out.json']);
    assert.equal(trace.header.source, 'sandbox');
    assert.equal(trace.header.profile, 'v1.15');
    const faults = trace.events.filter((e) => e.type === 'fault.injected');
    assert.deepEqual(faults.map((e) => e.type === 'fault.injected' && e.fault), ['refuseConnections']);
    const relists = trace.events.filter((e) => e.type === 'relist');
    assert.ok(relists.length >= 1 && relists.every((r) => r.seq > faults[0].seq), 'every relist comes after the fault');
    const notifies = parseLog(m.files['out.ndjson'], 'log').filter((l) => l.kind === 'notify');
    const identical = notifies.filter((l) => l.kind === 'notify' && l.op === 'update' && l.oldRv === l.rv);
    assert.equal(identical.length, SEEDED_CONFIGMAPS, 'the relist replays every object as an identical update');
    assert.match(m.err(), /^recording configmaps \(all namespaces\) from informer-inspector-sandbox for 5s/);
    assert.match(m.err(), /findings \(\d+\):\n {2}\[warning\] 12 identical updates after the relist/);
  });

  it('v1.36: the same refusal is survived by re-watching, without any list', async () => {
    sb = await sandbox();
    const m = virtualIo();
    const code = await live(
      ['record', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'cm', '--profile', 'v1.36', '--duration', '4s', '--fault', 'refuse=2s@1s', '--trace', 'out.json'],
      m,
    );
    assert.equal(code, 0, m.err());
    const reqs = requests(m.out());
    assert.deepEqual(reqs.filter((r) => r.verb === 'list'), [], 'watch-list: no LIST at all');
    assert.equal(reqs[0].sendInitialEvents, true);
    assert.ok(reqs.length >= 2, `re-watched after the refusal: ${JSON.stringify(reqs)}`);
    for (const r of reqs.slice(1)) assert.ok(r.verb === 'watch' && !r.sendInitialEvents && /^\d+$/.test(r.rv), `a plain re-watch from the last RV: ${JSON.stringify(r)}`);
    const trace = importTrace(m.files['out.json']);
    assert.equal(trace.events.filter((e) => e.type === 'relist').length, 0);
    assert.equal(trace.events.filter((e) => e.type === 'fault.injected').length, 1);
    assert.match(m.err(), /\nfindings: none\n$/);
  });

  it('drop-delete: the informer misses a delete and the scheduled consistency check reports the stale object', async () => {
    sb = await sandbox();
    const m = virtualIo();
    const storage = sb.storage;
    later(1000, () => void storage.delete('configmaps', 'team-a/db-settings'));
    const code = await live(
      ['record', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'configmaps', '--duration', '6s',
        '--fault', 'drop-delete', '--check-consistency@2s', '--trace', 'out.json', '--log', 'out.ndjson'],
      m,
    );
    assert.equal(code, 0, m.err());
    assert.match(m.err(), /consistency check at 2\.\ds: cache is STALE against the server at RV \d+ \(11 object\(s\) on the server, 12 cached\)\n {2}in the cache but deleted on the server \(a lost delete\): team-a\/db-settings\n/);
    assert.match(m.err(), /\[error\] The informer cache disagrees with the server/);
    const trace = importTrace(m.files['out.json']);
    const dropped = trace.events.find((e) => e.type === 'fault.injected' && e.fault === 'dropNextDelete');
    assert.ok(dropped && dropped.type === 'fault.injected' && dropped.detail?.includes('team-a/db-settings'));
    const check = trace.events.find((e) => e.type === 'consistency.check');
    assert.ok(check && check.type === 'consistency.check');
    assert.deepEqual([check.extra, check.missing, check.rvMismatch], [['team-a/db-settings'], [], []]);
    const deletes = parseLog(m.files['out.ndjson'], 'log').filter((l) => l.kind === 'notify' && l.op === 'delete');
    assert.deepEqual(deletes, [], 'the handler never heard of the delete');
  });

  it('every one-shot and immediate fault kind takes effect and shows as a fault.injected event', async () => {
    sb = await sandbox();
    const m = virtualIo();
    const faults = ['reset-watch@0.5s', 'internal-error@1s', '429=1s@1s', 'expire-watch@1s', 'toolarge-list@1s'];
    const code = await live(
      ['record', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'configmaps', '--duration', '6s', '--trace', 'out.json', '--log', 'out.ndjson',
        ...faults.flatMap((f) => ['--fault', f])],
      m,
    );
    assert.equal(code, 0, m.err());
    const injected = importTrace(m.files['out.json']).events.flatMap((e) => (e.type === 'fault.injected' ? [e.fault] : []));
    assert.deepEqual(new Set(injected), new Set(['resetWatch', 'internalErrorOnWatch', 'tooManyRequests', 'expireNextWatch', 'tooLargeNextList']), injected.join(', '));
    assert.doesNotMatch(m.err(), /armed but never took effect/);
    assert.match(m.err(), /\[info\] apiserver answered 429 Too Many Requests/);
  });

  it('--quiet prints nothing on stderr; --consistency-every runs a check each period', async () => {
    sb = await sandbox();
    const m = virtualIo();
    const code = await live(
      ['record', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'pods', '--duration', '1.5s', '--consistency-every', '500ms', '--quiet', '--trace', 'out.json', '--log', 'out.ndjson'],
      m,
    );
    assert.equal(code, 0);
    assert.equal(m.err(), '');
    assert.equal(m.out(), '');
    const checks = importTrace(m.files['out.json']).events.filter((e) => e.type === 'consistency.check');
    assert.equal(checks.length, 2);
    for (const c of checks) assert.ok(c.type === 'consistency.check' && c.extra.length + c.missing.length + c.rvMismatch.length === 0);
  });

  it('check-consistency: exit 0 on a fresh informer, exit 1 with the key after a delete etcd lost', async () => {
    sb = await sandbox();
    const fresh = virtualIo();
    assert.equal(await live(['check-consistency', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'configmaps'], fresh), 0, fresh.err());
    assert.match(fresh.out(), new RegExp(`^cache matches the server: ${SEEDED_CONFIGMAPS} object\\(s\\) at RV \\d+\\n$`));

    const m = virtualIo();
    const storage = sb.storage;
    later(1000, () => void storage.delete('configmaps', 'default/web-config', { lost: true }));
    const code = await live(['check-consistency', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'configmaps', '--wait', '2s', '--trace', 't.json'], m);
    assert.equal(code, 1, m.err());
    assert.match(m.out(), /^cache is STALE against the server at RV \d+ \(11 object\(s\) on the server, 12 cached\)\n {2}in the cache but deleted on the server \(a lost delete\): default\/web-config\n$/);
    assert.equal(importTrace(m.files['t.json']).events.filter((e) => e.type === 'consistency.check').length, 1);
  });

  describe('bad input', () => {
    let dir: string;
    before(async () => (dir = await mkdtemp(join(tmpdir(), 'ii-cli-'))));
    after(async () => rm(dir, { recursive: true, force: true }));

    it('a broken or missing kubeconfig file: one line, exit 2', async () => {
      const broken = join(dir, 'broken');
      await writeFile(broken, 'apiVersion: v1\nclusters: [ {name: a, cluster: {server: "x"\n  - bad: : :\n');
      for (const [path, why] of [[broken, /missed comma/], [join(dir, 'missing'), /no such file/]] as const) {
        const m = memoryIo();
        assert.equal(await runCli(['record', '--resource', 'pods', '--kubeconfig', path], m.io), 2);
        assert.match(m.err(), new RegExp(`^informer-inspector: cannot load kubeconfig ${path}: [^\\n]+\\n$`));
        assert.match(m.err(), why);
      }
    });

    it('an unknown resource: exit 2 with the close names', async () => {
      sb = await sandbox();
      const m = memoryIo();
      assert.equal(await runCli(['record', '-A', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'confgmaps'], m.io), 2);
      assert.equal(
        m.err(),
        'informer-inspector: unknown resource "confgmaps" in context informer-inspector-sandbox: no resource by that name supports list and watch; close names: configmaps\n',
      );
      const c = memoryIo();
      assert.equal(await runCli(['check-consistency', '--kubeconfig', sb.kubeconfigPath!, '--resource', 'widgts'], c.io), 2);
      assert.match(c.err(), /close names: widgets\.demo\.example\.com\n$/);
    });

    it('an unreachable server: one clear line naming the server and context, exit 1', async () => {
      const port = await closedPort();
      const kc = join(dir, 'unreachable');
      await writeFile(kc, sandboxKubeconfig(`http://127.0.0.1:${port}`));
      const m = memoryIo();
      assert.equal(await runCli(['record', '--resource', 'pods', '--kubeconfig', kc, '--duration', '1s'], m.io), 1);
      assert.equal(
        m.err(),
        `informer-inspector record: cannot reach the API server http://127.0.0.1:${port} (context informer-inspector-sandbox): ` +
          `Get "http://127.0.0.1:${port}/api": dial tcp 127.0.0.1:${port}: connect: connection refused\n`,
      );
    });

    it('a server that refuses discovery: one line with the status, exit 1', async () => {
      const srv = createHttpServer((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      });
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      try {
        const port = (srv.address() as { port: number }).port;
        const kc = join(dir, 'unauthorized');
        await writeFile(kc, sandboxKubeconfig(`http://127.0.0.1:${port}`));
        const m = memoryIo();
        assert.equal(await runCli(['check-consistency', '--resource', 'pods', '--kubeconfig', kc], m.io), 1);
        assert.equal(m.err(), `informer-inspector check-consistency: discovery at the API server http://127.0.0.1:${port} (context informer-inspector-sandbox) failed: 401 Unauthorized\n`);
      } finally {
        srv.closeAllConnections();
        await new Promise<void>((r) => srv.close(() => r()));
      }
    });
  });
});
