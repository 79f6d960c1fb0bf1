import assert from 'node:assert/strict';
import { compareUpdate, deepEqual, MAX_FIELD_CHANGES, REDACTED } from '../../../src/engine/diff';
import type { KubeObject } from '../../../src/engine/objects';

function obj(extra: Partial<KubeObject> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', ...extra, metadata: { namespace: 'd', name: 'a', resourceVersion: '1', ...meta } };
}

describe('diff', () => {
  it('deepEqual compares JSON structurally, treating undefined fields as absent', () => {
    assert.equal(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), true);
    assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(deepEqual({ a: [1, 2] }, { a: [2, 1] }), false);
    assert.equal(deepEqual({ a: {} }, { a: [] }), false);
    assert.equal(deepEqual(null, {}), false);
  });

  it('identical objects: no changes', () => {
    const r = compareUpdate(obj({ data: { k: 'v' } }), obj({ data: { k: 'v' } }));
    assert.deepEqual(r, { change: 'identical', diff: [], total: 0 });
  });

  it('only the resourceVersion differs', () => {
    const r = compareUpdate(obj({}, { resourceVersion: '1' }), obj({}, { resourceVersion: '2' }));
    assert.equal(r.change, 'resourceVersion');
    assert.deepEqual(r.diff, [{ path: 'metadata.resourceVersion', old: '1', new: '2' }]);
  });

  it('managedFields, with or without the RV', () => {
    const a = obj({}, { managedFields: [{ manager: 'x', time: 't1' }] });
    const b = obj({}, { resourceVersion: '2', managedFields: [{ manager: 'x', time: 't2' }] });
    assert.equal(compareUpdate(a, b).change, 'managedFields');
    assert.equal(compareUpdate(a, obj({}, { managedFields: [] })).change, 'managedFields');
  });

  it('status, possibly with RV and managedFields', () => {
    const a = obj({ status: { phase: 'Pending' } }, { managedFields: [{ m: 1 }] });
    const b = obj({ status: { phase: 'Running' } }, { resourceVersion: '3', managedFields: [{ m: 2 }] });
    const r = compareUpdate(a, b);
    assert.equal(r.change, 'status');
    assert.ok(r.diff.some((c) => c.path === 'status.phase' && c.old === 'Pending' && c.new === 'Running'));
  });

  it('anything else is other, with paths for nested keys, array indices and non-identifier keys', () => {
    const a = obj({ spec: { containers: [{ image: 'a:1' }] } }, { labels: { app: 'x' } });
    const b = obj({ spec: { containers: [{ image: 'a:2' }, { image: 'b:1' }] } }, { labels: { app: 'x', 'k8s.io/role': 'y' } });
    const r = compareUpdate(a, b);
    assert.equal(r.change, 'other');
    assert.deepEqual(r.diff, [
      { path: 'spec.containers[0].image', old: 'a:1', new: 'a:2' },
      { path: 'spec.containers[1]', new: { image: 'b:1' } },
      { path: 'metadata.labels["k8s.io/role"]', new: 'y' },
    ]);
  });

  it('a status change together with a spec change is other', () => {
    assert.equal(compareUpdate(obj({ status: { a: 1 }, spec: { x: 1 } }), obj({ status: { a: 2 }, spec: { x: 2 } })).change, 'other');
  });

  it('caps the list at 20 entries and says how many there were', () => {
    const many = (v: number) => Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, `${v}`]));
    const r = compareUpdate(obj({ data: many(1) }), obj({ data: many(2) }));
    assert.equal(r.diff.length, MAX_FIELD_CHANGES);
    assert.equal(r.total, 30);
  });

  it('never copies Secret data or stringData values, but keeps their paths', () => {
    const a: KubeObject = { ...obj({ kind: 'Secret', data: { password: 'czNjcjN0' } }) };
    const b: KubeObject = { ...obj({ kind: 'Secret', data: { password: 'bjN3' }, stringData: { token: 'plain' }, type: 'Opaque' }) };
    const r = compareUpdate(a, b);
    assert.deepEqual(r.diff, [
      { path: 'data.password', old: REDACTED, new: REDACTED },
      { path: 'stringData', new: REDACTED },
      { path: 'type', new: 'Opaque' },
    ]);
    assert.ok(!JSON.stringify(r).includes('czNjcjN0') && !JSON.stringify(r).includes('plain'));
  });

  it('a ConfigMap\'s data is not redacted', () => {
    const r = compareUpdate(obj({ data: { k: 'a' } }), obj({ data: { k: 'b' } }));
    assert.deepEqual(r.diff, [{ path: 'data.k', old: 'a', new: 'b' }]);
  });

  it('objects nested past the recursive walk\'s limit give the same changes, in the same order, as shallow ones', () => {
    // Changes before, inside and after a 300-deep branch: the walk starts recursively, gives way to
    // the iterative walk at depth 200 and must not repeat or lose the changes found before that.
    const nest = (depth: number, leaf: string): unknown => {
      let v: unknown = leaf;
      for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { n: v } : [v];
      return v;
    };
    const a = obj({ data: { a: '1' }, spec: nest(300, 'x'), status: { z: '1' } });
    const b = obj({ data: { a: '2' }, spec: nest(300, 'y'), status: { z: '2' } });
    const r = compareUpdate(a, b);
    let deep = 'spec';
    for (let i = 299; i >= 0; i--) deep += i % 2 === 0 ? '.n' : '[0]';
    assert.deepEqual(r.diff, [
      { path: 'data.a', old: '1', new: '2' },
      { path: deep, old: 'x', new: 'y' },
      { path: 'status.z', old: '1', new: '2' },
    ]);
    assert.equal(r.total, 3);
  });
});
