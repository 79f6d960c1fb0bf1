import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scenarioResource, traceHeader } from '../../../src/app/headers';
import { replayProfile } from '../../../src/app/profiles';
import { createSession, replay } from '../../../src/app/sessions';
import { BadInputError } from '../../../src/app/errors';
import { findProfile } from '../../../src/engine/profiles';
import type { Scenario } from '../../../src/scenario/types';
import { parseScenarioText } from '../../../src/scenario/validate';
import { TraceRecorder } from '../../../src/trace/recorder';
import { exportTrace } from '../../../src/trace/traceFile';

const SCENARIOS = join(__dirname, '../../conformance/scenarios');
function scenario(name: string): Scenario {
  return parseScenarioText(readFileSync(join(SCENARIOS, `${name}.json`), 'utf8'), `${name}.json`);
}

describe('app: sessions and trace headers', () => {
  // v1.32 does not know InOrderInformers: the engine runs DeltaFIFO whatever the scenario asks,
  // and the header must say so (it used to record the gates as asked in the extension).
  const asked = scenario('gate-inorder-informers-unknown-to-v132');

  it('a v1.32 replay with gates {InOrderInformers: true} records the gates the engine runs (InOrderInformers false)', async () => {
    assert.equal(asked.gates?.InOrderInformers, true, 'the scenario asks for the gate');
    const session = await createSession('s1', { kind: 'replay', scenario: asked, profile: 'v1.32' });
    const header = session.header();
    const start = session.events().find((e) => e.type === 'informer.start');
    assert.ok(start && start.type === 'informer.start');
    assert.equal(start.fifo, 'DeltaFIFO', 'the engine ran DeltaFIFO');
    assert.equal(header.profile, 'v1.32');
    assert.equal(header.gates.InOrderInformers, false);
    assert.deepEqual(header.gates, replayProfile(asked, 'v1.32').profile.gates);
    assert.equal(header.source, 'scenario');
  });

  it('the same scenario on v1.34 records InOrderInformers true and runs RealFIFO', async () => {
    const run = await replay(asked, { profile: 'v1.34', trace: true });
    const header = run.recorder!.header();
    assert.equal(header.gates.InOrderInformers, true);
    const start = run.recorder!.events().find((e) => e.type === 'informer.start');
    assert.ok(start && start.type === 'informer.start' && start.fifo === 'RealFIFO');
  });

  it('the CLI path (replay) and the extension path (createSession) write the same header', async () => {
    const a = (await replay(asked, { profile: 'v1.32', trace: true })).recorder!.header();
    const b = (await createSession('s2', { kind: 'replay', scenario: asked, profile: 'v1.32' })).header();
    assert.deepEqual({ ...a, startedAt: '' }, { ...b, startedAt: '' });
  });

  it('profile choice: the scenario\'s first profile when it is not meant for the default; a warning when asked for another', () => {
    const only115 = { ...asked, profiles: ['v1.15'] };
    assert.equal(replayProfile(only115).profile.name, 'v1.15');
    assert.equal(replayProfile(only115).warning, undefined);
    const forced = replayProfile(only115, 'v1.36');
    assert.equal(forced.profile.name, 'v1.36');
    assert.match(forced.warning ?? '', /meant for v1\.15, not v1\.36/);
    assert.throws(() => replayProfile(asked, 'v9.99'), (e: Error) => e instanceof BadInputError && /unknown profile "v9\.99"/.test(e.message));
  });

  it('traceHeader takes the resource of a scenario and the effective profile\'s gates', () => {
    const p = findProfile('v1.36')!;
    const h = traceHeader({ profile: p, resource: scenarioResource(asked), source: 'scenario' });
    assert.deepEqual(h.resource, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true });
    assert.deepEqual(h.gates, p.gates);
    assert.notEqual(h.gates, p.gates, 'a copy');
    assert.equal(h.redacted, true);
  });

  it('an imported trace becomes a session; a broken file is one BadInputError line', async () => {
    const rec = new TraceRecorder(traceHeader({ profile: findProfile('v1.36')!, resource: scenarioResource(asked), source: 'sandbox' }));
    rec.emit({ t: 1, type: 'synced' });
    const s = await createSession('i1', { kind: 'import', name: 'x.informer-trace.json', text: exportTrace(rec) });
    assert.equal(s.kind, 'import');
    assert.equal(s.simulated, true);
    assert.equal(s.live, false);
    assert.deepEqual(s.events().map((e) => e.type), ['synced']);
    await assert.rejects(createSession('i2', { kind: 'import', name: 'bad.json', text: '{"format":"nope"}' }), (e: Error) => e instanceof BadInputError && !e.message.includes('\n'));
  });
});
