/**
 * The conformance runner: every scenario of test/conformance/scenarios, for every profile it is
 * meant for, replayed through our engine and compared with the log real client-go produced
 * (test/conformance/expected/<profile>/<name>.ndjson, written by oracle/regen.sh). When an
 * expected log is missing but that profile's oracle binary is built, the oracle is run directly.
 * Ends with the line `N passed, M failed`; exits 1 if anything failed.
 *
 *   npx tsx test/conformance/run.ts [--profile P]... [--only SUBSTRING] [--quiet] [--fail-fast]
 *
 * --fail-fast stops at the first failing run (the mutation runner uses it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROFILES, findProfile } from '../../src/engine/profiles';
import { replayScenario } from '../../src/sources/engineReplay';
import { formatLog, parseLog, type LogLine } from '../../src/scenario/notificationLog';
import { parseScenarioText } from '../../src/scenario/validate';
import { compareWithVariants, formatMismatches, isV2Log, splitVariants } from './compare';
import { goRand } from './goRand';
import { judgeTransport } from './httpTransport';

const HERE = __dirname;
const SCENARIOS = join(HERE, 'scenarios');
const EXPECTED = join(HERE, 'expected');
const ORACLE_BIN = join(HERE, 'oracle', 'bin');
/** The oracle's exit code for "scenario not meant for this profile". */
const ORACLE_NOT_MEANT = 4;

type Expected = { log: LogLine[]; source: string } | { skip: true } | { missing: string };

function expectedLog(profile: string, name: string, scenarioPath: string): Expected {
  const file = join(EXPECTED, profile, `${name}.ndjson`);
  if (existsSync(file)) return { log: parseLog(readFileSync(file, 'utf8'), file), source: 'expected' };
  const oracle = join(ORACLE_BIN, profile, 'oracle');
  if (!existsSync(oracle)) return { missing: `no expected log (${file}) and no oracle built for ${profile}` };
  try {
    const out = execFileSync(oracle, [scenarioPath], { encoding: 'utf8', env: { ...process.env, ORACLE_ONLY_MEANT_FOR_PROFILE: '1', ORACLE_RUNS: process.env.ORACLE_RUNS ?? 'auto' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    return { log: parseLog(out, `oracle ${profile}`), source: 'oracle' };
  } catch (e) {
    const err = e as { status?: number; stdout?: string; stderr?: string };
    if (err.status === ORACLE_NOT_MEANT) return { skip: true };
    if (err.status === 1 && err.stdout) return { log: parseLog(err.stdout, `oracle ${profile}`), source: 'oracle' };
    return { missing: `oracle ${profile} failed (exit ${err.status ?? '?'}): ${(err.stderr ?? '').trim().split('\n')[0] ?? ''}` };
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { profile: { type: 'string', multiple: true }, only: { type: 'string' }, quiet: { type: 'boolean' }, 'fail-fast': { type: 'boolean' } } });
  const wanted = values.profile ?? PROFILES.map((p) => p.name);
  for (const p of wanted) if (!findProfile(p)) throw new Error(`unknown profile ${p}`);
  const transport = judgeTransport();
  let passed = 0;
  let failed = 0;
  const fail = (label: string, why: string) => {
    failed++;
    console.log(`FAIL ${label}\n${why}`);
  };
  const files = readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.json') && (!values.only || f.includes(values.only)))
    .sort();
  for (const file of files) {
    const path = join(SCENARIOS, file);
    let scenario;
    try {
      scenario = parseScenarioText(readFileSync(path, 'utf8'), file);
    } catch (e) {
      fail(file, `  ${(e as Error).message}`);
      continue;
    }
    for (const profileName of wanted) {
      if (scenario.profiles && !scenario.profiles.includes(profileName)) continue;
      const label = `${profileName} ${scenario.name}`;
      const expected = expectedLog(profileName, scenario.name, path);
      if ('skip' in expected) continue;
      if ('missing' in expected) {
        fail(label, `  ${expected.missing}`);
        continue;
      }
      const v2 = isV2Log(expected.log);
      const ours = await replayScenario(scenario, { profile: findProfile(profileName)!, transport, ...(v2 ? { logV2: true, rand: goRand() } : {}) });
      const mismatches = compareWithVariants(splitVariants(expected.log), ours.log);
      if (ours.outcome !== 'ended') mismatches.push({ aspect: 'run', diff: [`+ our run did not end normally: ${ours.outcome}${ours.error ? ` (${ours.error})` : ''}`] });
      if (mismatches.length === 0) {
        passed++;
        if (!values.quiet) console.log(`ok   ${label}`);
      } else {
        fail(label, formatMismatches(mismatches) + (process.env.CONFORMANCE_SHOW_LOGS ? `\n  ours:\n${formatLog(ours.log)}` : ''));
        if (values['fail-fast']) {
          console.log(`${passed} passed, ${failed} failed (stopped at the first failure)`);
          return 1;
        }
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
    console.log('0 passed, 1 failed');
    process.exit(2);
  },
);
