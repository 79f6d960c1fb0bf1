/**
 * The update comparison's first guess (src/engine/diffGuess.ts): an object compared as the new
 * side keeps where the differences were, and its next comparison as the old side tries those
 * places first. Over generated chains of versions of one object (the same keys, leaves and
 * spaces changing from version to version, some of them in the same places again), each
 * comparison of the chain's lazy objects, which carry their records from one comparison to the
 * next, equals the comparison of the parsed objects and that of fresh lazy objects (no record:
 * diffWindow's own windows).
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { compareUpdate } from '../../../src/engine/diff';
import { guessStats, type WindowShape } from '../../../src/engine/diffGuess';
import { lazyObject, lazyStateOf } from '../../../src/engine/lazyObject';
import type { KubeObject } from '../../../src/engine/objects';
import { scanObject } from '../../../src/kube/jsonScan';
import { check } from '../robustness/support';

const LEAVES = [
  '1', '10', '-0', '"2026-01-01T00:00:01Z"', '"2026-01-01T00:00:02Z"', '"2026-01-01T00:00:03Z"', 'null', 'true', '"x\\"y"', '"\\u0041"',
  '"a/b"', '"k2"', '"lastProbeTime"', '[]', '{}', '[1,2]', '{"k2":1}', '{"lastProbeTime":"z"}', `"${'z'.repeat(20)}"`, '"a\\\\"',
];
const SPACES = ['', ' ', '\n '];
const KEYS = ['"lastProbeTime"', '"lastTransitionTime"', '"type"', '"k2"', '"k\\u0032"', '"0"', '"1a"', '"a/b"', '"conditions"', '"status"'];
/** A hole for a leaf and one for a gap of whitespace in a template. */
const LEAF = '\u0000';
const SPACE = '\u0001';

function lazy(text: string, listed: boolean): KubeObject | undefined {
  const s = scanObject(text, 0);
  if (!s) return undefined;
  return listed ? lazyObject<KubeObject>(text, s.fields, { apiVersion: 'v1', kind: 'Pod' }) : lazyObject<KubeObject>(text, s.fields);
}

/** The template with its holes filled: each leaf hole and space hole by the version's choice. */
function render(template: string, leaves: readonly string[], spaces: readonly string[]): string {
  let l = 0;
  let w = 0;
  let out = '';
  for (const c of template) out += c === LEAF ? leaves[l++] : c === SPACE ? spaces[w++] : c;
  return out;
}

/** Each version's choice per hole: the previous version's unless its draw says to choose again. */
function versions(draws: readonly (readonly number[])[], holes: number, pool: readonly string[], keep: number): string[][] {
  const out: string[][] = [];
  for (let v = 0; v < draws.length; v++) {
    const row: string[] = [];
    for (let h = 0; h < holes; h++) {
      const d = draws[v][h % draws[v].length] + h * 7;
      row.push(v > 0 && d % keep !== 0 ? out[v - 1][h] : pool[Math.floor(d / keep) % pool.length]);
    }
    out.push(row);
  }
  return out;
}

