import { strict as assert } from 'node:assert';
import { DeltaFIFO } from '../../../src/engine/deltaFifo';
import { FakeClock } from '../../../src/engine/clock';
import { RealFIFO } from '../../../src/engine/realFifo';
import { DeletedFinalStateUnknown, type KubeObject } from '../../../src/engine/objects';
import { newIndexer } from '../../../src/engine/store';
import { indexFuncFor, isIndexFuncSpec, TRANSFORM_COUNT_ANNOTATION, transformFor } from '../../../src/scenario/catalogue';
import { validateScenario } from '../../../src/scenario/validate';
import type { Delta } from '../../../src/engine/fifo';

const obj = (name: string, rv: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name, resourceVersion: rv, ...extra },
});

function base(extra: Record<string, unknown> = {}, informer: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'informer-scenario/v1',
    name: 't',
    resource: { apiVersion: 'v1', kind: 'ConfigMap' },
    informer: { handlers: [{ name: 'main' }], ...informer },
    steps: [{ on: 'list', resourceVersion: '1', items: [] }],
    ...extra,
  };
}
const problems = (data: unknown) => validateScenario(data, 'x.json').problems;
const count = (o: KubeObject) => (o.metadata?.annotations as Record<string, string> | undefined)?.[TRANSFORM_COUNT_ANNOTATION];

describe('scenario extensions: validation', () => {
  it('accepts selectors, a transform, indexers and every action kind on the profiles that have them', () => {
    const p = problems(
      base(
        {
          profiles: ['v1.32', 'v1.36'],
          actions: [
            { atMs: 100, addHandler: { name: 'late' } },
            { atMs: 200, removeHandler: 'late' },
            { atMs: 300, addIndexers: { byTeam: 'label:team' } },
            { atMs: 350, restart: true },
            { atMs: 400, stop: true },
          ],
        },
        { labelSelector: 'app=web', fieldSelector: 'metadata.name=a', transform: 'count-transforms', indexers: { byNs: 'namespace' } },
      ),
    );
    assert.deepEqual(p, []);
  });

  it('says which profile lacks SetTransform and RemoveEventHandler (client-go 1.15)', () => {
    const p = problems(base({ actions: [{ atMs: 1, removeHandler: 'main' }] }, { transform: 'drop-annotations' }));
    assert.deepEqual(p, [
      'scenario x.json: informer.transform: client-go v12.0.0 (profile v1.15) has no SetTransform; limit "profiles"',
      'scenario x.json: actions[0].removeHandler: client-go v12.0.0 (profile v1.15) has no RemoveEventHandler; limit "profiles"',
    ]);
  });

  it('refuses an action with two kinds or none, out of order, an unknown handler, a second stop, a bad index function', () => {
    const p = problems(
      base({
        profiles: ['v1.36'],
        actions: [
          { atMs: 500, stop: true, removeHandler: 'main' },
          { atMs: 100 },
          { atMs: 600, removeHandler: 'ghost' },
          { atMs: 700, stop: true },
          { atMs: 800, addIndexers: { bad: 'annotation:x' } },
        ],
      }),
    );
    assert.deepEqual(p, [
      'scenario x.json: actions[0] needs exactly one of addHandler, removeHandler, addIndexers, stop, restart (has removeHandler, stop)',
      'scenario x.json: actions[1] needs exactly one of addHandler, removeHandler, addIndexers, stop, restart (has none)',
      "scenario x.json: actions[1].atMs 100 is before the previous action's 500: list actions in time order",
      'scenario x.json: actions[2].removeHandler "ghost" names no handler of the scenario',
      'scenario x.json: actions[3]: only one stop per scenario (the run ends there)',
      'scenario x.json: actions[4].addIndexers.bad "annotation:x" is not an index function of the catalogue ("namespace" or "label:<key>")',
    ]);
  });

  it('refuses an unknown transform by the schema, with the allowed names', () => {
    assert.deepEqual(problems(base({}, { transform: 'uppercase' })), [
      'scenario x.json: informer.transform must be one of strip-managed-fields, drop-annotations, count-transforms',
    ]);
  });
});

describe('scenario extensions: catalogue', () => {
  it('count-transforms counts on a copy; strip and drop remove their field only', () => {
    const o = obj('a', '1', { annotations: { keep: 'y' }, managedFields: [{ manager: 'x' }] });
    const once = transformFor('count-transforms')(o);
    assert.equal(count(once), '1');
    assert.equal(count(transformFor('count-transforms')(once)), '2');
    assert.equal(count(o), undefined, 'the argument is not changed');
    assert.equal(transformFor('strip-managed-fields')(o).metadata?.managedFields, undefined);
    assert.deepEqual(transformFor('strip-managed-fields')(o).metadata?.annotations, { keep: 'y' });
    assert.equal(transformFor('drop-annotations')(o).metadata?.annotations, undefined);
  });

  it('index functions: namespace, a label value, nothing for a missing label', () => {
    assert.ok(isIndexFuncSpec('label:app') && isIndexFuncSpec('namespace') && !isIndexFuncSpec('label:') && !isIndexFuncSpec('name'));
    assert.deepEqual(indexFuncFor('namespace')(obj('a', '1')), ['default']);
    assert.deepEqual(indexFuncFor('label:app')(obj('a', '1', { labels: { app: 'web' } })), ['web']);
    assert.deepEqual(indexFuncFor('label:app')(obj('a', '1')), []);
  });
});

describe('scenario extensions: where the engine transforms', () => {
  const transform = transformFor('count-transforms');

  it('DeltaFIFO transforms Added/Replaced, not a Sync nor a tombstone', async () => {
    const known = newIndexer();
    const fifo = new DeltaFIFO({ clock: new FakeClock(0), transform, knownObjects: known, emitDeltaTypeReplaced: true });
    fifo.add(obj('a', '1'));
    known.add(transform(obj('b', '2')));
    fifo.resync();
    fifo.replace([obj('a', '3')], '3');
    const popped: Delta[][] = [];
    for (let i = 0; i < 2; i++) await fifo.pop((d) => void popped.push(d));
    const flat = popped.flat();
    assert.deepEqual(
      flat.map((d) => [d.type, count(d.object instanceof DeletedFinalStateUnknown ? (d.object.obj as KubeObject) : (d.object as KubeObject))]),
      [
        ['Added', '1'],
        ['Replaced', '1'],
        ['Sync', '1'],
        ['Deleted', '1'],
      ],
    );
  });

  it('RealFIFO (atomic) transforms the ReplacedAll objects once', async () => {
    const fifo = new RealFIFO({ clock: new FakeClock(0), transform, atomic: true });
    fifo.replace([obj('a', '1'), obj('b', '2')], '2');
    let objects: KubeObject[] = [];
    await fifo.pop((d) => {
      objects = (d[0] as { objects: KubeObject[] }).objects;
    });
    assert.deepEqual(objects.map(count), ['1', '1']);
  });

  it('1.15 keeps an emptied index value; later lines drop it', () => {
    for (const keep of [true, false]) {
      const idx = newIndexer({ indexers: { byApp: indexFuncFor('label:app') }, keepsEmptyIndexSets: keep });
      idx.add(obj('a', '1', { labels: { app: 'web' } }));
      idx.update(obj('a', '2', { labels: { app: 'db' } }));
      assert.deepEqual(idx.listIndexFuncValues('byApp').sort(), keep ? ['db', 'web'] : ['db']);
      assert.deepEqual(idx.indexKeys('byApp', 'web'), []);
    }
  });
});
