import { strict as assert } from 'node:assert';
import { PROFILES } from '../../../src/engine/profiles';
import { parseScenarioText, ScenarioValidationError, validateScenario } from '../../../src/scenario/validate';

function base(steps: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'informer-scenario/v1',
    name: 't',
    resource: { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
    informer: { resyncPeriodMs: 0, handlers: [{ name: 'main' }] },
    steps,
    ...extra,
  };
}
const obj = (name: string, rv: string) => ({ metadata: { namespace: 'default', name, resourceVersion: rv } });

function problems(data: unknown): string[] {
  return validateScenario(data, 'x.json').problems;
}

describe('scenario validation', () => {
  it('accepts the contract example and fills events for a close-only stream', () => {
    const r = validateScenario(
      base([
        { on: 'list', resourceVersion: '10', items: [obj('a', '5')] },
        { on: 'watch', close: 'error', error: { code: 410, reason: 'Expired', message: 'too old' } },
        { advanceMs: 100 },
        { addHandler: { name: 'late', resyncPeriodMs: 0 } },
        { on: 'list', resourceVersion: '25', items: [] },
      ]),
      'x.json',
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual((r.scenario!.steps[1] as { events: unknown[] }).events, []);
  });

  it('names a bad close value with the allowed values, one line', () => {
    const p = problems(base([{ on: 'watch', events: [], close: 'boom' }]));
    assert.deepEqual(p, ['scenario x.json: steps[0].close must be one of eof, unexpected-eof, reset, timeout, error, decode-error']);
  });

  it('reports missing and unknown fields with their paths', () => {
    const data = base([{ on: 'list', items: [], resourceVersion: '1', resourceversion: '2' }]);
    delete data.resource;
    const p = problems(data);
    assert.ok(p.includes('scenario x.json: resource is required'), p.join('\n'));
    assert.ok(p.includes('scenario x.json: steps[0] has an unknown field "resourceversion"'), p.join('\n'));
  });

  it('requires error with close:error and error.message with decode-error', () => {
    const p = problems(base([{ on: 'watch', events: [], close: 'error' }, { on: 'watch', events: [], close: 'decode-error' }]));
    assert.deepEqual(p, [
      'scenario x.json: steps[0]: close error needs error',
      'scenario x.json: steps[1]: close decode-error needs error.message (the decoder\'s error text)',
    ]);
  });

  it('checks the continue token chain', () => {
    assert.deepEqual(problems(base([{ on: 'list', items: [], resourceVersion: '1', continue: 'c1' }, { advanceMs: 5 }, { on: 'watch', events: [], close: 'eof' }])), [
      'scenario x.json: steps[0].continue "c1" needs the next page as a list step, but steps[2] is a watch step',
    ]);
    assert.equal(problems(base([{ on: 'list', items: [], resourceVersion: '1', continue: 'c1' }])).length, 1);
    assert.deepEqual(problems(base([{ on: 'list', items: [], resourceVersion: '1', continue: 'c1' }, { on: 'list', error: { code: 410, reason: 'Expired', message: 'x' } }])), []);
  });

  it('rejects mixed step kinds and fields of the wrong verb', () => {
    const p = problems(
      base([
        { advanceMs: 5, on: 'list' },
        { on: 'list', items: [], resourceVersion: '1', close: 'eof' },
        { on: 'watch', network: 'timeout', events: [] },
        { on: 'watch', items: [], events: [], close: 'eof' },
        { on: 'watch' },
        { on: 'list', error: { reason: 'Expired', message: 'x' } },
      ]),
    );
    assert.deepEqual(p, [
      'scenario x.json: steps[0].on cannot be combined with advanceMs',
      'scenario x.json: steps[1].close only applies to watch steps',
      'scenario x.json: steps[2].events cannot be combined with network',
      'scenario x.json: steps[3].items only applies to list steps',
      'scenario x.json: steps[4] needs events + close, error or network',
      'scenario x.json: steps[5].error.code is required',
    ]);
  });

  it('accepts listTypeMeta on a list page only, with both apiVersion and kind', () => {
    const tm = { apiVersion: 'meta.k8s.io/v1', kind: 'Table' };
    assert.deepEqual(problems(base([{ on: 'list', items: [], resourceVersion: '1', listTypeMeta: tm }])), []);
    const p = problems(
      base([
        { on: 'watch', events: [], close: 'eof', listTypeMeta: tm },
        { on: 'list', error: { code: 500, reason: 'InternalError', message: 'x' }, listTypeMeta: tm },
      ]),
    );
    assert.deepEqual(p, [
      'scenario x.json: steps[0].listTypeMeta only applies to list steps',
      'scenario x.json: steps[1].listTypeMeta cannot be combined with error',
    ]);
    assert.deepEqual(problems(base([{ on: 'list', items: [], resourceVersion: '1', listTypeMeta: { kind: 'Table' } }])), [
      'scenario x.json: steps[0].listTypeMeta.apiVersion is required',
    ]);
  });

  it('checks objects, handler names, profiles and locked gates', () => {
    const p = problems(
      base(
        [
          { on: 'list', items: [{ metadata: { namespace: 'default' } }], resourceVersion: '1' },
          { on: 'watch', events: [{ type: 'BOOKMARK', object: { metadata: {} } }], close: 'eof' },
          { addHandler: { name: 'main' } },
        ],
        { profiles: ['v1.36', 'v9'], gates: { InOrderInformers: false } },
      ),
    );
    assert.deepEqual(p, [
      'scenario x.json: profiles[1] "v9" is not a profile (known: v1.15, v1.32, v1.34, v1.36)',
      'scenario x.json: gates.InOrderInformers cannot be false for profile v1.36 (locked to true there); limit "profiles"',
      'scenario x.json: steps[0].items[0].metadata.name is required',
      'scenario x.json: steps[1].events[0].object.metadata.resourceVersion is required for a BOOKMARK',
      'scenario x.json: steps[2].addHandler.name "main" is used by another handler',
    ]);
  });

  it('takes locked gates from the profiles table: every locked gate of every profile is refused, unknown gates are allowed', () => {
    let checked = 0;
    for (const profile of PROFILES) {
      for (const [gate, locked] of Object.entries(profile.lockedGates)) {
        const p = problems(base([], { profiles: [profile.name], gates: { [gate]: !locked } }));
        assert.deepEqual(p, [`scenario x.json: gates.${gate} cannot be ${!locked} for profile ${profile.name} (locked to ${locked} there); limit "profiles"`]);
        assert.deepEqual(problems(base([], { profiles: [profile.name], gates: { [gate]: locked } })), []);
        checked++;
      }
    }
    assert.ok(checked > 0, 'some profile locks a gate');
    // v1.32 does not know InOrderInformers: client-go ignores the override, so the scenario may set it.
    assert.deepEqual(problems(base([], { profiles: ['v1.32'], gates: { InOrderInformers: false } })), []);
  });

  it('parseScenarioText throws one line for bad JSON', () => {
    assert.throws(
      () => parseScenarioText('{', 'y.json'),
      (e: unknown) => e instanceof ScenarioValidationError && e.problems.length === 1 && e.problems[0].startsWith('scenario y.json: not valid JSON'),
    );
  });
});
