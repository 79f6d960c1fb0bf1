/**
 * The update comparison from the texts (src/engine/textDiff.ts): of each differing member only the
 * smallest value around the differences is parsed; for two lazy objects that gives exactly the
 * comparison of the parsed objects.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { compareUpdate } from '../../../src/engine/diff';
import { lazyObject, lazyStateOf, membersOf } from '../../../src/engine/lazyObject';
import { diffWindow } from '../../../src/engine/textDiff';
import { scanObject } from '../../../src/kube/jsonScan';
import { check } from '../robustness/support';

function lazy(text: string) {
  const s = scanObject(text, 0);
  assert.ok(s, `scanned ${text}`);
  return lazyObject(text, s.fields);
}

/** The window of two whole texts: its path and the two value texts (the first of several: windowsOf). */
function windowOf(a: string, b: string): [(string | number)[], string, string] | undefined {
  const ws = windowsOf(a, b);
  assert.ok(ws === undefined || ws.length === 1, `one window: ${JSON.stringify(ws)}`);
  return ws?.[0];
}

/** Every window of two whole texts, in order. */
function windowsOf(a: string, b: string): [(string | number)[], string, string][] | undefined {
  return diffWindow(a, 0, a.length, b, 0, b.length)?.map((w) => [w.keys, a.slice(w.oldStart, w.oldEnd), b.slice(w.newStart, w.newEnd)]);
}

