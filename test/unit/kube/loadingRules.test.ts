/**
 * Kubeconfig loading by client-go's rules (clientcmd.ClientConfigLoadingRules, as documented in
 * "Organizing Cluster Access Using kubeconfig Files"): one rule per test.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigError, KubeconfigSet, KubeConnection, NoKubeconfigError } from '../../../src/kube/kubeconfig';

const dir = mkdtempSync(join(tmpdir(), 'kc-rules-'));
function file(name: string, yaml: string): string {
  const p = join(dir, name);
  writeFileSync(p, yaml);
  return p;
}
const cfg = (o: { clusters?: string[]; users?: string[]; contexts?: string[]; current?: string }) =>
  [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [${(o.clusters ?? []).join(', ')}]`,
    `users: [${(o.users ?? []).join(', ')}]`,
    `contexts: [${(o.contexts ?? []).join(', ')}]`,
    ...(o.current !== undefined ? [`current-context: "${o.current}"`] : []),
  ].join('\n');

const A = file('a', cfg({
  clusters: ['{name: shared, cluster: {server: "https://127.0.0.1:6441"}}', '{name: onlyA, cluster: {server: "https://127.0.0.1:6442"}}'],
  users: ['{name: u, user: {token: from-a}}'],
  contexts: ['{name: ctx, context: {cluster: shared, user: u, namespace: team-a}}'],
  current: 'ctx',
}));
const B = file('b', cfg({
  clusters: ['{name: shared, cluster: {server: "https://127.0.0.1:6443"}}', '{name: onlyB, cluster: {server: "https://127.0.0.1:6444"}}'],
  users: ['{name: u, user: {token: from-b}}'],
  contexts: ['{name: ctx, context: {cluster: onlyB, user: u}}', '{name: b-ctx, context: {cluster: onlyB, user: u}}'],
  current: 'b-ctx',
}));
const env = (KUBECONFIG?: string) => ({ env: { KUBECONFIG }, home: join(dir, 'no-home') });

describe('kube: kubeconfig loading rules (like kubectl)', () => {
  it('KUBECONFIG files merge in order: the first file to define a cluster, user or context, or current-context, wins', async () => {
    const c = KubeConnection.load(env(`${A}:${B}`));
    assert.equal(c.context.name, 'ctx', 'current-context of the first file that sets one');
    assert.equal(c.server, 'https://127.0.0.1:6441', 'context and cluster "shared" from the first file');
    const headers = (await c.requestOptions({})).headers as Record<string, string>;
    assert.equal(headers.Authorization, 'Bearer from-a', 'user "u" from the first file');
    assert.equal(c.withContext('b-ctx').server, 'https://127.0.0.1:6444', 'entries only the second file has are there');
    assert.deepEqual(c.contexts().map((x) => x.name), ['ctx', 'b-ctx']);
    assert.equal(KubeConnection.load(env(`${B}:${A}`)).context.name, 'b-ctx', 'order matters');
  });

  it('a file in KUBECONFIG that does not exist is skipped', () => {
    const c = KubeConnection.load(env(`${join(dir, 'missing')}:${A}::${join(dir, 'gone')}`));
    assert.equal(c.context.name, 'ctx');
  });

  it('an explicit --kubeconfig must exist', () => {
    assert.throws(() => KubeConnection.load({ kubeconfigPath: join(dir, 'missing'), ...env(A) }), (e: unknown) => e instanceof KubeConfigError && /missing: no such file/.test(e.message));
  });

  it('--kubeconfig wins over KUBECONFIG, which wins over ~/.kube/config', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), cfg({ clusters: ['{name: h, cluster: {server: "https://127.0.0.1:6445"}}'], contexts: ['{name: home, context: {cluster: h}}'], current: 'home' }));
    assert.equal(KubeConnection.load({ env: {}, home }).context.name, 'home');
    assert.equal(KubeConnection.load({ env: { KUBECONFIG: B }, home }).context.name, 'b-ctx');
    assert.equal(KubeConnection.load({ kubeconfigPath: A, env: { KUBECONFIG: B }, home }).context.name, 'ctx');
  });

  it('only the context in use is validated: a cluster without server or a broken current-context elsewhere does not hide the others', () => {
    const p = file('partly-broken', cfg({
      clusters: ['{name: good, cluster: {server: "https://127.0.0.1:6446"}}', '{name: noserver, cluster: {}}'],
      users: ['{name: u, user: {token: t}}', '{name: weird}'],
      contexts: ['{name: ok, context: {cluster: good, user: u}}', '{name: bad, context: {cluster: noserver, user: u}}'],
      current: 'deleted-context',
    }));
    const set = KubeconfigSet.load({ kubeconfigPath: p });
    assert.deepEqual(set.contexts().map((c) => c.name), ['ok', 'bad']);
    assert.equal(set.connect('ok').server, 'https://127.0.0.1:6446');
    assert.throws(() => set.connect(), /context "deleted-context" is not in the kubeconfig/);
    assert.throws(() => set.connect('bad'), /cluster "noserver" has no usable server URL/);
  });

  it("the context's namespace is the default namespace", () => {
    assert.equal(KubeConnection.load(env(A)).context.namespace, 'team-a');
    assert.equal(KubeConnection.load(env(B)).context.namespace, undefined);
  });

  it('no kubeconfig at all is a clear "no kubeconfig found", never localhost:8080', () => {
    for (const opts of [env(undefined), env(`${join(dir, 'x')}:${join(dir, 'y')}`)]) {
      assert.throws(() => KubeConnection.load(opts), (e: unknown) => e instanceof NoKubeconfigError && /^no kubeconfig found/.test(e.message) && !/8080/.test(e.message));
    }
  });

  it('a relative certificate-authority path is relative to the file that names it', async () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'ca.pem'), 'not-really-a-ca');
    const p = join(sub, 'cfg');
    writeFileSync(p, cfg({ clusters: ['{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.pem}}'], users: ['{name: u, user: {token: t}}'], contexts: ['{name: x, context: {cluster: c, user: u}}'], current: 'x' }));
    const o = await KubeConnection.load({ env: { KUBECONFIG: `${join(dir, 'nope')}:${p}` }, home: dir }).requestOptions({});
    assert.equal(String(o.ca), 'not-really-a-ca');
  });
});
