/**
 * One scenario file (anywhere, e.g. scenarios/generated/) on one or more profiles: the oracle's
 * full set of logs (ORACLE_RUNS, default auto) against our engine's log. For diagnosis; the corpus
 * runner is run.ts.
 *
 *   npx tsx test/conformance/one.ts SCENARIO.json [PROFILE...]
 *
 * Prints "ok"/"FAIL" per profile (with the diff and, with CONFORMANCE_SHOW_LOGS=1, both logs); exit 1 on a failure.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROFILES, findProfile } from '../../src/engine/profiles';
import { formatLog, parseLog } from '../../src/scenario/notificationLog';
import { parseScenarioText } from '../../src/scenario/validate';
import { replayScenario } from '../../src/sources/engineReplay';
import { compareWithVariants, formatMismatches, splitVariants } from './compare';
import { goRand } from './goRand';
import { judgeTransport } from './httpTransport';

async function main(): Promise<number> {
  const [file, ...asked] = process.argv.slice(2);
  if (!file) {
    console.error('usage: one.ts SCENARIO.json [PROFILE...]');
    return 2;
  }
  const scenario = parseScenarioText(readFileSync(file, 'utf8'), file);
  const profiles = asked.length ? asked : PROFILES.map((p) => p.name).filter((p) => !scenario.profiles || scenario.profiles.includes(p));
  let failed = 0;
  for (const name of profiles) {
    const profile = findProfile(name);
    if (!profile) throw new Error(`unknown profile ${name}`);
    let out: string;
    try {
      out = execFileSync(join(__dirname, 'oracle', 'bin', name, 'oracle'), [file], {
        encoding: 'utf8',
        env: { ...process.env, ORACLE_RUNS: process.env.ORACLE_RUNS ?? 'auto' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      const err = e as { status?: number; stdout?: string; stderr?: string };
      if (err.status !== 1 || !err.stdout) throw new Error(`oracle ${name} failed (exit ${err.status}): ${err.stderr ?? ''}`);
      out = err.stdout;
    }
    const variants = splitVariants(parseLog(out, `oracle ${name}`));
    const ours = await replayScenario(scenario, { profile, logV2: true, rand: goRand(), transport: judgeTransport() });
    const mismatches = compareWithVariants(variants, ours.log);
    if (ours.outcome !== 'ended') mismatches.push({ aspect: 'run', diff: [`+ our run did not end normally: ${ours.outcome} ${ours.error ?? ''}`] });
    console.log(`${mismatches.length ? 'FAIL' : 'ok  '} ${name} ${scenario.name} (${variants.length} oracle log(s))`);
    if (mismatches.length) {
      failed++;
      console.log(formatMismatches(mismatches));
    }
    if (process.env.CONFORMANCE_SHOW_LOGS) console.log(`  oracle:\n${out}\n  ours:\n${formatLog(ours.log)}`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`one: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
