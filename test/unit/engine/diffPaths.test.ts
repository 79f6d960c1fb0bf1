/**
 * The shared paths of update changes (src/engine/diffPaths.ts): spelled as childPath spells them,
 * one string per path while the tree has room, the same spelling once it is full.
 */
import { strict as assert } from 'node:assert';
import { childPath, MAX_KEPT_PATH, MAX_PATH_NODES, ROOT_PATH } from '../../../src/engine/diffPaths';

describe('engine: the paths of update changes', () => {
  it('spells object keys, odd keys and array indices, and keeps the first two object keys', () => {
    const node = ROOT_PATH.below(['status', 'conditions', 0, 'lastProbeTime']);
    assert.equal(node.path, 'status.conditions[0].lastProbeTime');
    assert.equal(node.first, 'status');
    assert.equal(node.second, 'conditions');
    const odd = ROOT_PATH.below(['metadata', 'annotations', 'a.b/c', 2, '0']);
    assert.equal(odd.path, 'metadata.annotations["a.b/c"][2]["0"]');
    assert.equal(ROOT_PATH.below([3, 'x']).path, '[3].x');
    assert.equal(ROOT_PATH.below([3, 'x']).first, 'x');
    assert.equal(ROOT_PATH.below([3, 'x']).second, undefined);
    assert.equal(ROOT_PATH.below(['a b']).path, '["a b"]');
    assert.notEqual(ROOT_PATH.child(0), ROOT_PATH.child('0'));
  });

  it('hands out one node per path, and spells a path the same once the tree is full or the path too long', () => {
    assert.equal(ROOT_PATH.below(['metadata', 'resourceVersion']), ROOT_PATH.below(['metadata', 'resourceVersion']));
    const long = 'k'.repeat(MAX_KEPT_PATH + 1);
    assert.notEqual(ROOT_PATH.child(long), ROOT_PATH.child(long), 'a long path is not kept');
    assert.equal(ROOT_PATH.child(long).path, long);
    const fill = ROOT_PATH.child('fill');
    for (let i = 0; i < MAX_PATH_NODES; i++) fill.child(i);
    const late = ROOT_PATH.below(['late', 'key.x', 7]);
    assert.notEqual(late, ROOT_PATH.below(['late', 'key.x', 7]), 'past the bound nothing new is kept');
    assert.equal(late.path, `${childPath(childPath('', 'late'), 'key.x')}[7]`);
    assert.equal(late.path, 'late["key.x"][7]');
    assert.equal(ROOT_PATH.below(['metadata', 'resourceVersion']).path, 'metadata.resourceVersion');
  });
});
