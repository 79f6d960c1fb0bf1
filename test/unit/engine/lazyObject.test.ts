/**
 * Lazy objects (src/engine/lazyObject.ts): to any reader they are the parsed object; the engine's
 * accessors read the scanned fields without parsing; the update comparison treats equal texts as
 * identical and otherwise compares as for parsed objects.
 */
import { strict as assert } from 'node:assert';
import { inspect } from 'node:util';
import { compareUpdate } from '../../../src/engine/diff';
import { lazyObject, lazyStateOf, plainObject, rawOf } from '../../../src/engine/lazyObject';
import { DeletedFinalStateUnknown, isTombstone, metaField, resourceVersionOf, typeField, type KubeObject } from '../../../src/engine/objects';
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc, metaNamespaceKeyFunc } from '../../../src/engine/store';
import { scanObject } from '../../../src/kube/jsonScan';
import fc from 'fast-check';
import { check, jsonValue } from '../robustness/support';

function lazy(text: string, defaults?: { apiVersion: unknown; kind: string }) {
  const s = scanObject(text, 0);
  assert.ok(s, 'scanned');
  return lazyObject(text, s.fields, defaults);
}

const POD = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"5","labels":{"x":"1"}},"spec":{"n":[1,2]}}';

describe('engine: lazy objects', () => {
  it('reads key, resourceVersion and kind without parsing', () => {
    const o = lazy(POD);
    assert.equal(metaNamespaceKeyFunc(o), 'ns/a');
    assert.equal(resourceVersionOf(o), '5');
    assert.equal(typeField(o, 'kind'), 'Pod');
    assert.equal(lazyStateOf(o)?.parsed, undefined, 'still text');
  });

  it('the state read last is kept for the next question about the same object, never given for another', () => {
    const a = lazy(POD);
    const b = lazy(POD.replace('"a"', '"b"'));
    const plain = JSON.parse(POD) as KubeObject;
    const tomb = new DeletedFinalStateUnknown('ns/a', a);
    const asked: unknown[] = [a, a, b, plain, plain, tomb, a, tomb, tomb, b, b, undefined, null, 'x', a, plain];
    for (const o of asked) {
      assert.equal(lazyStateOf(o) !== undefined, o === a || o === b);
      if (o === a || o === b) assert.equal(lazyStateOf(o)?.name, o === a ? 'a' : 'b');
      assert.equal(isTombstone(o), o === tomb);
    }
  });

  it('is the parsed object to every other reader, parsed once', () => {
    const o = lazy(POD);
    assert.deepEqual(JSON.parse(JSON.stringify(o)), JSON.parse(POD));
    assert.deepEqual(Object.keys(o), ['kind', 'apiVersion', 'metadata', 'spec']);
    assert.equal(o.metadata, o.metadata, 'the same parsed metadata each time');
    assert.ok('spec' in o && !('status' in o));
    assert.deepEqual({ ...o }.spec, { n: [1, 2] });
    assert.ok(!Array.isArray(o) && typeof o === 'object' && o instanceof Object);
    assert.match(inspect(o), /labels/);
    const state = lazyStateOf(o);
    assert.equal(state && rawOf(state), undefined, 'the text is dropped once parsed');
  });

  it('after parsing, the accessors read the (possibly changed) parsed object', () => {
    const o = lazy(POD);
    (plainObject(o).metadata as { name: string }).name = 'b';
    assert.equal(metaField(o, 'name'), 'b');
    assert.equal(metaNamespaceKeyFunc(o), 'ns/b');
  });

  it('keys and the namespace index of an unparsed lazy object are those of the parsed object', () => {
    const texts = [
      POD,
      '{"kind":"Node","metadata":{"name":"n1"}}',
      '{"kind":"Pod","metadata":{"namespace":"","name":"x"}}',
      '{"kind":"Pod","metadata":{"namespace":"ns"}}',
      '{"kind":"Pod","metadata":{"name":"a","namespace":"ns1"},"metadata":{"name":"b"}}',
      '{"kind":"Thing","metadata":{"n\\u0061me":"esc","namespace":"n\\u0073"}}',
    ];
    for (const t of texts) {
      const plain = JSON.parse(t) as KubeObject;
      for (const f of [metaNamespaceKeyFunc, deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc]) {
        const o = lazy(t);
        assert.deepEqual(f(o), f(plain), `${f.name}: ${t}`);
        assert.equal(lazyStateOf(o)?.parsed, undefined, 'still text');
      }
    }
    const tomb = new DeletedFinalStateUnknown('ns/gone', lazy(POD));
    assert.equal(deletionHandlingMetaNamespaceKeyFunc(tomb), 'ns/gone');
    assert.throws(() => metaNamespaceKeyFunc(tomb), /object has no meta/);
  });

  it('a LIST item gets the list apiVersion/kind in front, as decodeList spreads them', () => {
    const o = lazy('{"metadata":{"name":"a"},"__proto__":{"x":1}}', { apiVersion: 'v1', kind: 'Pod' });
    assert.deepEqual(Object.keys(o), ['apiVersion', 'kind', 'metadata', '__proto__']);
    assert.equal(Object.getPrototypeOf(plainObject(o)), Object.prototype);
  });

  it('an update of the same text is identical without parsing; any other is compared as parsed objects', () => {
    const a = lazy(POD);
    const b = lazy(POD);
    assert.deepEqual(compareUpdate(a, b), { change: 'identical', diff: [], total: 0 });
    assert.equal(lazyStateOf(a)?.parsed, undefined);
    const c = lazy(POD.replace('"5"', '"6"'));
    const cmp = compareUpdate(a, c);
    assert.deepEqual(cmp, compareUpdate(JSON.parse(POD), JSON.parse(POD.replace('"5"', '"6"'))));
    assert.equal(cmp.change, 'resourceVersion');
    assert.equal(lazyStateOf(c)?.parsed, undefined, 'compared without keeping a parsed tree');
    // Same value, other text: still identical, found by the walk.
    assert.equal(compareUpdate(a, lazy(POD.replace('[1,2]', '[1, 2.0]'))).change, 'identical');
    // Same text, other list defaults: not taken as identical from the text alone.
    const d = lazy('{"metadata":{"name":"a"}}', { apiVersion: 'v1', kind: 'Pod' });
    const e = lazy('{"metadata":{"name":"a"}}', { apiVersion: 'v2', kind: 'Pod' });
    assert.equal(compareUpdate(d, e).change, 'other');
  });

  it('the update comparison of lazy objects equals the comparison of the parsed objects', async () => {
    // Two objects built from one pool of members (same texts, other texts, repeats, other orders).
    const keys = fc.constantFrom('kind', 'apiVersion', 'metadata', 'spec', 'status', 'data', '1', 'a b');
    const member = fc.tuple(keys, fc.oneof(jsonValue, fc.constantFrom('"Secret"', '"v1"')));
    const pool = fc.array(member, { minLength: 1, maxLength: 6 });
    const pick = fc.array(fc.nat(), { maxLength: 7 });
    const defaults = fc.option(fc.record({ apiVersion: fc.constantFrom('v1', 'v2'), kind: fc.constantFrom('Pod', 'Secret') }), { nil: undefined });
    let partial = 0;
    await check(
      fc.property(pool, pick, pick, defaults, defaults, (members, ia, ib, da, db) => {
        const text = (idx: number[]) =>
          `{${idx
            .map((i) => members[i % members.length])
            .map(([k, v]) => `${JSON.stringify(k)}:${typeof v === 'string' && v.startsWith('"') && v.endsWith('"') ? v : JSON.stringify(v)}`)
            .join(',')}}`;
        const [ta, tb] = [text(ia), text(ib)];
        const sa = scanObject(ta, 0);
        const sb = scanObject(tb, 0);
        if (!sa || !sb) return;
        // As decodeList: the defaults only for an item with neither kind nor apiVersion.
        const fill = (t: string, d: typeof da) => {
          const o = JSON.parse(t) as { kind?: unknown; apiVersion?: unknown };
          return !o.kind && !o.apiVersion ? d : undefined;
        };
        [da, db] = [fill(ta, da), fill(tb, db)];
        const plain = (t: string, d: typeof da) => (d ? { apiVersion: d.apiVersion, kind: d.kind, ...JSON.parse(t) } : JSON.parse(t));
        const want = compareUpdate(plain(ta, da), plain(tb, db));
        const fields = (f: NonNullable<typeof sa>['fields'], d: typeof da) => (d ? { ...f, apiVersion: f.apiVersion ?? d.apiVersion, kind: f.kind ?? d.kind } : f);
        const a = lazyObject(ta, fields(sa.fields, da), da);
        const b = lazyObject(tb, fields(sb.fields, db), db);
        assert.deepEqual(compareUpdate(a, b), want, `${ta} / ${tb}`);
        assert.equal(lazyStateOf(a)?.parsed, undefined);
        partial++;
      }),
      { numRuns: 3000, timeMs: 6000 },
    );
    assert.ok(partial > 100, `${partial} lazy pairs compared`);
  });

  it('nested members and elements compared by text give the same comparison as the parsed objects', async () => {
    // Texts from small pools, so the two objects share many nested members and elements, differ in
    // a few, and have repeated keys, escaped keys and quotes, `__proto__`, other spellings of one value.
    const space = fc.constantFrom('', ' ', '\n  ');
    const leaf = fc.constantFrom('1', '1.0', '2', '"x"', '"y"', '"a\\"b\\\\"', 'null', 'true', '[]', '{}');
    const key = fc.constantFrom('"a"', '"b"', '"\\u0061"', '"1"', '"__proto__"', '"resourceVersion"', '"managedFields"');
    const { value } = fc.letrec<{ value: string; object: string; array: string }>((t) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, t('object'), t('array')),
      object: fc
        .tuple(fc.array(fc.tuple(key, t('value')), { maxLength: 4 }), space)
        .map(([ms, w]) => `{${ms.map(([k, v]) => `${w}${k}${w}:${v}`).join(',')}${w}}`),
      array: fc.tuple(fc.array(t('value'), { maxLength: 4 }), space).map(([vs, w]) => `[${vs.join(`,${w}`)}]`),
    }));
    const pod = fc
      .tuple(value, value, value, fc.constantFrom('Pod', 'Secret'))
      .map(([m, st, d, kind]) => `{"kind":"${kind}","metadata":${m},"status":${st},"data":${d}}`);
    let nested = 0;
    await check(
      fc.property(pod, pod, (ta, tb) => {
        const sa = scanObject(ta, 0);
        const sb = scanObject(tb, 0);
        if (!sa || !sb) return;
        const a = lazyObject(ta, sa.fields);
        const b = lazyObject(tb, sb.fields);
        assert.deepEqual(compareUpdate(a, b), compareUpdate(JSON.parse(ta), JSON.parse(tb)), `${ta} / ${tb}`);
        if (/^\{"kind":"\w+","metadata":[{[]/.test(ta) && /^\{"kind":"\w+","metadata":[{[]/.test(tb)) nested++;
      }),
      { numRuns: 3000, timeMs: 6000 },
    );
    assert.ok(nested > 100, `${nested} pairs with nested metadata compared`);
  });
});
