/**
 * An informer the server refuses (401/403/404 on LIST and WATCH): `record` ends with exit 1 and
 * the server's message plus the fix on stderr; the trace carries an error finding and the
 * reflector's 'denied' state. A loopback API server serves discovery and refuses the rest.
 */
import { strict as assert } from 'assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importTrace } from '../../../src/trace/traceFile';
import { computeFindings } from '../../../src/trace/findings';
import { loopbackKubeconfig, startLoopback, type Loopback } from '../kube/loopback';
import { VirtualCli } from './virtualTime';

const vt = new VirtualCli();

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

/** Discovery of core v1 with configmaps; every configmaps request answered with `code`. */
function refusingServer(code: number, reason: string, message: string): Promise<Loopback> {
  return startLoopback((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (c: number, body: string) => {
      res.writeHead(c, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.method !== 'GET') return json(405, status(405, 'MethodNotAllowed', 'GET only'));
    if (path === '/api') return json(200, JSON.stringify({ kind: 'APIVersions', versions: ['v1'] }));
    if (path === '/apis') return json(200, JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
    if (path === '/api/v1') {
      return json(200, JSON.stringify({
        kind: 'APIResourceList', groupVersion: 'v1',
        resources: [{ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list', 'watch'], shortNames: ['cm'] }],
      }));
    }
    return json(code, status(code, reason, message));
  });
}

describe('cli record: access refused (401/403/404)', function () {
  this.timeout(60_000);
  let dir = '';
  let srv: Loopback | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ii-access-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    srv?.close();
    srv = undefined;
    vt.stop();
  });

  async function record(code: number, reason: string, message: string, extra: string[] = []) {
    srv = await refusingServer(code, reason, message);
    const kc = join(dir, `kc-${code}`);
    await writeFile(kc, loopbackKubeconfig(srv.port));
    const trace = join(dir, `trace-${code}.json`);
    vt.start();
    const m = vt.virtualIo();
    const exit = await vt.live(['record', '--resource', 'configmaps', '--kubeconfig', kc, '--duration', '10s', '--trace', trace, '--log', join(dir, 'log'), ...extra], m);
    return { exit, m, trace: importTrace(m.files[trace] ?? '') };
  }

  it('403 Forbidden: exit 1, the server message and `kubectl auth can-i` on stderr, an error finding, the denied state', async () => {
    const msg = 'configmaps is forbidden: User "system:serviceaccount:demo:ctl" cannot list resource "configmaps" in API group "" in the namespace "demo"';
    const { exit, m, trace } = await record(403, 'Forbidden', msg, ['--namespace', 'demo']);
    assert.equal(exit, 1, m.err());
    assert.ok(m.err().includes(msg), m.err());
    assert.match(m.err(), /kubectl auth can-i list configmaps -n demo/);
    const findings = computeFindings(trace.header, trace.events);
    const f = findings.find((x) => x.id === 'access-forbidden');
    assert.ok(f, findings.map((x) => x.id).join(', '));
    assert.equal(f.severity, 'error');
    assert.equal(findings[0].id, 'access-forbidden', 'errors come first');
    assert.ok(trace.events.some((e) => e.type === 'reflector.state' && e.state === 'denied'));
    // The watch-list that never synced asked for RV "" and fell back to a LIST at "0": not a consistent relist.
    assert.ok(!findings.some((x) => x.id === 'consistent-relist'), findings.map((x) => x.id).join(', '));
  });

  it('401 Unauthorized: exit 1, an access-unauthorized finding', async () => {
    const { exit, m, trace } = await record(401, 'Unauthorized', 'Unauthorized');
    assert.equal(exit, 1, m.err());
    assert.match(m.err(), /401 Unauthorized/);
    assert.match(m.err(), /kubectl auth whoami/);
    assert.ok(computeFindings(trace.header, trace.events).some((f) => f.id === 'access-unauthorized'));
  });

  it('404 NotFound: exit 1, a resource-not-found finding', async () => {
    const { exit, m, trace } = await record(404, 'NotFound', 'the server could not find the requested resource');
    assert.equal(exit, 1, m.err());
    assert.match(m.err(), /404 NotFound/);
    assert.ok(computeFindings(trace.header, trace.events).some((f) => f.id === 'resource-not-found'));
  });
});
