/**
 * Kubeconfig loading (src/kube/kubeconfig.ts) and the first requests made with it, on broken
 * input: garbage YAML, configs with contexts, users or clusters missing or of the wrong type,
 * files that cannot be read, auth that cannot be applied, and a server on 127.0.0.1 where
 * nothing listens. Every failure is one clear line, without a stack trace or a credential.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { TransportError } from '../../../src/engine/listWatch';
import { discoverResources } from '../../../src/kube/discovery';
import { KubeConfigError, KubeConnection } from '../../../src/kube/kubeconfig';
import { HttpListerWatcher } from '../../../src/kube/listerWatcher';
import { awkwardString, check, isOneLine, jsonValue } from './support';

const SECRETS = ['TOKEN-c2VjcmV0', 'PASSWORD-hunter2', 'CERTDATA-LS0tLS1', 'KEYDATA-LS0tLS1', 'EXECENV-topsecret'];

/** The message of a load failure; fails on anything but a clean KubeConfigError. */
function loadError(opts: Parameters<typeof KubeConnection.load>[0]): string | undefined {
  try {
    const c = KubeConnection.load(opts);
    c.contexts();
    return undefined;
  } catch (e) {
    assert.ok(e instanceof KubeConfigError, `not a KubeConfigError: ${(e as Error)?.stack ?? String(e)}`);
    assertClean(e.message);
    return e.message;
  }
}

function assertClean(message: string): void {
  assert.ok(isOneLine(message), `not one line: ${JSON.stringify(message)}`);
  assert.ok(!/\n\s+at /.test(message) && !/\bat .*\.(ts|js):\d+/.test(message), `stack trace in: ${message}`);
  for (const s of SECRETS) assert.ok(!message.includes(s), `credential in: ${message}`);
}

function config(server: string, extraUser: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server } }],
    users: [{ name: 'u', user: { token: SECRETS[0], ...extraUser } }, { name: 'p', user: { username: 'me', password: SECRETS[1] } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'team' } }],
    'current-context': 'x',
  };
}

const SECTIONS = ['clusters', 'users', 'contexts', 'current-context', 'apiVersion', 'kind'];

const brokenConfig = fc.record({
  drop: fc.subarray(SECTIONS),
  replace: fc.array(fc.tuple(fc.constantFrom(...SECTIONS), fc.oneof(jsonValue, fc.constantFrom([null], [{}], [{ name: 'c' }], [{ name: 'x', context: {} }], [{ name: 'x', context: { cluster: 'nope', user: 'nope' } }]))), { maxLength: 2 }),
  server: fc.oneof(fc.constantFrom('https://127.0.0.1:6443', 'http://127.0.0.1:1', '', 'ftp://x', 'not a url', 'https://[::1'), awkwardString),
});

describe('robustness: kubeconfig loading', () => {
  it('configs with sections missing or of the wrong type: a connection, or one clean KubeConfigError', async () => {
    await check(
      fc.property(brokenConfig, ({ drop, replace, server }) => {
        const doc = config(server);
        for (const k of drop) delete doc[k];
        for (const [k, v] of replace) doc[k] = v;
        loadError({ kubeconfigYaml: JSON.stringify(doc) });
        loadError({ kubeconfigYaml: JSON.stringify(doc), context: 'x' });
      }),
    );
  });

  it('garbage text as YAML: one clean KubeConfigError (or an empty config refused the same way)', async () => {
    const valid = JSON.stringify(config('https://127.0.0.1:6443'));
    const text = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.tuple(fc.nat(), fc.string({ maxLength: 8 })).map(([at, s]) => valid.slice(0, at % valid.length) + s + valid.slice(at % valid.length)),
      fc.nat().map((at) => valid.slice(0, at % valid.length)),
    );
    await check(fc.property(text, (t) => void loadError({ kubeconfigYaml: t })));
  });

  it('YAML errors next to credentials do not quote them', () => {
    const yaml = `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${SECRETS[0]}\n    password: [${SECRETS[1]}\n  x: : :\n`;
    assert.ok(loadError({ kubeconfigYaml: yaml }));
  });

  it('files that cannot be read: missing, a directory, one of several paths missing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kc-robust-'));
    const good = path.join(dir, 'config');
    writeFileSync(good, JSON.stringify(config('https://127.0.0.1:6443')));
    assert.match(loadError({ kubeconfigPath: path.join(dir, 'missing') }) ?? '', /cannot load kubeconfig/);
    assert.match(loadError({ kubeconfigPath: dir }) ?? '', /cannot load kubeconfig/);
    // Like $KUBECONFIG, a missing file among several is skipped.
    assert.equal(loadError({ kubeconfigPath: `${path.join(dir, 'missing')}:${good}` }), undefined);
    writeFileSync(path.join(dir, 'binary'), Buffer.from([0xff, 0xfe, 0, 1, 2, 3]));
    loadError({ kubeconfigPath: path.join(dir, 'binary') });
  });

  it('auth that cannot be applied fails the request with one clean line', async () => {
    const users: Record<string, unknown>[] = [
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/nonexistent/credential-helper', args: ['--token', SECRETS[0]], env: [{ name: 'T', value: SECRETS[4] }] } },
      { tokenFile: '/nonexistent/token' },
      { 'client-certificate-data': SECRETS[2], 'client-key-data': SECRETS[3] },
    ];
    for (const extra of users) {
      const conn = KubeConnection.load({ kubeconfigYaml: JSON.stringify(config('https://127.0.0.1:1', { token: undefined, ...extra })) });
      const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'configmaps', namespaced: true }, { maxRetries: 0 });
      await assert.rejects(lw.list({ resourceVersion: '0' }, new AbortController().signal), (e: unknown) => {
        assert.ok(e instanceof Error, String(e));
        assertClean(e.message);
        return true;
      });
    }
  });

  it('a context whose server is a 127.0.0.1 port with nothing listening: connection refused, one clean line', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const conn = KubeConnection.load({ kubeconfigYaml: JSON.stringify(config(`http://127.0.0.1:${port}`)) });
    const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'configmaps', namespaced: true }, { maxRetries: 0 });
    const signal = new AbortController().signal;
    for (const attempt of [lw.list({ resourceVersion: '0' }, signal), lw.watch({ resourceVersion: '1' }, signal), discoverResources(conn, signal)]) {
      await assert.rejects(attempt, (e: unknown) => {
        assert.ok(e instanceof TransportError && e.kind === 'connection-refused', String(e));
        assertClean(e.message);
        assert.match(e.message, new RegExp(`dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`));
        return true;
      });
    }
  });
});
