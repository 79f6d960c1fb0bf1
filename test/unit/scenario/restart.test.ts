/**
 * The `restart` action (docs/scenario-format.md, "Actions"): the replay stops the informer and
 * runs a fresh one over the same scripted server, with the scenario's handlers only.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProfile } from '../../../src/engine/profiles';
import { replayScenario } from '../../../src/sources/engineReplay';
import { validateScenario } from '../../../src/scenario/validate';

const corpus = (name: string) => {
  const v = validateScenario(JSON.parse(readFileSync(join(__dirname, '../../conformance/scenarios', `${name}.json`), 'utf8')), name);
  assert.ok(v.scenario, v.problems.join('; '));
  return v.scenario;
};

describe('scenario action restart (engine replay)', () => {
  it('the fresh informer lists again, its handler gets the initial adds and a second synced; a handler added before the restart is gone', async () => {
    const r = await replayScenario(corpus('restart-after-sync'), { profile: findProfile('v1.34')!, logV2: true });
    const log = r.log as Array<{ kind: string; t: number; handler?: string; verb?: string; op?: string; initialList?: boolean }>;
    assert.deepEqual(log.filter((l) => l.kind === 'synced').map((l) => l.t), [0, 1000]);
    assert.deepEqual(log.filter((l) => l.kind === 'request').map((l) => `${l.verb}@${l.t}`), ['list@0', 'watch@0', 'list@1000', 'watch@1000', 'watch@3000']);
    assert.deepEqual(log.filter((l) => l.handler === 'late').map((l) => l.t), [500, 500]);
    assert.deepEqual(
      log.filter((l) => l.handler === 'main' && l.t === 1000).map((l) => `${l.op}:${l.initialList}`),
      ['add:true', 'add:true'],
    );
    assert.equal(r.outcome, 'ended');
  });

  it('a restart during a backoff: the stopped informer sends nothing more', async () => {
    const r = await replayScenario(corpus('restart-during-backoff'), { profile: findProfile('v1.36')!, logV2: true });
    const reqs = (r.log as Array<{ kind: string; t: number; verb?: string }>).filter((l) => l.kind === 'request');
    assert.deepEqual(reqs.map((l) => `${l.verb}@${l.t}`), ['list@0', 'list@300', 'watch@300', 'watch@2300']);
  });
});
