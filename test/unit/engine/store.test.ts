import assert from 'node:assert/strict';
import { DeletedFinalStateUnknown, type KubeObject } from '../../../src/engine/objects';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  ExplicitKey,
  IndexPanic,
  KeyError,
  metaNamespaceKeyFunc,
  NamespaceIndex,
  metaNamespaceIndexFunc,
  newIndexer,
  newStore,
  splitMetaNamespaceKey,
  type IndexFunc,
} from '../../../src/engine/store';
import { cm } from './informerFixtures';

const byLabelApp: IndexFunc = (o) => {
  const labels = ('metadata' in o ? (o.metadata?.labels as Record<string, string> | undefined) : undefined) ?? {};
  return labels.app ? labels.app.split(',') : [];
};

function labelled(name: string, app: string, ns = 'default') {
  return { metadata: { namespace: ns, name, resourceVersion: '1', labels: { app } } };
}

describe('store: key functions', () => {
  it('MetaNamespaceKeyFunc gives ns/name, name for cluster-scoped objects, ExplicitKey as is', () => {
    assert.equal(metaNamespaceKeyFunc(cm('a', '1')), 'default/a');
    assert.equal(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } }), 'node-1');
    assert.equal(metaNamespaceKeyFunc(new ExplicitKey('x/y')), 'x/y');
  });

  it('MetaNamespaceKeyFunc fails on a tombstone with "object has no meta"', () => {
    assert.throws(() => metaNamespaceKeyFunc(new DeletedFinalStateUnknown('default/a', undefined)), /^Error: object has no meta: /);
  });

  it('DeletionHandlingMetaNamespaceKeyFunc returns a tombstone\'s key', () => {
    assert.equal(deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/gone', undefined)), 'ns/gone');
    assert.equal(deletionHandlingMetaNamespaceKeyFunc(cm('b', '1', undefined, 'kube-system')), 'kube-system/b');
  });

  it('SplitMetaNamespaceKey splits one or two parts and rejects more', () => {
    assert.deepEqual(splitMetaNamespaceKey('name'), { namespace: '', name: 'name' });
    assert.deepEqual(splitMetaNamespaceKey('ns/name'), { namespace: 'ns', name: 'name' });
    assert.throws(() => splitMetaNamespaceKey('a/b/c'), { message: 'unexpected key format: "a/b/c"' });
  });
});

describe('store: Indexer', () => {
  it('keeps the namespace index in step with add, update and delete, and drops empty value sets', () => {
    const ix = newIndexer({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc } });
    ix.add(cm('a', '1', undefined, 'n1'));
    ix.add(cm('b', '1', undefined, 'n1'));
    ix.add(cm('c', '1', undefined, 'n2'));
    assert.deepEqual(ix.indexKeys(NamespaceIndex, 'n1').sort(), ['n1/a', 'n1/b']);
    ix.delete(cm('c', '9', undefined, 'n2'));
    assert.deepEqual(ix.listIndexFuncValues(NamespaceIndex), ['n1']);
    assert.equal(ix.getByKey('n2/c'), undefined);
    ix.update(cm('a', '2', undefined, 'n1'));
    assert.equal((ix.getByKey('n1/a') as KubeObject | undefined)?.metadata?.resourceVersion, '2');
    assert.deepEqual(ix.byIndex(NamespaceIndex, 'n1').length, 2);
  });

  it('moves a key between values of a custom multi-value index and answers Index() with the union', () => {
    const ix = newIndexer({ indexers: { app: byLabelApp } });
    ix.add(labelled('x', 'web,db'));
    ix.add(labelled('y', 'db'));
    ix.add(labelled('z', 'cache'));
    assert.deepEqual(ix.indexKeys('app', 'db').sort(), ['default/x', 'default/y']);
    const union = ix.index('app', labelled('probe', 'web,cache')).map((o) => ('metadata' in o ? o.metadata?.name : '')).sort();
    assert.deepEqual(union, ['x', 'z']);
    ix.update(labelled('x', 'cache'));
    assert.deepEqual(ix.indexKeys('app', 'web'), []);
    assert.deepEqual(ix.listIndexFuncValues('app').sort(), ['cache', 'db']);
  });

  it('rejects an unknown index name with client-go\'s text', () => {
    const ix = newIndexer({ indexers: {} });
    assert.throws(() => ix.byIndex('nope', 'v'), { message: 'Index with name nope does not exist' });
    assert.throws(() => ix.index('nope', cm('a', '1')), { message: 'Index with name nope does not exist' });
  });

  it('AddIndexers indexes existing items and reports a name clash', () => {
    const ix = newIndexer({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc } });
    ix.add(labelled('x', 'web'));
    ix.addIndexers({ app: byLabelApp });
    assert.deepEqual(ix.indexKeys('app', 'web'), ['default/x']);
    assert.throws(() => ix.addIndexers({ app: byLabelApp, namespace: metaNamespaceIndexFunc }), {
      message: 'indexer conflict: map[app:{} namespace:{}]',
    });
    assert.deepEqual(Object.keys(ix.getIndexers()).sort(), ['app', 'namespace']);
  });

  it('an index function error is a panic with client-go\'s text and leaves the store unchanged', () => {
    const ix = newIndexer({ indexers: { bad: (o) => { if ('metadata' in o && o.metadata?.name === 'boom') throw new Error('no way'); return ['ok']; } } });
    ix.add(cm('fine', '1'));
    assert.throws(() => ix.add(cm('boom', '1')), (e: unknown) => e instanceof IndexPanic && e.message === 'unable to calculate an index entry for key "default/boom" on index "bad": no way');
    assert.deepEqual(ix.listKeys(), ['default/fine']);
    assert.deepEqual(ix.indexKeys('bad', 'ok'), ['default/fine']);
  });

  it('Replace rebuilds items and indexes; the store RV is tracked only when asked (AtomicFIFO)', () => {
    const tracked = newIndexer({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc }, tracksResourceVersion: true });
    tracked.add(cm('old', '3', undefined, 'n0'));
    tracked.replace([cm('a', '5', undefined, 'n1')], '10');
    assert.deepEqual(tracked.listKeys(), ['n1/a']);
    assert.deepEqual(tracked.listIndexFuncValues(NamespaceIndex), ['n1']);
    assert.equal(tracked.lastStoreSyncResourceVersion(), '10');
    tracked.update(cm('a', '11', undefined, 'n1'));
    assert.equal(tracked.lastStoreSyncResourceVersion(), '11');
    tracked.bookmark('15');
    assert.equal(tracked.lastStoreSyncResourceVersion(), '15');

    const untracked = newIndexer();
    untracked.replace([cm('a', '5')], '10');
    untracked.bookmark('15');
    assert.equal(untracked.lastStoreSyncResourceVersion(), '');
  });

  it('deletes by key only (a tombstone removes its key; a missing key is a no-op) and wraps key failures', () => {
    const s = newStore();
    s.add(cm('a', '1'));
    s.delete(new DeletedFinalStateUnknown('default/a', undefined));
    assert.deepEqual(s.list(), []);
    s.delete(cm('never', '1'));
    const plain = newStore(metaNamespaceKeyFunc);
    assert.throws(() => plain.add(new DeletedFinalStateUnknown('k', undefined)), (e: unknown) => e instanceof KeyError && /object has no meta/.test(e.message));
  });
});
