/**
 * Generated scenarios: fast-check arbitraries over the scenario format (lists with pages, list and
 * watch errors, every way a watch or list ends, network failures, event timings, handlers, slow
 * handlers, resync periods, the watch-list gate) replayed by our engine and by real client-go side
 * by side, on every profile. The oracles take a whole batch per process (ORACLE_BATCH_OUT) and run
 * each scenario ORACLE_RUNS times; a mismatch is checked again with ORACLE_RUNS=auto (the full set of
 * logs client-go can produce), then shrunk greedily to a minimal scenario, saved under
 * test/conformance/scenarios/generated/ (not part of the corpus until reviewed and renamed).
 *
 *   npx tsx test/conformance/generate.ts [--count N] [--seed S] [--profile P]... [--keep]
 *   npm run conformance -- --generate N --seed S
 *
 * Ends with "N passed, M failed" (one count per scenario × profile); exit 1 on any mismatch.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { PROFILES, findProfile } from '../../src/engine/profiles';
import { parseLog, type LogLine } from '../../src/scenario/notificationLog';
import { validateScenario } from '../../src/scenario/validate';
import type { Scenario } from '../../src/scenario/types';
import { seededRand } from '../../src/sources/seededRand';
import { replayScenario } from '../../src/sources/engineReplay';
import { compareWithVariants, formatMismatches, splitVariants, type Mismatch } from './compare';
import { goRand } from './goRand';
import { judgeTransport } from './httpTransport';

const HERE = __dirname;
const ORACLE_BIN = join(HERE, 'oracle', 'bin');
const GENERATED = join(HERE, 'scenarios', 'generated');
/**
 * Mismatches already diagnosed (generated-known.json: "<profile> <scenario>" → why). They are
 * reported as KNOWN, not failed; one that stops mismatching is reported so it can be removed.
 */
const KNOWN_FILE = join(HERE, 'generated-known.json');

// ---- arbitraries ----------------------------------------------------------------------------

type Raw = Record<string, unknown>;

const KEYS = ['a', 'b', 'c'];
const ERRORS: Raw[] = [
  { code: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' },
  { code: 410, reason: 'Gone', message: 'gone' },
  { code: 500, reason: 'InternalError', message: 'an error on the server' },
  { code: 429, reason: 'TooManyRequests', message: 'too many requests', retryAfterSeconds: 1 },
  { code: 403, reason: 'Forbidden', message: 'forbidden' },
  { code: 504, reason: 'Timeout', message: 'Too large resource version', causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
];

const obj = (keys: string[]) => fc.record({ key: fc.constantFrom(...keys), color: fc.constantFrom('red', 'blue') });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

function stepArb(keys: string[]): fc.Arbitrary<Raw> {
  const event = fc.record({
    type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
    o: obj(keys),
    atMs: maybe(fc.integer({ min: 0, max: 3000 })),
  });
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('list'), items: fc.array(obj(keys), { maxLength: 3 }), continue: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('listError'), error: fc.constantFrom(...ERRORS) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('net'), on: fc.constantFrom('list', 'watch'), network: fc.constantFrom('connection-refused', 'connection-reset', 'timeout'), durationMs: maybe(fc.integer({ min: 0, max: 3000 })) }) },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('watch'),
        events: fc.array(event, { maxLength: 4 }),
        close: fc.constantFrom('eof', 'unexpected-eof', 'reset', 'timeout', 'error', 'decode-error'),
        error: fc.constantFrom(...ERRORS),
        durationMs: maybe(fc.integer({ min: 0, max: 4000 })),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('watchError'), error: fc.constantFrom(...ERRORS) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance'), advanceMs: fc.integer({ min: 1, max: 5000 }) }) },
  );
}

