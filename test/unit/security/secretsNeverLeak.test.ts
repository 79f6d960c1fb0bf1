/**
 * Secrets' data/stringData (base64 and decoded), the last-applied annotation that repeats them,
 * and the kubeconfig's credentials (bearer token, basic auth, client key, a password in the
 * server URL) never reach a trace, the notification log, or the CLI's stdout/stderr. End to end:
 * the real CLI against a loopback Secret-serving API server (record, check-consistency, failures
 * before the informer starts) and a scripted Secret scenario through `replay`.
 *
 * Each run also asserts that the sensitive data really flowed (a diff of db-creds, the proxy's
 * echo of the Authorization header in an error text), so a run that leaks nothing because it saw
 * nothing fails instead of passing.
 */
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/cli';
import { importTrace } from '../../../src/trace/traceFile';
import { memoryIo, type MemoryIo } from '../cli/memoryIo';
import { closedPort, VirtualCli } from '../cli/virtualTime';
import { FakeApiServer, forbiddenStrings, kubeconfigWithCredentials, SECRET_VALUES } from './fakeApiServer';

/**
 * The live runs are on virtual time (one FakeClock for the command's duration, faults, checks and
 * backoff, and for the interrupt), moved only while loopback is quiet (runOnVirtualTime), so a
 * busy machine cannot cut a run short before the data it checks has flowed.
 */
const vt = new VirtualCli();
const { later, virtualIo, live } = vt;

/** Every output of one CLI run, labelled, for the leak check. */
function outputs(m: MemoryIo, inputs: readonly string[] = []): Record<string, string> {
  const written = Object.entries(m.files).filter(([name]) => !inputs.includes(name));
  return { stdout: m.out(), stderr: m.err(), ...Object.fromEntries(written) };
}

function assertNoLeak(where: Record<string, string>): void {
  for (const [label, text] of Object.entries(where)) {
    for (const s of forbiddenStrings()) assert.ok(!text.includes(s), `${label} leaks ${s}:\n${text.slice(Math.max(0, text.indexOf(s) - 300), text.indexOf(s) + 100)}`);
  }
}

