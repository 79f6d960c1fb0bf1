/** The traces of every conformance scenario replayed through the engine: a corpus of real event mixes. */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { replay } from '../../../src/app/sessions';
import { validateScenario } from '../../../src/scenario/validate';
import type { TraceData } from '../../../src/trace/traceFile';

const SCENARIOS = join(__dirname, '../../conformance/scenarios');

export async function scenarioTraces(): Promise<{ name: string; trace: TraceData }[]> {
  const out: { name: string; trace: TraceData }[] = [];
  for (const f of readdirSync(SCENARIOS).filter((x) => x.endsWith('.json')).sort()) {
    const scenario = validateScenario(JSON.parse(readFileSync(join(SCENARIOS, f), 'utf8')), f).scenario!;
    const run = await replay(scenario, { trace: true });
    out.push({ name: f, trace: { header: run.recorder!.header(), events: run.recorder!.events() } });
  }
  return out;
}