describe('engine: update comparison from the texts', () => {
  it('parses only the smallest value around the differences', () => {
    assert.deepEqual(windowOf('{"a":{"b":[1,"x",null]},"c":true}', '{"a":{"b":[1,"yz",null]},"c":true}'), [['a', 'b', 1], '"x"', '"yz"']);
    assert.deepEqual(windowOf('{"a":{"b":[1,"x",null]},"c":true}', '{"a":{"b":[1,"x",{}]},"c":true}'), [['a', 'b', 2], 'null', '{}']);
    assert.deepEqual(windowOf('{"a":[5,6],"c":1}', '{"a":[50,6],"c":1}'), [['a', 0], '5', '50']);
    assert.deepEqual(windowsOf('{"a":{"p":"1","q":"2"},"c":1}', '{"a":{"p":"3","q":"4"},"c":1}'), [
      [['a', 'p'], '"1"', '"3"'],
      [['a', 'q'], '"2"', '"4"'],
    ]);
    assert.deepEqual(windowsOf('{"a":[5,{"x":1},7,8],"c":1}', '{"a":[50,{"x":1},7,{}],"c":1}'), [
      [['a', 0], '5', '50'],
      [['a', 3], '8', '{}'],
    ]);
    assert.deepEqual(windowOf('{"a":1}', '{"a":1,"b":2}'), [[], '{"a":1}', '{"a":1,"b":2}']);
    assert.deepEqual(windowOf('{"a": 1}', '{"a":1}'), [[], '{"a": 1}', '{"a":1}']);
  });

  it('takes a larger value when a key on the path could be repeated after it (the last one wins)', () => {
    assert.deepEqual(windowOf('{"a":{"x":1},"a":{"x":3}}', '{"a":{"x":2},"a":{"x":3}}'), [[], '{"a":{"x":1},"a":{"x":3}}', '{"a":{"x":2},"a":{"x":3}}']);
    assert.deepEqual(windowOf('{"a":{"x":1},"b":"\\u0061"}', '{"a":{"x":2},"b":"\\u0061"}'), [[], '{"a":{"x":1},"b":"\\u0061"}', '{"a":{"x":2},"b":"\\u0061"}']);
    assert.deepEqual(windowOf('{"\\u0061":{"x":1}}', '{"\\u0061":{"x":2}}'), [[], '{"\\u0061":{"x":1}}', '{"\\u0061":{"x":2}}']);
    assert.deepEqual(windowOf('{"a":{"x":1},"b":{"x":1}}', '{"a":{"x":2},"b":{"x":1}}'), [['a'], '{"x":1}', '{"x":2}'], '"x" again in another object');
    // Several members of one object differ: one window each, unless a key could be repeated or reordered.
    assert.deepEqual(windowOf('{"a":{"p":1,"q":2,"p":3}}', '{"a":{"p":4,"q":5,"p":3}}'), [['a'], '{"p":1,"q":2,"p":3}', '{"p":4,"q":5,"p":3}']);
    assert.deepEqual(windowOf('{"a":{"q":1,"1":2}}', '{"a":{"q":3,"1":4}}'), [['a'], '{"q":1,"1":2}', '{"q":3,"1":4}']);
    assert.deepEqual(windowOf('{"a":{"p":1,"q":"\\n","r":2}}', '{"a":{"p":3,"q":"\\n","r":4}}'), [['a'], '{"p":1,"q":"\\n","r":2}', '{"p":3,"q":"\\n","r":4}']);
    assert.deepEqual(windowOf('{"a":{"p":1, "q":2}}', '{"a":{"p":3,"q":4}}'), [['a'], '{"p":1, "q":2}', '{"p":3,"q":4}']);
    const repeated = ['{"m":{"a":{"p":1,"q":2},"a":{"p":0}}}', '{"m":{"a":{"p":3,"q":4},"a":{"p":0}}}'] as const;
    assert.deepEqual(windowOf(...repeated), [['m'], repeated[0].slice(5, -1), repeated[1].slice(5, -1)], 'the object holding both is replaced by a later "a"');
    assert.deepEqual(compareUpdate(lazy(repeated[0]), lazy(repeated[1])), compareUpdate(JSON.parse(repeated[0]), JSON.parse(repeated[1])));
  });

  it('an update of a Pod that changes the RV and a condition is compared without parsing either object', () => {
    const pod = (rv: string, t: string) =>
      `{"kind":"Pod","metadata":{"name":"p","resourceVersion":"${rv}"},"spec":{"x":1},"status":{"conditions":[{"type":"Ready","lastProbeTime":"${t}"}]}}`;
    const a = lazy(pod('1', 'T1'));
    const b = lazy(pod('2', 'T2'));
    const cmp = compareUpdate(a, b);
    assert.deepEqual(cmp, compareUpdate(JSON.parse(pod('1', 'T1')), JSON.parse(pod('2', 'T2'))));
    assert.equal(cmp.change, 'status');
    assert.deepEqual(cmp.diff.map((c) => c.path), ['metadata.resourceVersion', 'status.conditions[0].lastProbeTime']);
    assert.equal(lazyStateOf(a)?.parsed, undefined);
    assert.equal(lazyStateOf(b)?.parsed, undefined);
  });

  it('equals the comparison of the parsed objects for pairs of one shape with other leaves, spellings and spaces', async () => {
    // Each tree is rendered twice: keys the same on both sides; each leaf and each gap of whitespace
    // chosen per side (mostly the same), so most pairs have one shape and differ in a few leaves.
    const oneSpace = fc.constantFrom('', '', ' ', '\n ');
    // Mostly the same gap on both sides, sometimes another.
    const space = fc.oneof({ weight: 5, arbitrary: oneSpace.map((w) => [w, w] as const) }, { weight: 1, arbitrary: fc.tuple(oneSpace, oneSpace) });
    const leaf = fc.constantFrom('1', '1.0', '10', '-0', '1e1', '"x"', '"y"', '"\\u0078"', '"a\\"b\\\\"', '"a/b"', 'null', 'true', 'false', '[]', '{}', '[1]', '{"a":1}');
    const leafPair = fc.oneof({ weight: 3, arbitrary: leaf.map((l) => [l, l] as const) }, { weight: 1, arbitrary: fc.tuple(leaf, leaf) });
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('"a"', '"b"', '"c"', '"a b"', '"a/b"', '"__proto__"', '"resourceVersion"', '"managedFields"') },
      { weight: 1, arbitrary: fc.constantFrom('"\\u0061"', '"a\\/b"', '"1"', '"x"') },
    );
    type Pair = readonly [string, string];
    const member = (t: (k: 'value') => fc.Arbitrary<Pair>) => fc.tuple(key, t('value'), space, space);
    const { value } = fc.letrec<{ value: Pair; object: Pair; array: Pair }>((t) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafPair, t('object'), t('array')),
      object: fc
        .tuple(
          fc.oneof(
            { weight: 4, arbitrary: fc.uniqueArray(member(t), { maxLength: 4, selector: ([k]) => k }) },
            { weight: 1, arbitrary: fc.array(member(t), { maxLength: 4 }) },
          ),
          space,
          space,
        )
        .map(([ms, wa, wb]): Pair => [
          `{${ms.map(([k, v, w, x]) => `${w[0]}${k}${x[0]}:${v[0]}`).join(`,${wa[0]}`)}${wb[0]}}`,
          `{${ms.map(([k, v, w, x]) => `${w[1]}${k}${x[1]}:${v[1]}`).join(`,${wa[1]}`)}${wb[1]}}`,
        ]),
      array: fc
        .tuple(fc.array(fc.tuple(t('value'), space), { maxLength: 4 }), space)
        .map(([vs, w]): Pair => [`[${vs.map(([v, s]) => `${s[0]}${v[0]}`).join(',')}${w[0]}]`, `[${vs.map(([v, s]) => `${s[1]}${v[1]}`).join(',')}${w[1]}]`]),
    }));
    const pod = fc
      .tuple(value, value, value, fc.constantFrom('Pod', 'Secret'))
      .map(([m, st, d, kind]) => [`{"kind":"${kind}","metadata":${m[0]},"status":${st[0]},"data":${d[0]}}`, `{"kind":"${kind}","metadata":${m[1]},"status":${st[1]},"data":${d[1]}}`]);
    let inner = 0;
    let compared = 0;
    await check(
      fc.property(pod, ([ta, tb]) => {
        const sa = scanObject(ta, 0);
        const sb = scanObject(tb, 0);
        if (!sa || !sb) return; // the scanner declines a metadata that is not an object: never lazy
        const a = lazyObject(ta, sa.fields);
        const b = lazyObject(tb, sb.fields);
        assert.deepEqual(compareUpdate(a, b), compareUpdate(JSON.parse(ta), JSON.parse(tb)), `${ta} / ${tb}`);
        compared++;
        // How often a member's window is below it (the members in the same order on both sides here).
        const [ma, mb] = [membersOf(sa.fields) ?? [], membersOf(sb.fields) ?? []];
        for (let m = 0; m + 2 < ma.length && m + 2 < mb.length; m += 3) {
          const [as, ae, bs, be] = [ma[m + 1], ma[m + 2], mb[m + 1], mb[m + 2]] as number[];
          if (ta.slice(as, ae) !== tb.slice(bs, be) && (diffWindow(ta, as, ae, tb, bs, be)?.[0].keys.length ?? 0) > 0) {
            inner++;
            break;
          }
        }
      }),
      { numRuns: 4000, timeMs: 8000 },
    );
    assert.ok(inner > compared / 4, `${inner} of ${compared} pairs compared below a top-level member`);
  });
});
