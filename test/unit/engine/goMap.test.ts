import assert from 'node:assert/strict';
import { GoMap } from '../../../src/engine/goMap';
import { newIndexer } from '../../../src/engine/store';
import { cm } from './informerFixtures';

describe('GoMap: an iteration order Go maps can produce', () => {
  it('a re-added key takes the lowest empty slot, as Go small maps do (not the end, as JS Maps do)', () => {
    const m = new GoMap<number>();
    for (const k of ['b', 'a', 'c']) m.set(k, 1);
    m.delete('a');
    m.set('a', 2);
    assert.deepEqual(m.keys(), ['b', 'a', 'c']);
    m.delete('b');
    m.set('d', 3);
    m.set('e', 4);
    assert.deepEqual(m.keys(), ['d', 'a', 'c', 'e']);
    assert.deepEqual(m.valuesInOrder(), [3, 2, 1, 4]);
  });

  it('updating a key keeps its slot; deleting a missing key changes nothing', () => {
    const m = new GoMap<number>();
    m.set('x', 1);
    m.set('y', 2);
    m.set('x', 3);
    assert.equal(m.delete('z'), false);
    assert.deepEqual(m.entries(), [['x', 3], ['y', 2]]);
  });

  it('a 9th key (or a size hint above 8) makes it a table: insertion order from then on', () => {
    const m = new GoMap<number>();
    for (let i = 0; i < 9; i++) m.set(`k${i}`, i);
    m.delete('k0');
    m.set('k0', 0);
    assert.deepEqual(m.keys(), ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k0']);
    const hinted = new GoMap<number>(9);
    hinted.set('a', 1);
    hinted.set('b', 2);
    hinted.delete('a');
    hinted.set('a', 1);
    assert.deepEqual(hinted.keys(), ['b', 'a']);
  });

  it("the indexer lists in that order (a late handler's synthetic adds after delete + re-add)", () => {
    const idx = newIndexer();
    for (const n of ['b', 'a', 'c']) idx.add(cm(n, '1'));
    idx.delete(cm('a', '2'));
    idx.add(cm('a', '3'));
    assert.deepEqual(idx.listKeys(), ['default/b', 'default/a', 'default/c']);
    idx.replace([cm('c', '4'), cm('a', '4')], '4');
    assert.deepEqual(idx.listKeys(), ['default/c', 'default/a']);
  });
});
