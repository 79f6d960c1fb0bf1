import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/cli';
import { parseLog } from '../../../src/scenario/notificationLog';
import { importTrace } from '../../../src/trace/traceFile';
import { memoryIo } from './memoryIo';

const SCENARIOS = join(__dirname, '../../conformance/scenarios');

describe('informer-inspector replay (through the engine)', () => {
  it('writes the notification log and a valid trace, exit 0', async () => {
    const m = memoryIo({ 's.json': readFileSync(join(SCENARIOS, 'delete-missed-while-disconnected.json'), 'utf8') });
    assert.equal(await runCli(['replay', 's.json', '--profile', 'v1.32', '--log', 'out.ndjson', '--trace', 'trace.json'], m.io), 0, m.err());
    assert.equal(m.out(), '');
    const log = parseLog(m.files['out.ndjson'], 'out.ndjson');
    assert.deepEqual(log[log.length - 1], { kind: 'end' });
    assert.ok(
      log.some((l) => l.kind === 'notify' && l.op === 'delete' && l.key === 'default/b' && l.tombstone === true && l.rv === '6'),
      m.files['out.ndjson'],
    );
    const trace = importTrace(m.files['trace.json']);
    assert.equal(trace.header.profile, 'v1.32');
    assert.equal(trace.header.source, 'scenario');
    assert.equal(trace.header.gates.WatchListClient, false);
    assert.ok(trace.events.some((e) => e.type === 'relist'));
  });

  it('exits 1 and logs the divergence when the informer asks for something else', async () => {
    const diverging = JSON.stringify({
      format: 'informer-scenario/v1',
      name: 'diverging',
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      informer: { handlers: [{ name: 'main' }] },
      gates: { WatchListClient: false },
      steps: [{ on: 'watch', events: [], close: 'eof' }],
    });
    const m = memoryIo({ 'd.json': diverging });
    assert.equal(await runCli(['replay', 'd.json', '--profile', 'v1.34'], m.io), 1);
    const log = parseLog(m.out(), 'stdout');
    assert.deepEqual(log.slice(1), [{ kind: 'divergence', expected: 'watch', got: { verb: 'list', rv: '0' } }, { kind: 'end' }]);
    assert.match(m.err(), /diverged/);
  });

  it('gives the same log for the same seed', async () => {
    const text = readFileSync(join(SCENARIOS, 'apiserver-restart-refused-repeatedly.json'), 'utf8');
    const a = memoryIo({ 's.json': text });
    const b = memoryIo({ 's.json': text });
    assert.equal(await runCli(['replay', 's.json', '--seed', '3'], a.io), 0);
    assert.equal(await runCli(['replay', 's.json', '--seed', '3'], b.io), 0);
    assert.equal(a.out(), b.out());
  });
});
