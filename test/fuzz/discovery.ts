/**
 * Fuzz target of discovery (src/kube/discovery.ts) against a loopback server whose discovery
 * documents are fuzzed: one document replaced in part or whole by anything, or by text. The good
 * documents give exactly their resources; anything else gives what could be read (failures as
 * one line each) or one clear rejection, never a TypeError.
 */
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import { discoverResources } from '../../src/kube/discovery';
import { KubeConnection } from '../../src/kube/kubeconfig';
import { jsonValue } from '../unit/robustness/support';
import { isOneLine, type FuzzTarget } from './target';

const GOOD: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'] },
  '/apis': {
    kind: 'APIGroupList',
    groups: [
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
      { name: 'e2e.example.com', versions: [{ groupVersion: 'e2e.example.com/v1', version: 'v1' }] },
    ],
  },
  '/api/v1': {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list', 'watch', 'get'], shortNames: ['cm'] },
      { name: 'pods/log', kind: 'Pod', namespaced: true, verbs: ['get'] },
      { name: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] },
    ],
  },
  '/apis/apps/v1': { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['list', 'watch'], categories: ['all'] }] },
  '/apis/e2e.example.com/v1': { kind: 'APIResourceList', groupVersion: 'e2e.example.com/v1', resources: [{ name: 'widgets', kind: 'Widget', namespaced: false, verbs: ['list', 'watch'] }] },
};
const PATHS = Object.keys(GOOD);

/** A copy of doc with the value at a path (indexes into the keys met) replaced. */
function replaced(doc: unknown, path: number[], value: unknown): unknown {
  if (path.length === 0 || doc === null || typeof doc !== 'object') return value;
  const copy = (Array.isArray(doc) ? [...doc] : { ...doc }) as Record<string, unknown>;
  const keys = Object.keys(copy);
  if (keys.length === 0) return value;
  const k = keys[path[0] % keys.length];
  copy[k] = replaced(copy[k], path.slice(1), value);
  return copy;
}

let server: http.Server | undefined;
let conn: KubeConnection;
let bodies: Record<string, { status: number; body: string }> = {};
const sockets = new Set<Socket>();

type Change = { doc: number; path: number[]; value: unknown; text?: string; status: number } | null;

export const discovery: FuzzTarget<{ change: Change }> = {
  name: 'discovery',
  about: 'discovery documents over loopback HTTP (all good, or one replaced in part or whole by any JSON, text, or an error status): the good ones give exactly their list+watch resources; otherwise a result with one-line failures, or one clear rejection',
  weight: 1,
  minInputs: 200,
  async setup() {
    server = http.createServer((req, res) => {
      const b = bodies[(req.url ?? '').split('?')[0]];
      if (!b) res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      else res.writeHead(b.status, { 'content-type': 'application/json' }).end(b.body);
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    conn = KubeConnection.load({
      kubeconfigYaml: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: 'u', user: { token: 'fuzz-token' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    });
  },
  async teardown() {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server?.close(() => r()));
  },
  arbitrary: () =>
    fc.record({
      change: fc.option(
        fc.record({
          doc: fc.nat(PATHS.length - 1),
          path: fc.array(fc.nat(), { maxLength: 5 }),
          value: fc.oneof(jsonValue, fc.constantFrom(null, [], {}, [null], 'x', 1, ['list', 'watch'], 'a/b')),
          text: fc.option(fc.constantFrom('<html>\n<body>oops</body>\n</html>', '', '{', 'null', '[]', '{"kind":"Status","status":"Failure","code":503,"message":"service unavailable"}'), { freq: 4, nil: undefined }),
          status: fc.constantFrom(200, 200, 200, 200, 404, 503),
        }),
        { freq: 8, nil: null },
      ),
    }),
  async check({ change }) {
    bodies = Object.fromEntries(PATHS.map((p) => [p, { status: 200, body: JSON.stringify(GOOD[p]) }]));
    if (change) {
      const p = PATHS[change.doc];
      bodies[p] = { status: change.status, body: change.text ?? JSON.stringify(replaced(GOOD[p], change.path, change.value)) ?? 'null' };
    }
    try {
      const r = await discoverResources(conn);
      for (const f of r.failures) assert.ok(isOneLine(f.message), `failure not one line: ${JSON.stringify(f.message)}`);
      for (const x of r.resources) {
        assert.ok(typeof x.resource === 'string' && typeof x.kind === 'string' && typeof x.group === 'string' && typeof x.version === 'string', JSON.stringify(x));
        assert.ok(!x.resource.includes('/'), `a subresource listed: ${x.resource}`);
        assert.ok(x.verbs.includes('list') && x.verbs.includes('watch'), JSON.stringify(x));
      }
      if (!change) {
        assert.deepEqual(r.failures, []);
        assert.deepEqual(r.resources.map((x) => `${x.group}/${x.version}/${x.resource}`), ['/v1/configmaps', 'apps/v1/deployments', 'e2e.example.com/v1/widgets']);
      }
    } catch (e) {
      assert.ok(change, `the good documents were refused: ${(e as Error).message}`);
      assert.ok(e instanceof Error, String(e));
      assert.ok(!(e instanceof TypeError), `TypeError: ${e.message}`);
      assert.ok(isOneLine(e.message), `not one line: ${JSON.stringify(e.message)}`);
    }
  },
};
