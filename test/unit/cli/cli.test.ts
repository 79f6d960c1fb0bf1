import { strict as assert } from 'node:assert';
import { durationMs } from '../../../src/cli/args';
import { runCli } from '../../../src/cli/cli';
import { TraceRecorder } from '../../../src/trace/recorder';
import { exportTrace } from '../../../src/trace/traceFile';
import { memoryIo } from './memoryIo';

const scenario = JSON.stringify({
  format: 'informer-scenario/v1',
  name: 's',
  resource: { apiVersion: 'v1', kind: 'ConfigMap' },
  informer: { handlers: [{ name: 'main' }] },
  steps: [{ on: 'watch', events: [], close: 'bogus' }],
});

describe('informer-inspector CLI', () => {
  it('exits 2 with one line for an unknown command and for no command', async () => {
    const m = memoryIo();
    assert.equal(await runCli(['frobnicate'], m.io), 2);
    assert.equal(m.err(), 'informer-inspector: unknown command "frobnicate" (one of: record, check-consistency, replay, sandbox, summarize, profiles, observe, version; see --help)\n');
    const n = memoryIo();
    assert.equal(await runCli([], n.io), 2);
    assert.match(n.err(), /^usage: informer-inspector/);
  });

  it('replay: a missing file, an invalid scenario, an unknown profile or option exit 2 without a stack', async () => {
    const m = memoryIo({ 'bad.json': scenario });
    assert.equal(await runCli(['replay', 'missing.json'], m.io), 2);
    assert.equal(m.err(), 'informer-inspector: cannot read scenario missing.json: no such file\n');
    const v = memoryIo({ 'dir/bad.json': scenario });
    assert.equal(await runCli(['replay', 'dir/bad.json'], v.io), 2);
    assert.equal(v.err(), 'informer-inspector: scenario bad.json: steps[0].close must be one of eof, unexpected-eof, reset, timeout, error, decode-error\n');
    const p = memoryIo({ 'ok.json': scenario.replace('bogus', 'eof') });
    assert.equal(await runCli(['replay', 'ok.json', '--profile', 'v9.99'], p.io), 2);
    assert.equal(p.err(), 'informer-inspector: unknown profile "v9.99" (one of: v1.15, v1.32, v1.34, v1.36)\n');
    const o = memoryIo();
    assert.equal(await runCli(['replay', 'ok.json', '--frob'], o.io), 2);
    assert.match(o.err(), /^informer-inspector: replay: Unknown option '--frob'/);
    assert.doesNotMatch(o.err() + v.err() + p.err(), /\n\s+at /);
  });

  it('profiles lists every profile with its gates', async () => {
    const m = memoryIo();
    assert.equal(await runCli(['profiles'], m.io), 0);
    for (const name of ['v1.15', 'v1.32', 'v1.34', 'v1.36 (default)']) assert.ok(m.out().includes(`${name}  client-go`), name);
    assert.match(m.out(), /WatchListClient=true/);
  });

  it('summarize prints the header and event counts; a broken trace exits 2', async () => {
    const rec = new TraceRecorder({
      format: 'informer-trace/v1',
      tool: { name: 'informer-inspector', version: '0.1.0' },
      profile: 'v1.36',
      gates: {},
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      source: 'scenario',
      startedAt: '2026-01-01T00:00:00.000Z',
      cap: 100,
      redacted: true,
    });
    rec.emit({ t: 0, type: 'synced' });
    rec.emit({ t: 5, type: 'request', verb: 'list', rv: '0' });
    rec.emit({ t: 9, type: 'request', verb: 'watch', rv: '10' });
    const m = memoryIo({ 't.json': exportTrace(rec), 'bad.json': '{"format":"nope"}' });
    assert.equal(await runCli(['summarize', 't.json'], m.io), 0);
    assert.match(m.out(), /^trace t\.json: scenario, profile v1\.36, resource v1\/configmaps\n/);
    assert.match(m.out(), /3 events; span 9 ms/);
    assert.match(m.out(), /\nfindings(: none| \(\d+\):)\n/);
    assert.match(m.out(), /\n\s+2 {2}request\n\s+1 {2}synced\n$/);
    assert.equal(await runCli(['summarize', 'bad.json'], m.io), 2);
    assert.match(m.err(), /^informer-inspector: trace bad\.json: /);
  });

  it('record and sandbox reject bad options with exit 2', async () => {
    const m = memoryIo();
    assert.equal(await runCli(['record'], m.io), 2);
    assert.equal(m.err(), 'informer-inspector: record: which resource? (e.g. `record configmaps`; see `informer-inspector record --help`)\n');
    const d = memoryIo();
    assert.equal(await runCli(['record', '--resource', 'pods', '--duration', '5 minutes'], d.io), 2);
    assert.match(d.err(), /invalid duration "5 minutes"/);
    const s = memoryIo();
    assert.equal(await runCli(['sandbox', '--scenario', 'nope'], s.io), 2);
    assert.match(s.err(), /unknown sandbox scenario "nope"/);
    assert.equal(await runCli(['sandbox', '--port', 'x'], s.io), 2);
  });

  it('parses Go-style durations', () => {
    assert.equal(durationMs('60s'), 60_000);
    assert.equal(durationMs('1h30m'), 5_400_000);
    assert.equal(durationMs('500ms'), 500);
    assert.equal(durationMs('2'), 2000);
    assert.throws(() => durationMs('0s'));
  });
});
