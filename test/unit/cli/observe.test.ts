/**
 * `informer-inspector observe`: bad input exits 2 with one line; a run against a loopback
 * upstream writes the kubeconfig, follows a list, and on interrupt writes the log (with the
 * reflector field), the trace index and one trace per informer. Plus profileFromGoMod.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/cli';
import { profileFromGoMod } from '../../../src/observe/session';
import { loopbackKubeconfig, startLoopback } from '../kube/loopback';
import { memoryIo } from './memoryIo';

describe('informer-inspector observe', function () {
  this.timeout(15_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ii-observe-cli-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('bad input: a non-loopback --listen, no --kubeconfig-out, a go.mod without client-go, a missing kubeconfig', async () => {
    const kc = join(dir, 'kc');
    writeFileSync(kc, loopbackKubeconfig(1));
    const cases: [string[], RegExp][] = [
      [['observe', '--kubeconfig', kc, '--kubeconfig-out', 'k', '--listen', '0.0.0.0:8001'], /--listen must be a loopback address/],
      [['observe', '--kubeconfig', kc, '--kubeconfig-out', 'k', '--listen', 'nope'], /--listen must be HOST:PORT/],
      [['observe', '--kubeconfig', kc], /--kubeconfig-out FILE is required/],
      [['observe', '--kubeconfig', kc, '--kubeconfig-out', 'k', '--go-mod', 'go.mod'], /go\.mod does not require k8s\.io\/client-go/],
      [['observe', '--kubeconfig', join(dir, 'missing'), '--kubeconfig-out', 'k'], /cannot load kubeconfig .*missing: no such file/],
    ];
    for (const [args, re] of cases) {
      const m = memoryIo({ 'go.mod': 'module x\n\nrequire k8s.io/api v0.36.0\n' });
      assert.equal(await runCli(args, m.io), 2, args.join(' '));
      assert.match(m.err(), re);
      assert.equal(m.err().trim().split('\n').length, 1, m.err());
    }
  });

  it('runs until interrupted; writes the kubeconfig, the log with reflector names and the traces', async () => {
    const upstream = await startLoopback((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"6"}}]}');
    });
    const kc = join(dir, 'kc');
    writeFileSync(kc, loopbackKubeconfig(upstream.port));
    const m = memoryIo({ 'go.mod': 'module x\n\nrequire (\n\tk8s.io/client-go v0.32.4\n)\n' });
    const run = runCli(['observe', '--kubeconfig', kc, '--kubeconfig-out', 'proc.kubeconfig', '--log', 'out.ndjson', '--trace', 'out.json'], m.io);
    try {
      const t0 = Date.now();
      while (!m.files['proc.kubeconfig'] && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
      const yaml = m.files['proc.kubeconfig'];
      assert.ok(yaml, 'the kubeconfig is written');
      const server = /server: (\S+)/.exec(yaml)![1];
      const token = /token: (\S+)/.exec(yaml)![1];
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(yaml)![1], 'base64').toString('utf8');
      await new Promise<void>((resolve, reject) =>
        https
          .get(`${server}/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0`, { ca, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve());
          })
          .on('error', reject),
      );
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      m.interrupt();
    }
    assert.equal(await run, 0);
    upstream.close();
    assert.match(m.err(), /profile v1\.32: k8s\.io\/client-go v0\.32\.4 in go\.mod/);
    assert.match(m.err(), /observed 1 requests \(1 lists\/watches, 0 refused for a bad token\); 1 informers reconstructed, 1 notifications/);
    const lines = m.files['out.ndjson'].trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines[0], { kind: 'request', verb: 'list', rv: '0', limit: 500, reflector: 'configmaps.v1 ns=ns ua=-' });
    assert.ok(lines.some((l) => l.kind === 'notify' && l.key === 'ns/a' && l.op === 'add' && l.reflector === 'configmaps.v1 ns=ns ua=-'));
    const index = JSON.parse(m.files['out.json']);
    assert.equal(index.format, 'informer-observe/v1');
    assert.equal(index.reflectors[0].trace, 'out.1.json');
    assert.match(m.files['out.1.json'], /"format": "informer-trace\/v1"/);
    const token = /token: (\S+)/.exec(m.files['proc.kubeconfig'])![1];
    for (const [name, text] of Object.entries(m.files)) if (name !== 'proc.kubeconfig') assert.ok(!text.includes(token), `the token is in ${name}`);
    assert.ok(!m.err().includes(token));
  });

  it('profileFromGoMod maps client-go versions to the nearest profile', () => {
    const p = (v: string) => profileFromGoMod(`module x\nrequire k8s.io/client-go ${v}\n`)?.profile.name;
    assert.equal(p('v0.36.6'), 'v1.36');
    assert.equal(p('v0.35.0'), 'v1.36');
    assert.equal(p('v0.34.1'), 'v1.34');
    assert.equal(p('v0.28.0'), 'v1.32');
    assert.equal(p('v12.0.0+incompatible'), 'v1.15');
    assert.equal(p('v0.0.0-20190620085101-78d2af792bab'), 'v1.15');
    assert.equal(profileFromGoMod('module x\nrequire k8s.io/api v0.36.0\n'), undefined);
  });
});