const planArb = fc
  .record({
    resyncPeriodMs: fc.constantFrom(0, 0, 0, 1000, 2500),
    second: fc.option(fc.record({ resyncPeriodMs: maybe(fc.constantFrom(0, 1500)), delayMs: maybe(fc.constantFrom(50, 700)) }), { nil: undefined }),
    watchList: fc.boolean(),
    lateHandlerAt: maybe(fc.integer({ min: 1, max: 6 })),
  })
  .chain((p) => {
    // With resync on, one object only: every resync tick over several objects is one more random
    // (map-order) choice in client-go, and the set of its logs would not become stable.
    const keys = p.resyncPeriodMs > 0 ? ['a'] : KEYS;
    return fc.record({ plan: fc.constant(p), steps: fc.array(stepArb(keys), { minLength: 1, maxLength: 7 }) });
  });

/** A ConfigMapList blueprint (base64 JSON, no items), as an apiserver puts on the initial-events-end bookmark. */
const LIST_BLUEPRINT = Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{}}').toString('base64');

/**
 * A watch-list plan's bookmarks end the initial events; every other one (even RV) also carries the
 * list blueprint, which v0.32's client-side watch-list needs (without it that LIST falls back to a
 * plain LIST): both paths without a new random draw, so a seed's scenarios stay otherwise the same.
 */
function bookmark(rv: string, watchList: boolean): Raw {
  if (!watchList) return { metadata: { resourceVersion: rv } };
  const annotations: Record<string, string> = { 'k8s.io/initial-events-end': 'true' };
  if (Number(rv) % 2 === 0) annotations['kubernetes.io/initial-events-list-blueprint'] = LIST_BLUEPRINT;
  return { metadata: { resourceVersion: rv, annotations } };
}

