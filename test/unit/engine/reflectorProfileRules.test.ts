import { strict as assert } from 'node:assert';
import type { KubeObject } from '../../../src/engine/objects';
import { bookmark, cm, rig } from './reflectorHarness';

const table = (name: string, rv: string, apiVersion = 'meta.k8s.io/v1'): KubeObject => ({ ...cm(name, rv), apiVersion, kind: 'Table' });

describe('Reflector: profile rules for Table objects and the very-short-watch clock', () => {
  for (const [profileName, skipped] of [
    ['v1.36', true],
    ['v1.34', false],
    ['v1.32', false],
    ['v1.15', false],
  ] as const) {
    it(`${profileName}: a Table in a plain watch is ${skipped ? 'skipped' : 'stored'}`, async () => {
      const r = rig(
        [
          { on: 'list', rv: '10', items: [] },
          { on: 'watch', events: [{ type: 'ADDED', object: table('t', '11') }], close: 'never' },
        ],
        { profileName },
      );
      await r.runUntil(() => r.sink.of('watch.event').length === 1);
      const e = r.sink.of('watch.event')[0];
      assert.equal(e.accepted, !skipped);
      assert.equal(e.skipped, skipped ? 'Unsupported watch event object gvk' : undefined);
      assert.equal(r.reflector.lastSyncResourceVersion(), skipped ? '10' : '11');
      await r.stop();
    });
  }

  it('v1.34: a Table is skipped while a watch-list streams its initial events, stored after the end bookmark', async () => {
    const r = rig(
      [{ on: 'watch', events: [{ type: 'ADDED', object: table('t', '9') }, bookmark('10', true), { type: 'ADDED', object: table('u', '11'), atMs: 100 }], close: 'never' }],
      { profileName: 'v1.34', gates: { WatchListClient: true } },
    );
    await r.runUntil(() => r.sink.of('watch.event').length === 3);
    assert.deepEqual(
      r.sink.of('watch.event').map((e) => [e.key, e.accepted]),
      [['default/t', false], [undefined, true], ['default/u', true]],
    );
    assert.deepEqual(r.store.calls, [{ op: 'replace', keys: [], rv: '10' }, { op: 'add', key: 'default/u', rv: '11' }]);
    await r.stop();
  });

  for (const [profileName, rejected] of [
    ['v1.36', true],
    ['v1.34', false],
  ] as const) {
    it(`${profileName}: a LIST whose kind is Table is ${rejected ? 'refused (row 25)' : 'taken like any list'}`, async () => {
      const r = rig([{ on: 'list', rv: '10', apiVersion: 'meta.k8s.io/v1', kind: 'Table', items: [cm('a', '5')] }], { profileName });
      await r.runUntil(() => r.lw.remaining() === 0 && (r.sink.of('list.done').length + r.sink.of('list.error').length) === 1);
      if (rejected) {
        assert.equal(r.sink.of('list.error')[0].text, 'unsupported list gvk: meta.k8s.io/v1, Kind=Table, type: /v1, Kind=ConfigMap');
        assert.deepEqual(r.store.calls, []);
      } else {
        assert.deepEqual(r.store.calls, [{ op: 'replace', keys: ['default/a'], rv: '10' }]);
      }
      await r.stop();
    });
  }

  for (const [profileName, outcome] of [
    ['v1.15', 'relist'],
    ['v1.32', 'rewatch'],
  ] as const) {
    it(`${profileName}: a watch answered after 1.5 s that closes 400 ms later empty ends as ${outcome}`, async () => {
      const r = rig(
        [
          { on: 'list', rv: '10', items: [] },
          { on: 'watch', openDelayMs: 1500, events: [], close: 'eof', durationMs: 400 },
        ],
        { profileName },
      );
      await r.runUntil(() => r.sink.of('watch.end').length === 1);
      const end = r.sink.of('watch.end')[0];
      assert.equal(end.outcome, outcome);
      assert.equal(end.row, outcome === 'relist' ? 5 : 2);
      await r.stop();
    });
  }
});
