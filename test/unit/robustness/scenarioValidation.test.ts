/**
 * Scenario validation (src/scenario/validate.ts) on mutated copies of the conformance scenarios:
 * generic JSON mutations (fields dropped, renamed, retyped) and step-level ones (steps dropped,
 * duplicated, swapped, turned into the other verb, other close kinds and codes). Every problem
 * is one line naming the file; a scenario that validates replays without an exception and the
 * run finishes (it may diverge from its script, or end at the virtual time limit).
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { findProfile, PROFILES } from '../../../src/engine/profiles';
import { replayScenario } from '../../../src/sources/engineReplay';
import { parseScenarioText, ScenarioValidationError, validateScenario } from '../../../src/scenario/validate';
import { check, isOneLine, jsonValue, mutate, mutation } from './support';

const DIR = join(__dirname, '../../conformance/scenarios');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const DOCS = FILES.map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { steps: Record<string, unknown>[]; profiles?: string[] });

type StepOp =
  | { op: 'drop' | 'dup'; at: number }
  | { op: 'swap'; at: number; other: number }
  | { op: 'verb'; at: number }
  | { op: 'close'; at: number; close: string }
  | { op: 'code'; at: number; code: number }
  | { op: 'value'; at: number; key: string; value: unknown };

const stepOp: fc.Arbitrary<StepOp> = fc.oneof(
  fc.record({ op: fc.constantFrom('drop' as const, 'dup' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), at: fc.nat(), other: fc.nat() }),
  fc.record({ op: fc.constant('verb' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('close' as const), at: fc.nat(), close: fc.constantFrom('eof', 'unexpected-eof', 'reset', 'timeout', 'error', 'decode-error', 'hang', 'bogus') }),
  fc.record({ op: fc.constant('code' as const), at: fc.nat(), code: fc.constantFrom(0, 200, 410, 429, 500, 504, -1, 1e9) }),
  fc.record({
    op: fc.constant('value' as const),
    at: fc.nat(),
    key: fc.constantFrom('resourceVersion', 'continue', 'durationMs', 'advanceMs', 'items', 'events', 'network'),
    value: fc.oneof(jsonValue, fc.constantFrom('', 'x', '-5', 0, -1, 1e12, 'connection-refused', 'timeout')),
  }),
);

function applyStepOp(doc: { steps: Record<string, unknown>[] }, m: StepOp): void {
  const steps = doc.steps;
  if (!Array.isArray(steps) || steps.length === 0) return;
  const i = m.at % steps.length;
  const step = steps[i];
  switch (m.op) {
    case 'drop':
      steps.splice(i, 1);
      break;
    case 'dup':
      steps.splice(i, 0, structuredClone(step));
      break;
    case 'swap': {
      const j = m.other % steps.length;
      [steps[i], steps[j]] = [steps[j], steps[i]];
      break;
    }
    case 'verb':
      if (step && 'on' in step) step.on = step.on === 'list' ? 'watch' : 'list';
      break;
    case 'close':
      if (step && step.on === 'watch') step.close = m.close;
      break;
    case 'code':
      if (step && step.error && typeof step.error === 'object') (step.error as Record<string, unknown>).code = m.code;
      break;
    case 'value':
      if (step) step[m.key] = m.value;
      break;
  }
}

const mutated = fc.record({
  file: fc.nat(FILES.length - 1),
  stepOps: fc.array(stepOp, { minLength: 1, maxLength: 3 }),
  // Mostly step-level changes, which keep the file valid more often and so reach the replay.
  jsonOps: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 2 }) }),
  profile: fc.nat(),
});

describe('robustness: scenario validation and replay', () => {
  it('every conformance scenario validates as it is (the mutations start from valid files)', () => {
    for (const [i, doc] of DOCS.entries()) assert.deepEqual(validateScenario(doc, FILES[i]).problems, [], FILES[i]);
  });

  it('mutated scenarios: one line per problem naming the file, or a replay that finishes without an exception', async () => {
    await check(
      fc.asyncProperty(mutated, async ({ file, stepOps, jsonOps, profile }) => {
        const doc = structuredClone(DOCS[file]);
        for (const m of stepOps) applyStepOp(doc, m);
        for (const m of jsonOps) mutate(doc, m);
        const label = `mutated/${FILES[file]}`;
        const result = validateScenario(doc, label);
        if (!result.scenario) {
          assert.ok(result.problems.length > 0);
          for (const p of result.problems) {
            assert.ok(isOneLine(p), `not one line: ${JSON.stringify(p)}`);
            assert.ok(p.startsWith(`scenario ${label}: `), p);
            assert.ok(p.length < 600, `problem of ${p.length} characters`);
          }
          return;
        }
        const allowed = result.scenario.profiles ?? PROFILES.map((p) => p.name);
        const name = allowed[profile % allowed.length];
        const r = await replayScenario(result.scenario, { profile: findProfile(name)!, maxVirtualMs: 3 * 3600_000 });
        assert.ok(r.outcome === 'ended' || r.outcome === 'limit', `${name}: replay ${r.outcome}${r.error ? `: ${r.error}` : ''}`);
        assert.deepEqual(r.log[r.log.length - 1], { kind: 'end' });
      }),
      { numRuns: 150, timeMs: 4000 },
    );
  });

  it('text that is not JSON, or JSON that is not a scenario: one ScenarioValidationError, one line per problem', async () => {
    await check(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), jsonValue.map((v) => JSON.stringify(v) ?? 'null')), (text) => {
        try {
          parseScenarioText(text, 'x.json');
          assert.fail('accepted');
        } catch (e) {
          assert.ok(e instanceof ScenarioValidationError, String(e));
          for (const p of e.problems) assert.ok(isOneLine(p) && p.startsWith('scenario x.json: '), JSON.stringify(p));
        }
      }),
    );
  });

  it('unknown fields and names with line breaks are shown escaped, on one line', () => {
    const doc = structuredClone(DOCS[0]) as Record<string, unknown>;
    doc['bad\nfield'] = 1;
    doc.profiles = ['v1.36\nv2'];
    for (const p of validateScenario(doc, 'f.json').problems) assert.ok(isOneLine(p), JSON.stringify(p));
  });
});