describe('security: Secret payloads and credentials never reach a trace, a log or CLI output', function () {
  this.timeout(60_000);
  let server: FakeApiServer;
  let dir: string;

  beforeEach(async () => {
    vt.start();
    server = await new FakeApiServer().start();
    dir = await mkdtemp(join(tmpdir(), 'ii-secrets-'));
  });
  afterEach(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    vt.stop();
  });

  async function kubeconfigFor(serverUrl: string): Promise<string> {
    const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
    await writeFile(path, kubeconfigWithCredentials(serverUrl));
    return path;
  }

  for (const profile of ['v1.32', 'v1.36']) {
    it(`record on ${profile}: trace, log, stdout and stderr hold no payload, token, password or key`, async () => {
      // The password in the server URL too: Node sends it as basic auth, and error texts carry the URL.
      const kubeconfig = await kubeconfigFor(`http://bob:${SECRET_VALUES.urlPassword}@127.0.0.1:${server.port}`);
      const m = virtualIo();
      later(3500, m.interrupt);
      const code = await live(
        ['record', '--kubeconfig', kubeconfig, '--resource', 'secrets', '--profile', profile, '--duration', '20s',
          '--fault', 'refuse=2s@500ms', '--check-consistency', '@1s', '--log', 'out.ndjson', '--trace', 'out.json'],
        m,
      );
      assert.equal(code, 0, m.err());
      assertNoLeak(outputs(m));

      // The data did flow: an update of db-creds with a diff, and the proxy's echo of the token.
      const trace = importTrace(m.files['out.json']);
      assert.equal(trace.header.redacted, true);
      const diffs = trace.events.filter((e) => e.type === 'distribute' && e.key === 'prod/db-creds' && e.diff && e.diff.length > 0);
      assert.ok(diffs.length > 0, 'db-creds was updated with a diff');
      const texts = JSON.stringify(trace.events);
      assert.match(texts, /proxy: upstream refused the request; Authorization: \[redacted\]/);
      assert.match(texts, /connection refused/, 'the refused fault put the URL into an error text');
      assert.ok(server.seen.some((r) => r.authorization?.includes(SECRET_VALUES.token)), 'the token was sent to the server');
    });
  }

  it('check-consistency: stdout, stderr and the trace hold no secret', async () => {
    const kubeconfig = await kubeconfigFor(server.url);
    const m = virtualIo();
    const code = await live(['check-consistency', '--kubeconfig', kubeconfig, '--resource', 'secrets', '--trace', 'c.json', '--timeout', '10s'], m);
    assert.ok(code === 0 || code === 1, m.err());
    assert.match(m.out(), /object\(s\)/);
    assertNoLeak(outputs(m));
  });

  it('an unreachable server whose URL carries a password: the one-line error hides the password', async () => {
    const port = await closedPort();
    const kubeconfig = await kubeconfigFor(`http://bob:${SECRET_VALUES.urlPassword}@127.0.0.1:${port}`);
    for (const command of ['record', 'check-consistency']) {
      const m = memoryIo();
      const code = await runCli([command, '--kubeconfig', kubeconfig, '--resource', 'secrets', '--duration', '1s', '--timeout', '1s'].filter((a, i, all) => {
        // record has no --timeout, check-consistency no --duration
        const flag = a.startsWith('--') ? a : all[i - 1];
        return command === 'record' ? flag !== '--timeout' : flag !== '--duration';
      }), m.io);
      assert.equal(code, 1, `${command}: ${m.err()}`);
      assert.match(m.err(), /cannot reach the API server http:\/\/bob:\*\*\*@127\.0\.0\.1/, m.err());
      assertNoLeak(outputs(m));
    }
  });

  it('a kubeconfig that does not parse: the error does not quote the line with the token', async () => {
    const path = join(dir, 'broken');
    await writeFile(path, kubeconfigWithCredentials(server.url).replace(`token: ${SECRET_VALUES.token}`, `token: ${SECRET_VALUES.token}}}: ]`));
    const m = memoryIo();
    const code = await runCli(['record', '--kubeconfig', path, '--resource', 'secrets', '--duration', '1s'], m.io);
    assert.equal(code, 2, m.err());
    assert.match(m.err(), /cannot load kubeconfig/);
    assertNoLeak(outputs(m));
  });

  it('replay of a scripted Secret scenario: trace and log hold no payload and no token', async () => {
    const m = memoryIo({ 'secrets.json': JSON.stringify(secretScenario()) });
    const code = await runCli(['replay', 'secrets.json', '--profile', 'v1.32', '--log', 'out.ndjson', '--trace', 'out.json'], m.io);
    assert.equal(code, 0, m.err());
    assertNoLeak(outputs(m, ['secrets.json']));
    const trace = importTrace(m.files['out.json']);
    assert.ok(trace.events.some((e) => e.type === 'distribute' && e.op === 'update' && (e.diff?.length ?? 0) > 0), 'an update with a diff');
    assert.match(JSON.stringify(trace.events), /Authorization: \[redacted\]/);
  });
});

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** LIST a Secret; watch: it changes (payload + last-applied) and the stream ends with an error quoting the token; relist. */
function secretScenario(): unknown {
  const v = SECRET_VALUES;
  const meta = (rv: string, annotations?: Record<string, string>) => ({ namespace: 'prod', name: 'db-creds', resourceVersion: rv, ...(annotations ? { annotations } : {}) });
  const applied = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', data: { 'db-pass': b64(v.appliedPlain) }, stringData: { cred: v.stringData } });
  return {
    format: 'informer-scenario/v1',
    name: 'secret-payloads',
    description: 'A Secret changes its payload; the watch ends with an error that quotes a bearer token.',
    resource: { apiVersion: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true },
    informer: { resyncPeriodMs: 0, handlers: [{ name: 'main' }] },
    steps: [
      { on: 'list', resourceVersion: '10', items: [{ metadata: meta('5'), data: { 'db-pass': b64(v.dataPlain) } }] },
      {
        on: 'watch',
        events: [{ type: 'MODIFIED', object: { metadata: meta('11', { 'kubectl.kubernetes.io/last-applied-configuration': applied }), data: { 'db-pass': b64(v.newDataPlain) }, stringData: { cred: v.stringData } } }],
        close: 'error',
        error: { code: 500, reason: 'InternalError', message: `upstream said: Authorization: Bearer ${v.token}` },
      },
      { on: 'list', resourceVersion: '12', items: [{ metadata: meta('12'), data: { 'db-pass': b64(v.dataPlain) } }] },
    ],
  };
}
