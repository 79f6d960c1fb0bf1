/**
 * Findings on traces of real engine runs: conformance scenarios replayed through the engine
 * (src/sources/engineReplay.ts) into a TraceRecorder. Also checks that every replayed trace
 * exports to a schema-valid file that round-trips.
 */
import { strict as assert } from 'assert';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { findProfile, PROFILES } from '../../../src/engine/profiles';
import { replayScenario } from '../../../src/sources/engineReplay';
import { parseScenarioText } from '../../../src/scenario/validate';
import { computeFindings } from '../../../src/trace/findings';
import type { Finding } from '../../../src/format/trace';
import { TraceRecorder } from '../../../src/trace/recorder';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { header } from './fixtures';

const DIR = join(__dirname, '../../conformance/scenarios');

async function replay(file: string, profileName: string): Promise<TraceRecorder> {
  const scenario = parseScenarioText(readFileSync(join(DIR, file), 'utf8'), file);
  const profile = findProfile(profileName);
  assert.ok(profile);
  const { dropped: _d, ...h } = header({ profile: profileName });
  const rec = new TraceRecorder(h);
  const result = await replayScenario(scenario, { profile, sink: rec });
  assert.equal(result.outcome, 'ended', `${file} under ${profileName}: ${result.error ?? result.outcome}`);
  return rec;
}

async function findingsOf(file: string, profile: string): Promise<Finding[]> {
  const rec = await replay(file, profile);
  return computeFindings(rec.header(), rec.events());
}

const base = (id: string) => id.split(':')[0];

/** [scenario, profile, findings that must be there, findings that must not]. */
const CASES: [string, string, string[], string[]][] = [
  ['apiserver-restart-v115.json', 'v1.15', ['refused-watch-relist', 'identical-updates-after-relist'], []],
  ['apiserver-restart-modern.json', 'v1.36', [], ['refused-watch-relist', 'identical-updates-after-relist', 'relist-storm']],
  ['watch-410-relist.json', 'v1.34', ['expired-relist'], ['consistent-relist']],
  ['list-410-consistent-relist.json', 'v1.36', ['expired-relist', 'consistent-relist'], []],
  ['list-410-consistent-relist.json', 'v1.15', ['expired-relist'], ['consistent-relist']],
  ['watch-internal-error-relist.json', 'v1.36', ['internal-error-relist'], ['client-timeout-relist']],
  ['watch-decode-error-relist.json', 'v1.32', ['client-timeout-relist'], ['internal-error-relist']],
  ['watch-client-timeout-rewatch.json', 'v1.36', [], ['client-timeout-relist', 'internal-error-relist']],
  ['delete-missed-while-disconnected.json', 'v1.36', ['tombstones-delivered'], []],
  ['basic-list-watch.json', 'v1.36', [], ['tombstones-delivered', 'expired-relist']],
  ['watchlist-without-end-bookmark.json', 'v1.36', ['watchlist-no-end-bookmark'], []],
  ['watchlist-410-consistent.json', 'v1.36', [], ['watchlist-no-end-bookmark']],
  ['watch-open-429-v115-relist.json', 'v1.15', ['apiserver-429'], []],
  ['watch-open-429-rewatch.json', 'v1.36', ['apiserver-429'], ['relist-storm']],
];

describe('findings on replayed scenarios', () => {
  for (const [file, profile, present, absent] of CASES) {
    it(`${file} (${profile}): ${present.length ? present.join(', ') : 'no ' + absent.join(', no ')}`, async () => {
      const ids = (await findingsOf(file, profile)).map((f) => base(f.id));
      for (const id of present) assert.ok(ids.includes(id), `missing ${id}; got ${JSON.stringify(ids)}`);
      for (const id of absent) assert.ok(!ids.includes(id), `unexpected ${id}`);
    });
  }

  it('the v1.15 restart: the relist evidence points at the refused watch and the identical updates name the handler', async () => {
    const rec = await replay('apiserver-restart-v115.json', 'v1.15');
    const findings = computeFindings(rec.header(), rec.events());
    const refused = findings.find((f) => f.id === 'refused-watch-relist');
    const burst = findings.find((f) => f.id.startsWith('identical-updates-after-relist'));
    assert.ok(refused && burst);
    const bySeq = new Map(rec.events().map((e) => [e.seq, e]));
    const types = refused.evidence.map((s) => bySeq.get(s)?.type);
    assert.ok(types.includes('relist') && types.includes('watch.end'), JSON.stringify(types));
    const ends = refused.evidence.map((s) => bySeq.get(s)).filter((e) => e?.type === 'watch.end');
    assert.ok(ends.every((e) => e?.type === 'watch.end' && e.row === 6));
    for (const s of burst.evidence.slice(1)) {
      const e = bySeq.get(s);
      assert.ok(e?.type === 'distribute' && e.change === 'identical' && e.delivered > 0);
    }
  });

  it('every corpus scenario, under each of its profiles, exports a schema-valid trace that round-trips', async () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
    assert.ok(files.length > 0);
    let runs = 0;
    for (const file of files) {
      const scenario = parseScenarioText(readFileSync(join(DIR, file), 'utf8'), file);
      const profiles = scenario.profiles ?? PROFILES.map((p) => p.name);
      for (const p of profiles) {
        const text = exportTrace(await replay(file, p));
        assert.equal(exportTrace(importTrace(text)), text, `${file} ${p}`);
        runs++;
      }
    }
    assert.ok(runs >= files.length);
    // The whole corpus (220+ scenarios × profiles) takes ~30 s on a busy shared machine.
  }).timeout(120_000);
});
