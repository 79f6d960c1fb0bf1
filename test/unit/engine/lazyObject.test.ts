/**
 * Lazy objects (src/engine/lazyObject.ts): to any reader they are the parsed object; the engine's
 * accessors read the scanned fields without parsing; the update comparison treats equal texts as
 * identical and otherwise compares as for parsed objects.
 */
import { strict as assert } from 'node:assert';
import { inspect } from 'node:util';
import { compareUpdate } from '../../../src/engine/diff';
import { lazyObject, lazyStateOf, plainObject } from '../../../src/engine/lazyObject';
import { metaField, resourceVersionOf, typeField } from '../../../src/engine/objects';
import { metaNamespaceKeyFunc } from '../../../src/engine/store';
import { scanObject } from '../../../src/kube/jsonScan';

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

  it('is the parsed object to every other reader, parsed once', () => {
    const o = lazy(POD);
    assert.deepEqual(JSON.parse(JSON.stringify(o)), JSON.parse(POD));
    assert.deepEqual(Object.keys(o), ['kind', 'apiVersion', 'metadata', 'spec']);
    assert.equal(o.metadata, o.metadata, 'the same parsed metadata each time');
    assert.ok('spec' in o && !('status' in o));
    assert.deepEqual({ ...o }.spec, { n: [1, 2] });
    assert.ok(!Array.isArray(o) && typeof o === 'object' && o instanceof Object);
    assert.match(inspect(o), /labels/);
    assert.equal(lazyStateOf(o)?.raw, undefined, 'the text is dropped once parsed');
  });

  it('after parsing, the accessors read the (possibly changed) parsed object', () => {
    const o = lazy(POD);
    (plainObject(o).metadata as { name: string }).name = 'b';
    assert.equal(metaField(o, 'name'), 'b');
    assert.equal(metaNamespaceKeyFunc(o), 'ns/b');
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
});
