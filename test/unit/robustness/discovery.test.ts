/**
 * Discovery (src/kube/discovery.ts), the first thing done with a context, against a loopback
 * server whose discovery documents are anything: garbage, other JSON shapes, fields of the
 * wrong type. It either returns what it could read (group versions that failed are listed as
 * failures) or rejects with one readable line; it never throws a TypeError from deep inside.
 */
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import { discoverResources } from '../../../src/kube/discovery';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { check, isOneLine, jsonValue } from './support';

const GOOD: Record<string, unknown> = {
  '/api': { versions: ['v1'] },
  '/apis': { groups: [{ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } }] },
  '/api/v1': { groupVersion: 'v1', resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list', 'watch'] }] },
  '/apis/apps/v1': { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['list', 'watch'] }] },
};

const PATHS = Object.keys(GOOD);

/** A discovery document with one value somewhere replaced (a field, an array entry, or the whole). */
function replaced(doc: unknown, path: number[], value: unknown): unknown {
  if (path.length === 0 || doc === null || typeof doc !== 'object') return value;
  const copy = (Array.isArray(doc) ? [...doc] : { ...doc }) as Record<string, unknown>;
  const keys = Object.keys(copy);
  if (keys.length === 0) return value;
  const k = keys[path[0] % keys.length];
  copy[k] = replaced(copy[k], path.slice(1), value);
  return copy;
}

describe('robustness: discovery against odd documents', () => {
  let server: http.Server;
  let conn: KubeConnection;
  let bodies: Record<string, string> = {};
  const sockets = new Set<Socket>();

  before(async () => {
    server = http.createServer((req, res) => {
      const body = bodies[(req.url ?? '').split('?')[0]];
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    conn = KubeConnection.load({
      kubeconfigYaml: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: 'u', user: { token: 'discovery-token' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    });
  });

  after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });

  it('one document replaced in part or whole: a result, or one readable line', async () => {
    const change = fc.record({
      doc: fc.nat(PATHS.length - 1),
      path: fc.array(fc.nat(), { maxLength: 5 }),
      value: fc.oneof(jsonValue, fc.constantFrom(null, [], {}, [null], 'x', 1)),
      garbage: fc.option(fc.constantFrom('<html>\n<body>oops</body>\n</html>', '', '{', 'null'), { freq: 5, nil: undefined }),
    });
    await check(
      fc.asyncProperty(change, async ({ doc, path, value, garbage }) => {
        bodies = Object.fromEntries(PATHS.map((p) => [p, JSON.stringify(GOOD[p])]));
        bodies[PATHS[doc]] = garbage ?? JSON.stringify(replaced(GOOD[PATHS[doc]], path, value)) ?? 'null';
        try {
          const r = await discoverResources(conn);
          for (const f of r.failures) assert.ok(isOneLine(f.message), JSON.stringify(f.message));
        } catch (e) {
          assert.ok(e instanceof Error, String(e));
          assert.ok(!(e instanceof TypeError), `TypeError: ${e.message}`);
          assert.ok(isOneLine(e.message), JSON.stringify(e.message));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the good documents give both resources', async () => {
    bodies = Object.fromEntries(PATHS.map((p) => [p, JSON.stringify(GOOD[p])]));
    const r = await discoverResources(conn);
    assert.deepEqual(r.resources.map((x) => x.resource), ['configmaps', 'deployments']);
    assert.deepEqual(r.failures, []);
  });
});
