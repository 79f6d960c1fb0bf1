/**
 * The command line as a kubectl user expects it: per-command --help, --version, a positional
 * resource with -n/-A/-l/--field-selector, the context's namespace as the default, -o json on
 * every command, progress while recording, and a closed stdout pipe ending quietly.
 */
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { runCli } from '../../../src/cli/cli';
import { guardPipe } from '../../../src/cli/io';
import { parseLog, type RequestLine } from '../../../src/scenario/notificationLog';
import { startSandbox, type Sandbox } from '../../../src/sources/sandbox';
import { TraceRecorder } from '../../../src/trace/recorder';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { memoryIo } from './memoryIo';
import { VirtualCli } from './virtualTime';

const COMMANDS = ['record', 'check-consistency', 'replay', 'sandbox', 'summarize', 'profiles', 'version'];

describe('cli: kubectl-like', () => {
  it('every command has its own --help (and -h, and `help CMD`) on stdout, exit 0', async () => {
    for (const c of COMMANDS) {
      for (const argv of [[c, '--help'], [c, '-h'], ['help', c], [c, 'x', '--bogus', '--help']]) {
        const m = memoryIo();
        assert.equal(await runCli(argv, m.io), 0, `${argv.join(' ')}: ${m.err()}`);
        assert.match(m.out(), new RegExp(`^usage: informer-inspector ${c}`), argv.join(' '));
        assert.equal(m.err(), '');
      }
    }
    const m = memoryIo();
    await runCli(['record', '--help'], m.io);
    for (const flag of ['-n, --namespace', '-A, --all-namespaces', '-l, --selector', '--field-selector', '--context', '--kubeconfig', '-o, --output json']) {
      assert.ok(m.out().includes(flag), flag);
    }
  });

  it('--version and `version -o json` print the package version', async () => {
    const m = memoryIo();
    assert.equal(await runCli(['--version'], m.io), 0);
    assert.match(m.out(), /^informer-inspector \d+\.\d+\.\d+\n$/);
    const j = memoryIo();
    assert.equal(await runCli(['version', '-o', 'json'], j.io), 0);
    assert.equal(JSON.parse(j.out()).name, 'informer-inspector');
  });

  it('-o json: profiles and summarize print one JSON document; -o yaml is bad input', async () => {
    const p = memoryIo();
    assert.equal(await runCli(['profiles', '-o', 'json'], p.io), 0);
    const profiles = JSON.parse(p.out()) as { name: string; default: boolean }[];
    assert.ok(profiles.some((x) => x.name === 'v1.36' && x.default));
    const rec = new TraceRecorder({ format: 'informer-trace/v1', tool: { name: 'informer-inspector', version: '0' }, profile: 'v1.36', gates: {}, resource: { group: '', version: 'v1', resource: 'configmaps' }, source: 'scenario', startedAt: '2026-01-01T00:00:00.000Z', cap: 100, redacted: true });
    rec.emit({ t: 0, type: 'list.error', text: 'failed to list /v1, Kind=ConfigMap: configmaps is forbidden', code: 403 });
    const s = memoryIo({ 't.json': exportTrace(rec) });
    assert.equal(await runCli(['summarize', 't.json', '--output=json'], s.io), 0, s.err());
    const sum = JSON.parse(s.out()) as { findings: { id: string }[]; eventsByType: Record<string, number> };
    assert.deepEqual(sum.findings.map((f) => f.id), ['access-forbidden']);
    assert.equal(sum.eventsByType['list.error'], 1);
    const bad = memoryIo();
    assert.equal(await runCli(['profiles', '-o', 'yaml'], bad.io), 2);
    assert.match(bad.err(), /--output must be json or text/);
  });

  it('-n and -A exclude each other; two different resources are refused', async () => {
    const m = memoryIo();
    assert.equal(await runCli(['record', 'pods', '-n', 'x', '-A'], m.io), 2);
    assert.match(m.err(), /exclude each other/);
    const t = memoryIo();
    assert.equal(await runCli(['record', 'pods', '--resource', 'secrets'], t.io), 2);
    assert.match(t.err(), /two resources/);
  });

  it('a closed stdout pipe (EPIPE) exits 0 quietly; another stream error is one line, exit 1', () => {
    const stream = new EventEmitter();
    const exits: number[] = [];
    const said: string[] = [];
    guardPipe(stream, (c) => exits.push(c), (t) => said.push(t));
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    assert.deepEqual([exits, said], [[0], []]);
    stream.emit('error', Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    assert.deepEqual(exits, [0, 1]);
    assert.match(said[0], /^informer-inspector: cannot write output: no space left on device\n$/);
  });

  describe('against the sandbox (virtual time)', function () {
    this.timeout(60_000);
    const vt = new VirtualCli();
    let sb: Sandbox | undefined;
    afterEach(async () => {
      await sb?.stop();
      sb = undefined;
      vt.stop();
    });
    const requests = (log: string) => parseLog(log, 'log').filter((l): l is RequestLine => l.kind === 'request');

    it("positional resource; no -n means the context's namespace (the sandbox's is default); -l and --field-selector land in the trace header", async () => {
      const clock = vt.start();
      sb = await startSandbox({ runStoryline: false, writeKubeconfig: true, bookmarkIntervalMs: 500, clock });
      const m = vt.virtualIo();
      const code = await vt.live(['record', 'cm', '--kubeconfig', sb.kubeconfigPath!, '-l', 'app!=none', '--field-selector', 'metadata.namespace=default', '--duration', '3s', '--progress-every', '1s', '--log', 'l.ndjson', '--trace', 't.json'], m);
      assert.equal(code, 0, m.err());
      assert.match(m.err(), /^recording configmaps \(namespace default\) from informer-inspector-sandbox/);
      assert.match(m.err(), /\n {2}1\.0s: (watching|watch-listing|listing), (synced|not synced), \d+ object\(s\) cached, \d+ request\(s\), 0 relist\(s\)\n/);
      assert.equal(importTrace(m.files['t.json']).header.namespace, 'default');
      assert.ok(requests(m.files['l.ndjson']).length > 0);
      const h = importTrace(m.files['t.json']).header;
      assert.deepEqual([h.labelSelector, h.fieldSelector], ['app!=none', 'metadata.namespace=default']);
    });

    it('-A: every namespace; -o json: a JSON summary on stdout instead of the log', async () => {
      const clock = vt.start();
      sb = await startSandbox({ runStoryline: false, writeKubeconfig: true, bookmarkIntervalMs: 500, clock });
      const m = vt.virtualIo();
      const code = await vt.live(['record', 'configmaps', '-A', '--kubeconfig', sb.kubeconfigPath!, '--duration', '2s', '-o', 'json', '-q'], m);
      assert.equal(code, 0, m.err());
      const out = JSON.parse(m.out()) as { namespace: string; synced: boolean; objects: number; findings: unknown[] };
      assert.equal(out.namespace, '');
      assert.equal(out.synced, true);
      assert.equal(out.objects, 12);
      assert.ok(Array.isArray(out.findings));
      const c = vt.virtualIo();
      assert.equal(await vt.live(['check-consistency', 'configmaps', '-A', '--kubeconfig', sb.kubeconfigPath!, '-o', 'json'], c), 0, c.err());
      assert.equal(JSON.parse(c.out()).stale, false);
    });
  });
});
