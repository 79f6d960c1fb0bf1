import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020';
import { eventValidator, fullValidator } from '../../../src/trace/schema/validators';
import { exportTrace } from '../../../src/trace/traceFile';
import { ALL_EVENT_TYPES, header, numbered, SAMPLE_EVENTS } from './fixtures';
import { scenarioTraces } from './scenarioTraces';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../../scripts/traceValidators.cjs') as { generate(): string };

interface Checks {
  fullValidator(): ValidateFunction;
  eventValidator(type: string): ValidateFunction | undefined;
}

/** The answer and errors of a check, comparable. */
function verdict(v: ValidateFunction | undefined, x: unknown): string {
  if (!v) return 'no check';
  return JSON.stringify([v(x), v.errors ?? null]);
}

describe('trace: the schema checks generated ahead of time (scripts/traceValidators.cjs) and compiled at run time agree', () => {
  let dir: string;
  let generated: Checks;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'trace-validators-'));
    const file = join(dir, 'validators.cjs');
    writeFileSync(file, generator.generate());
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    generated = require(file) as Checks;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every event type has its check; an unknown type has none', () => {
    for (const type of [...Object.keys(ALL_EVENT_TYPES), 'nope', '__proto__', 'toString']) {
      assert.equal(generated.eventValidator(type) === undefined, eventValidator(type) === undefined, type);
    }
    assert.equal(generated.eventValidator('nope'), undefined);
    assert.ok(generated.eventValidator('notify'));
  });

  it('the same answers and errors on every conformance trace, each of its events, and thousands of damaged events and documents', async function () {
    this.timeout(120_000);
    const traces = [...(await scenarioTraces()).map((x) => x.trace), { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) }];
    let seed = 5;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const odd = [null, -1, 1.5, '', 'x', true, [], {}, 1e300, 'Added'];
    let compared = 0;
    for (const t of traces) {
      const doc = JSON.parse(exportTrace(t)) as { events: Record<string, unknown>[] };
      assert.equal(verdict(generated.fullValidator(), doc), verdict(fullValidator(), doc));
      for (const e of doc.events.slice(0, 300)) {
        const type = String(e.type);
        assert.equal(verdict(generated.eventValidator(type), e), verdict(eventValidator(type), e), type);
        // One field changed to an odd value, or dropped.
        const keys = Object.keys(e);
        const damaged: Record<string, unknown> = { ...e };
        const k = keys[rand(keys.length)];
        if (rand(4) === 0) delete damaged[k];
        else damaged[k] = odd[rand(odd.length)];
        assert.equal(verdict(generated.eventValidator(type), damaged), verdict(eventValidator(type), damaged), `${type} with ${k} damaged`);
        const whole = { ...doc, events: [damaged] };
        assert.equal(verdict(generated.fullValidator(), whole), verdict(fullValidator(), whole), `a document with ${type}.${k} damaged`);
        compared += 3;
      }
    }
    assert.ok(compared > 3000, `${compared} comparisons`);
  });
});
