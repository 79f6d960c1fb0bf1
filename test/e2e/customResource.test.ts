/**
 * The engine (SharedIndexInformer + Reflector) with the HTTP ListerWatcher on a custom resource
 * against a real kube-apiserver v1.36 + etcd: a CRD (widgets.e2e.example.com, permissive schema)
 * is created, found through our discovery, 30 Widgets are written by the admin, and the informer
 * syncs them under v1.36 (watch-list) and v1.32 (LIST), then delivers a create, an update and a
 * delete as add, update and delete. The audit log must show the engine only sent GETs.
 */
import { strict as assert } from 'node:assert';
import { RealClock } from '../../src/engine/clock';
import type { TraceEvent } from '../../src/format/events';
import { findProfile } from '../../src/engine/profiles';
import { SharedIndexInformer } from '../../src/engine/sharedInformer';
import { discoverResources, resolveResource, type ApiResource } from '../../src/kube/discovery';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { HttpListerWatcher } from '../../src/kube/listerWatcher';
import { useCluster, type E2ECluster } from './cluster';
import { assertEngineOnlyGot, createNamespace, diffMaps, rvMap, waitFor } from './helpers';

const GROUP = 'e2e.example.com';
const N = 30;

function widgetsPath(ns: string): string {
  return `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
}

function widgetBody(ns: string, name: string, spec: Record<string, unknown> = { size: 1 }) {
  return { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { namespace: ns, name }, spec };
}

async function createWidgets(c: E2ECluster, ns: string, n: number, concurrency = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await c.adminOk('POST', widgetsPath(ns), widgetBody(ns, `w-${i}`, { size: i }));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

describe('e2e: informer on a custom resource (CRD) against kube-apiserver', function () {
  this.timeout(180_000);
  const cluster = useCluster();
  let widgets: ApiResource | undefined;
  const stops: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
  });

  before(async function () {
    this.timeout(120_000);
    const c = cluster();
    await c.adminOk('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    await waitFor(
      'the CRD to be Established',
      async () => {
        const crd = await c.adminOk<any>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`);
        return (crd.status?.conditions ?? []).some((x: any) => x.type === 'Established' && x.status === 'True');
      },
      60_000,
      200,
    );
  });

  it('finds the CRD through discovery (src/kube)', async () => {
    const conn = KubeConnection.load({ kubeconfigPath: cluster().kubeconfigPath });
    widgets = await waitFor(
      'the CRD in discovery',
      async () => resolveResource((await discoverResources(conn)).resources, `widgets.${GROUP}`),
      60_000,
      250,
    );
    assert.deepEqual(
      { g: widgets.group, v: widgets.version, r: widgets.resource, k: widgets.kind, ns: widgets.namespaced },
      { g: GROUP, v: 'v1', r: 'widgets', k: 'Widget', ns: true },
    );
    assert.ok(widgets.verbs.includes('list') && widgets.verbs.includes('watch'));
  });

  for (const profileName of ['v1.36', 'v1.32']) {
    it(`${profileName}: syncs ${N} Widgets (store == fresh LIST), then delivers create, update, delete; only GETs`, async () => {
      const c = cluster();
      assert.ok(widgets, 'the CRD was not discovered');
      const ns = `widgets-${profileName.replace('.', '-')}`;
      await createNamespace(c, ns);
      await createWidgets(c, ns, N);
      const auditFrom = c.auditEvents().length;

      const profile = findProfile(profileName);
      assert.ok(profile, `no profile ${profileName}`);
      const conn = KubeConnection.load({ kubeconfigYaml: c.kubeconfigYaml() });
      const clock = new RealClock();
      const lw = new HttpListerWatcher(conn, widgets, { namespace: ns, clock });
      const events: TraceEvent[] = [];
      const informer = new SharedIndexInformer({
        listerWatcher: lw,
        profile,
        clock,
        sink: { emit: (e) => events.push(e) },
        typeDescription: `${GROUP}/v1, Kind=Widget`,
        name: `e2e-crd-${profileName}`,
      });
      informer.addEventHandler('main', {});
      const ac = new AbortController();
      const running = informer.run(ac.signal);
      stops.push(async () => {
        ac.abort();
        await running;
      });
      const of = <T extends TraceEvent['type']>(type: T, since = 0) =>
        events.slice(since).filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type);

      const waitConsistent = async () => {
        let last = '';
        try {
          await waitFor(
            'the store to equal a fresh consistent LIST',
            async () => {
              const fresh = rvMap((await c.consistentList(widgetsPath(ns))).items);
              const store = rvMap(informer.getIndexer().list() as any[]);
              last = diffMaps(store, fresh);
              return last === '' && informer.hasSynced();
            },
            30_000,
            250,
          );
        } catch (e) {
          assert.fail(`${(e as Error).message}: ${last}`);
        }
      };

      await waitConsistent();
      const keys = (informer.getIndexer().list() as any[]).map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
      assert.deepEqual(keys, Array.from({ length: N }, (_, i) => `${ns}/w-${i}`).sort());

      const first = of('request')[0];
      if (profileName === 'v1.36') {
        assert.equal(first.verb, 'watch');
        assert.equal(first.sendInitialEvents, true);
        assert.equal(of('list.start').length, 0, 'v1.36 synced through watch-list, no LIST');
      } else {
        assert.equal(first.verb, 'list');
        assert.equal(of('list.done')[0].items, N);
      }
      assert.equal(of('relist').length, 0);

      const since = events.length;
      const created = await c.adminOk<any>('POST', widgetsPath(ns), widgetBody(ns, 'new'));
      const updated = await c.adminOk<any>('PUT', `${widgetsPath(ns)}/new`, { ...created, spec: { size: 2 } });
      assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
      await c.adminOk('DELETE', `${widgetsPath(ns)}/w-0`);
      await waitFor('three notifications', () => of('notify', since).length >= 3, 30_000);
      const n = of('notify', since);
      assert.deepEqual(
        n.slice(0, 2).map((e) => `${e.op} ${e.key} ${e.rv}`),
        [`add ${ns}/new ${created.metadata.resourceVersion}`, `update ${ns}/new ${updated.metadata.resourceVersion}`],
      );
      assert.deepEqual([n[2].op, n[2].key], ['delete', `${ns}/w-0`]);
      assert.equal(n.length, 3, n.map((e) => `${e.op} ${e.key}`).join(', '));
      await waitConsistent();
      assert.equal(informer.getIndexer().list().length, N);

      // Every request of the engine user since it started was a GET, and they were about widgets.
      assertEngineOnlyGot(c, auditFrom);
      const engine = c.auditEvents().slice(auditFrom).filter((e) => e.user?.username === 'e2e-inspector');
      assert.ok(engine.every((e) => e.requestURI.startsWith(widgetsPath(ns))), engine.map((e) => e.requestURI).join('\n'));
      assert.ok(engine.some((e) => e.verb === 'watch'));
      if (profileName === 'v1.32') assert.ok(engine.some((e) => e.verb === 'list'));
    });
  }
});
