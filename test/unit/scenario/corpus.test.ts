import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stepKind, type Scenario } from '../../../src/scenario/types';
import { validateScenario } from '../../../src/scenario/validate';

const DIR = join(__dirname, '../../conformance/scenarios');

describe('scenario corpus (test/conformance/scenarios)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  const scenarios: Scenario[] = [];

  it('has at least 45 scenarios, each valid and named after its file', () => {
    assert.ok(files.length >= 45, `only ${files.length} scenarios`);
    for (const f of files) {
      const r = validateScenario(JSON.parse(readFileSync(join(DIR, f), 'utf8')), f);
      assert.deepEqual(r.problems, [], f);
      assert.equal(r.scenario!.name, f.replace(/\.json$/, ''), f);
      scenarios.push(r.scenario!);
    }
  });

  it('covers the stories of the brief', () => {
    const all = scenarios.flatMap((s) => s.steps.map((st) => ({ s, st })));
    const has = (pred: (x: (typeof all)[number]) => boolean, what: string) => assert.ok(all.some(pred), `no scenario with ${what}`);
    for (const close of ['eof', 'unexpected-eof', 'reset', 'timeout', 'error', 'decode-error']) has(({ st }) => 'close' in st && st.close === close, `close ${close}`);
    for (const net of ['connection-refused', 'connection-reset', 'timeout']) {
      has(({ st }) => 'network' in st && st.network === net && st.on === 'watch', `watch network ${net}`);
      has(({ st }) => 'network' in st && st.network === net && st.on === 'list', `list network ${net}`);
    }
    for (const code of [410, 429, 500, 504, 403, 422]) has(({ st }) => 'error' in st && st.error?.code === code, `error ${code}`);
    has(({ st }) => stepKind(st) === 'addHandler', 'a handler added after start');
    has(({ st }) => 'continue' in st && !!st.continue, 'pagination');
    has(({ st }) => 'events' in st && st.events.some((e) => e.type === 'BOOKMARK' && e.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true'), 'a watch-list end bookmark');
    assert.ok(scenarios.some((s) => s.informer.handlers.filter((h) => h.resyncPeriodMs).length >= 2), 'no resync with several periods');
    assert.ok(scenarios.some((s) => s.profiles?.length === 1 && s.profiles[0] === 'v1.15'), 'no v1.15-only scenario');
  });
});