describe('engine: the update comparison tries the last differences first', () => {
  it('a chain of versions compares as the parsed objects and as fresh lazy objects do, record or not', async () => {
    const { value } = fc.letrec<{ value: string; object: string; array: string }>((t) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(LEAF), fc.constant(LEAF), t('object'), t('array')),
      object: fc
        .array(fc.tuple(fc.constantFrom(...KEYS), t('value')), { maxLength: 4 })
        .map((ms) => `{${ms.map(([k, v]) => `${SPACE}${k}:${SPACE}${v}`).join(',')}${SPACE}}`),
      array: fc.array(t('value'), { maxLength: 3 }).map((vs) => `[${vs.map((v) => `${SPACE}${v}`).join(',')}]`),
    }));
    const chain = fc
      .tuple(value, value, fc.boolean())
      .chain(([spec, status, listed]) =>
        fc.tuple(
          fc.constant(spec),
          fc.constant(status),
          fc.constant(listed),
          fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 6 }),
          fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 6 }),
        ),
      );
    let compared = 0;
    const heldBefore = guessStats.held;
    await check(
      fc.property(chain, ([spec, status, listed, leafDraws, spaceDraws]) => {
        const body = `"metadata":{"name":"p","resourceVersion":"@"},"spec":${spec},"status":${status}}`;
        const holes = (c: string) => [...body].filter((x) => x === c).length;
        const leaves = versions(leafDraws, holes(LEAF), LEAVES, 3);
        // Whitespace changes less often than leaves.
        const spaces = versions(spaceDraws.slice(0, leafDraws.length), holes(SPACE), SPACES, 9);
        const texts = leaves.map((ls, v) => render(body, ls, spaces[Math.min(v, spaces.length - 1)]).replace('@', String(10 + v)));
        const whole = (v: number) => `{"apiVersion":"v1","kind":"Pod",${texts[v]}`;
        // The first version as a LIST item (apiVersion and kind filled in) or as a watch object.
        const first = listed ? `{${texts[0]}` : whole(0);
        const objects = texts.map((_, v) => (v === 0 ? lazy(first, listed) : lazy(whole(v), false)));
        if (objects.some((o) => o === undefined)) return;
        for (let v = 0; v + 1 < texts.length; v++) {
          const hadRecord = lazyStateOf(objects[v]!)?.windows !== undefined;
          const got = compareUpdate(objects[v]!, objects[v + 1]!);
          const parsed = compareUpdate(JSON.parse(v === 0 ? whole(0) : whole(v)), JSON.parse(whole(v + 1)));
          assert.deepEqual(got, parsed, `${whole(v)} / ${whole(v + 1)} (record: ${hadRecord})`);
          const fresh = compareUpdate(lazy(v === 0 ? first : whole(v), v === 0 && listed)!, lazy(whole(v + 1), false)!);
          assert.deepEqual(got, fresh, `fresh: ${whole(v)} / ${whole(v + 1)}`);
          compared++;
        }
      }),
      { numRuns: 3000, timeMs: 10000 },
    );
    const held = guessStats.held - heldBefore;
    if (process.env.GUESS_DEBUG) console.log(`held ${held} of ${compared}`);
    assert.ok(held > compared / 5, `the guess settled ${held} of ${compared} comparisons`);
  });

  it('top-level keys JSON.parse puts first (array indices) or keeps once (repeated) compare as the parsed objects do', () => {
    const texts = [
      ['{"kind":"Pod","metadata":{"name":"p"},"b":1,"1":1}', '{"kind":"Pod","metadata":{"name":"p"},"b":2,"1":2}'],
      ['{"kind":"Pod","metadata":{"name":"p"},"b":1,"b":2}', '{"kind":"Pod","metadata":{"name":"p"},"b":3,"b":2}'],
      ['{"kind":"Pod","b":1,"metadata":{"name":"p"},"b":2}', '{"kind":"Pod","b":1,"metadata":{"name":"p"},"b":3}'],
    ];
    for (const [ta, tb] of texts) assert.deepEqual(compareUpdate(lazy(ta, false)!, lazy(tb, false)!), compareUpdate(JSON.parse(ta), JSON.parse(tb)), `${ta} / ${tb}`);
  });

  it('a Pod whose condition timestamps change in every update is compared from the last windows', () => {
    const pod = (rv: number, t: number) =>
      `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","resourceVersion":"${rv}"},"spec":{"x":1},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastProbeTime":"2026-01-01T00:00:0${t}Z","lastTransitionTime":"2026-01-01T00:00:0${t}Z"},{"type":"PodScheduled","status":"True","lastProbeTime":null}],"qosClass":"Burstable"}}`;
    const objects = [1, 2, 3, 4].map((v) => lazy(pod(10 + v, v), false)!);
    const before = guessStats.held;
    for (let v = 0; v + 1 < objects.length; v++) {
      assert.deepEqual(compareUpdate(objects[v], objects[v + 1]), compareUpdate(JSON.parse(pod(10 + v + 1, v + 1)), JSON.parse(pod(10 + v + 2, v + 2))));
    }
    assert.equal(guessStats.held - before, 2, 'the second and third comparisons from the first one\'s windows');
    const shape = lazyStateOf(objects[3])!.windows as WindowShape;
    assert.deepEqual([shape.key, shape.first.path, shape.second?.path], ['status', 'status.conditions[0].lastProbeTime', 'status.conditions[0].lastTransitionTime']);
    assert.equal(lazyStateOf(objects[2])!.windows, shape, 'one shape shared by the objects whose differences were at the same paths');
  });
});