/** Builds a valid scenario from a plan: resourceVersions increase through the script. */
export function buildScenario(name: string, g: { plan: Raw; steps: Raw[] }): Raw {
  let rv = 10;
  const next = () => String(++rv);
  const o = (x: { key: string; color: string }) => ({ metadata: { namespace: 'default', name: x.key, resourceVersion: next() }, data: { color: x.color } });
  const plan = g.plan as { resyncPeriodMs: number; second?: { resyncPeriodMs?: number; delayMs?: number }; watchList: boolean; lateHandlerAt?: number };
  const steps: Raw[] = [];
  let token = 0;
  g.steps.forEach((s, i) => {
    if (plan.lateHandlerAt === i) steps.push({ addHandler: { name: 'late', resyncPeriodMs: 0 } });
    switch (s.kind) {
      case 'list': {
        const items = (s.items as { key: string; color: string }[]).map(o);
        const step: Raw = { on: 'list', resourceVersion: next(), items };
        steps.push(step);
        if (s.continue) {
          // A continue token needs the next page as the next step: a last page, empty.
          step.continue = `tok-${++token}`;
          steps.push({ on: 'list', resourceVersion: step.resourceVersion, items: [] });
        }
        break;
      }
      case 'listError':
        steps.push({ on: 'list', error: s.error });
        break;
      case 'net':
        steps.push({ on: s.on, network: s.network, ...(s.on === 'watch' && s.durationMs !== undefined ? { durationMs: s.durationMs } : {}) });
        break;
      case 'watch': {
        const events = (s.events as { type: string; o: { key: string; color: string }; atMs?: number }[]).map((e) => ({
          type: e.type,
          object: e.type === 'BOOKMARK' ? bookmark(next(), plan.watchList) : o(e.o),
          ...(e.atMs !== undefined ? { atMs: e.atMs } : {}),
        }));
        const step: Raw = { on: 'watch', events, close: s.close };
        if (s.close === 'error') step.error = s.error;
        if (s.close === 'decode-error') step.error = { message: "invalid character 'x' looking for beginning of value" };
        if (s.durationMs !== undefined) step.durationMs = s.durationMs;
        steps.push(step);
        break;
      }
      case 'watchError':
        steps.push({ on: 'watch', error: s.error });
        break;
      case 'advance':
        steps.push({ advanceMs: s.advanceMs });
        break;
    }
  });
  const handlers: Raw[] = [{ name: 'main' }];
  if (plan.second) handlers.push({ name: 'second', ...(plan.second.resyncPeriodMs !== undefined ? { resyncPeriodMs: plan.second.resyncPeriodMs } : {}), ...(plan.second.delayMs !== undefined ? { delayMs: plan.second.delayMs } : {}) });
  return {
    format: 'informer-scenario/v1',
    name,
    description: 'generated (test/conformance/generate.ts)',
    resource: { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
    informer: { resyncPeriodMs: plan.resyncPeriodMs, handlers },
    gates: { WatchListClient: plan.watchList },
    steps,
  };
}

/**
 * The scenario extensions (selectors, a transform, indexers, timed actions) laid over a built
 * scenario. Drawn from their own small generator seeded by (seed, index), not from fast-check, so
 * the base scenarios of a seed stay what they were. A profile without SetTransform or
 * RemoveEventHandler (v1.15) runs the scenario without them (forProfile).
 */
export function withExtensions(raw: Raw, seed: number, index: number): Raw {
  const rnd = seededRand((Math.imul(seed ^ 0x5bd1e995, 31) + Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const out = structuredClone(raw) as Raw & { informer: Raw; steps: Raw[] };
  if (rnd() < 0.2) out.informer.labelSelector = 'app=web';
  if (rnd() < 0.25) {
    out.informer.indexers = { byColor: 'label:color' };
    // Objects carry their color as a label too, so the index has something to index.
    const label = (o: { metadata?: Raw; data?: { color?: string } }) => {
      if (o.metadata?.name && o.data?.color) o.metadata.labels = { color: o.data.color };
    };
    for (const st of out.steps) {
      for (const it of (st.items as Raw[] | undefined) ?? []) label(it);
      for (const ev of (st.events as { object: Raw }[] | undefined) ?? []) label(ev.object);
    }
  }
  if (rnd() < 0.2) {
    out.informer.transform = 'count-transforms';
  }
  if (rnd() < 0.25) {
    const at = Math.floor(rnd() * 4000);
    const actions: Raw[] = [{ atMs: at, addHandler: { name: 'timed' } }];
    if (rnd() < 0.5) {
      actions.push({ atMs: at + 1 + Math.floor(rnd() * 2000), removeHandler: 'timed' });
    }
    out.actions = actions;
  }
  return out;
}

/**
 * What the wire does to the answers (extension fields both sides serve as bytes): gzip on every
 * body of some scenarios (transparent to the reflector) and, in fewer, one list page or watch
 * stream cut after a number of body bytes. Drawn from a PRNG of its own, so the base scenarios and
 * withExtensions' choices of a seed stay what they were.
 */
export function withWire(raw: Raw, seed: number, index: number): Raw {
  const rnd = seededRand((Math.imul(seed ^ 0x27d4eb2f, 17) + Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  const out = structuredClone(raw) as Raw & { steps: Raw[] };
  const bodies = out.steps.filter((st) => 'items' in st || 'events' in st || 'error' in st);
  if (rnd() < 0.3) for (const st of bodies) st.gzip = true;
  const cuttable = out.steps.filter((st) => 'items' in st || ('events' in st && (st.events as unknown[]).length > 0));
  if (cuttable.length > 0 && rnd() < 0.12) {
    const st = cuttable[Math.floor(rnd() * cuttable.length)];
    st.cutAtByte = Math.floor(rnd() * 400);
  }
  return out;
}

/** The scenario as a profile can run it: without the calls its client-go lacks. */
export function forProfile(raw: Raw, profileName: string): Raw {
  const p = findProfile(profileName)!;
  const out = structuredClone(raw) as Raw & { informer: Raw; actions?: Raw[] };
  out.profiles = [profileName];
  if (!p.hasSetTransform) delete out.informer.transform;
  if (!p.hasRemoveEventHandler && out.actions) out.actions = out.actions.filter((a) => !('removeHandler' in a));
  return out;
}

// ---- running both sides -------------------------------------------------------------------------

interface OracleOut {
  rc: number;
  log: LogLine[];
}

/** Runs one profile's oracle over many scenario files (same gates) in one process. */
function oracleBatch(profile: string, files: string[], runs: string): Map<string, OracleOut> {
  const out = new Map<string, OracleOut>();
  if (files.length === 0) return out;
  const dir = mkdtempSync(join(tmpdir(), 'ii-gen-out-'));
  try {
    execFileSync(join(ORACLE_BIN, profile, 'oracle'), files, {
      env: { ...process.env, ORACLE_BATCH_OUT: dir, ORACLE_RUNS: runs },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 600_000,
      maxBuffer: 64 << 20,
    });
    for (const f of files) {
      const base = f.slice(f.lastIndexOf('/') + 1).replace(/\.json$/, '');
      const rc = Number(readFileSync(join(dir, `${base}.rc`), 'utf8').trim());
      out.set(f, { rc, log: rc === 3 ? [] : parseLog(readFileSync(join(dir, `${base}.ndjson`), 'utf8'), `oracle ${profile} ${base}`) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

async function engineMismatches(scenario: Scenario, profile: string, expected: LogLine[]): Promise<Mismatch[]> {
  const ours = await replayScenario(scenario, { profile: findProfile(profile)!, logV2: true, rand: goRand(), transport: judgeTransport() });
  const m = compareWithVariants(splitVariants(expected), ours.log);
  if (ours.outcome !== 'ended') m.push({ aspect: 'run', diff: [`+ our run did not end normally: ${ours.outcome}${ours.error ? ` (${ours.error})` : ''}`] });
  return m;
}

/** One scenario on one profile: undefined when engine and client-go agree (or client-go could not run it). */
async function judgeOne(raw: Raw, profile: string, dir: string): Promise<Mismatch[] | undefined> {
  const file = join(dir, `${String(raw.name)}.json`);
  writeFileSync(file, JSON.stringify(raw, null, 2));
  const o = oracleBatch(profile, [file], 'auto').get(file);
  if (!o || o.rc === 3 || o.rc === 4) return undefined;
  const v = validateScenario(raw, file);
  if (!v.scenario) return undefined;
  const m = await engineMismatches(v.scenario, profile, o.log);
  return m.length ? m : undefined;
}

/** Greedy shrinking: drop steps, events, items, handlers and options while the mismatch stays. */
async function shrink(raw: Raw, profile: string, dir: string): Promise<Raw> {
  let best = structuredClone(raw);
  const candidates = (s: Raw): Raw[] => {
    const out: Raw[] = [];
    const steps = s.steps as Raw[];
    for (let i = steps.length - 1; i >= 0; i--) out.push({ ...s, steps: steps.filter((_, j) => j !== i) });
    steps.forEach((st, i) => {
      for (const field of ['events', 'items'] as const) {
        const arr = st[field] as unknown[] | undefined;
        if (!arr) continue;
        for (let k = arr.length - 1; k >= 0; k--) {
          const copy = structuredClone(steps);
          (copy[i][field] as unknown[]).splice(k, 1);
          out.push({ ...s, steps: copy });
        }
      }
      for (const field of ['durationMs', 'continue', 'advanceMs'] as const) {
        if (st[field] === undefined || field === 'advanceMs') continue;
        const copy = structuredClone(steps);
        delete copy[i][field];
        out.push({ ...s, steps: copy });
      }
    });
    const inf = s.informer as { resyncPeriodMs: number; handlers: Raw[] };
    if (inf.handlers.length > 1) out.push({ ...s, informer: { ...inf, handlers: [inf.handlers[0]] } });
    if (inf.resyncPeriodMs) out.push({ ...s, informer: { ...inf, resyncPeriodMs: 0 } });
    return out;
  };
  for (let progress = true, rounds = 0; progress && rounds < 50; rounds++) {
    progress = false;
    for (const c of candidates(best)) {
      c.name = best.name;
      if (validateScenario(c, 'candidate').scenario && (await judgeOne(c, profile, dir))) {
        best = c;
        progress = true;
        break;
      }
    }
  }
  return best;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { count: { type: 'string' }, seed: { type: 'string' }, profile: { type: 'string', multiple: true }, runs: { type: 'string' }, 'no-shrink': { type: 'boolean' } } });
  const count = Number(values.count ?? 1000);
  const seed = Number(values.seed ?? 42);
  const profiles = values.profile ?? PROFILES.map((p) => p.name);
  if (!Number.isInteger(count) || count < 1) throw new Error(`--count must be a positive integer, not ${values.count}`);
  for (const p of profiles) {
    if (!findProfile(p)) throw new Error(`unknown profile ${p}`);
    if (!existsSync(join(ORACLE_BIN, p, 'oracle'))) throw new Error(`no oracle built for ${p} (test/conformance/oracle/build.sh)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'ii-gen-'));
  const t0 = Date.now();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const mismatches: string[] = [];
  const known: Record<string, string> = existsSync(KNOWN_FILE) ? (JSON.parse(readFileSync(KNOWN_FILE, 'utf8')) as Record<string, string>) : {};
  let knownCount = 0;
  const knownSeen = new Set<string>();
  try {
    const plans = fc.sample(planArb, { seed, numRuns: count });
    const raws: Raw[] = [];
    for (const [i, g] of plans.entries()) {
      const raw = withWire(withExtensions(buildScenario(`gen-s${seed}-${i}`, g as { plan: Raw; steps: Raw[] }), seed, i), seed, i);
      raws.push(raw);
    }
    for (const profile of profiles) {
      const pdir = join(dir, profile);
      mkdirSync(pdir, { recursive: true });
      // client-go reads feature gates once per process: one batch per gate setting.
      const byGates = new Map<string, Raw[]>();
      for (const base of raws) {
        const r = forProfile(base, profile);
        const v = validateScenario(r, String(r.name));
        if (!v.scenario) throw new Error(`the generator built an invalid scenario ${String(r.name)} for ${profile}: ${v.problems.slice(0, 3).join('; ')}`);
        writeFileSync(join(pdir, `${String(r.name)}.json`), JSON.stringify(r));
        const k = JSON.stringify(r.gates);
        byGates.set(k, [...(byGates.get(k) ?? []), r]);
      }
      for (const group of byGates.values()) {
        const files = group.map((r) => join(pdir, `${String(r.name)}.json`));
        const results = oracleBatch(profile, files, values.runs ?? '10');
        for (const r of group) {
          const file = join(pdir, `${String(r.name)}.json`);
          const o = results.get(file)!;
          if (o.rc === 3) {
            skipped++;
            mismatches.push(`${profile} ${String(r.name)}: the oracle failed on it (internal error), not judged`);
            continue;
          }
          const v = validateScenario(r, file);
          if (!v.scenario) throw new Error('unreachable: validated above');
          let m = await engineMismatches(v.scenario, profile, o.log);
          if (m.length) m = (await judgeOne(r, profile, dir)) ?? []; // the full set of client-go's logs
          const knownKey = `${profile} ${String(r.name)}`;
          if (known[knownKey] !== undefined) knownSeen.add(knownKey);
          if (!m.length) {
            passed++;
            if (known[knownKey] !== undefined) console.log(`NOW PASSES ${knownKey}: remove it from test/conformance/generated-known.json`);
            continue;
          }
          if (known[knownKey] !== undefined) {
            knownCount++;
            console.log(`KNOWN    ${knownKey}: ${known[knownKey]}`);
            continue;
          }
          failed++;
          const small = values['no-shrink'] ? r : await shrink(r, profile, dir);
          mkdirSync(GENERATED, { recursive: true });
          const name = `${String(r.name)}-${profile}`;
          small.name = name;
          small.description = `generated (seed ${seed}, scenario ${String(r.name)}), shrunk; engine differs from client-go on ${profile}`;
          small.profiles = [profile];
          writeFileSync(join(GENERATED, `${name}.json`), JSON.stringify(small, null, 2) + '\n');
          const again = (await judgeOne(small, profile, dir)) ?? m;
          mismatches.push(`${profile} ${String(r.name)} → scenarios/generated/${name}.json\n${formatMismatches(again)}`);
          console.log(`MISMATCH ${profile} ${String(r.name)} → scenarios/generated/${name}.json`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const m of mismatches) console.log(m);
  console.log(
    `generated: ${count} scenarios (seed ${seed}) × ${profiles.length} profiles in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${knownCount} known mismatches (generated-known.json); ${skipped} not judged (oracle internal error)`,
  );
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`generate: ${e instanceof Error ? e.message : String(e)}`);
      console.log('0 passed, 1 failed');
      process.exit(2);
    },
  );
}
