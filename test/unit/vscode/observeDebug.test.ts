/**
 * The debug configuration provider (src/vscode/observeDebug.ts) with a stand-in 'vscode': off by
 * default; with `"informerInspector": {"observe": true}` or the setting it starts the proxy, puts
 * KUBECONFIG into the launch env (keeping the rest), shows the process's first reflector, and
 * stops everything when the debug session ends.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionRegistry } from '../../../src/app/registry';
import type { InformerSession } from '../../../src/app/session';
import { loopbackKubeconfig, startLoopback, type Loopback } from '../kube/loopback';
import { requireWithFakeVscode } from './fakeVscode';

type Listener = (d: { id: string; configuration: Record<string, unknown> }) => void;

/** One stand-in for the whole file (the module is loaded once); each test resets its state. */
const state = { settings: {} as Record<string, unknown>, started: [] as Listener[], terminated: [] as Listener[], errors: [] as string[] };
const vscode = {
  debug: {
    onDidStartDebugSession: (fn: Listener) => (state.started.push(fn), { dispose: () => undefined }),
    onDidTerminateDebugSession: (fn: Listener) => (state.terminated.push(fn), { dispose: () => undefined }),
  },
  workspace: { getConfiguration: () => ({ get: (k: string, d: unknown) => (k in state.settings ? state.settings[k] : d) }), workspaceFolders: undefined },
  window: { showErrorMessage: (m: string) => void state.errors.push(m), showInformationMessage: async () => undefined },
  env: { clipboard: { writeText: async () => undefined } },
};

const log = { info: () => undefined, warn: () => undefined } as never;

describe('vscode: observing debug sessions', function () {
  this.timeout(10_000);
  let upstream: Loopback;
  let dir: string;
  let saved: string | undefined;

  beforeEach(async () => {
    upstream = await startLoopback((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[]}');
    });
    dir = mkdtempSync(join(tmpdir(), 'ii-observe-debug-'));
    writeFileSync(join(dir, 'kubeconfig'), loopbackKubeconfig(upstream.port));
    saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = join(dir, 'kubeconfig');
  });

  afterEach(() => {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function load(settings: Record<string, unknown> = {}) {
    Object.assign(state, { settings, started: [], terminated: [], errors: [] });
    const { ObserveDebug } = requireWithFakeVscode<typeof import('../../../src/vscode/observeDebug')>('../../../src/vscode/observeDebug', vscode);
    const registry = new SessionRegistry();
    const shown: InformerSession[] = [];
    const provider = new ObserveDebug(registry, (s) => shown.push(s), log);
    return { provider, registry, shown, started: state.started, terminated: state.terminated, errors: state.errors };
  }

  it('leaves a launch configuration alone unless observation is asked for', async () => {
    const { provider, errors } = load();
    const config = { type: 'node', request: 'launch', name: 'x', env: { A: '1' } };
    assert.deepEqual(await provider.resolveDebugConfiguration(undefined, config), config);
    assert.deepEqual(errors, []);
    provider.dispose();
  });

  for (const how of ['launch option', 'setting'] as const) {
    it(`with the ${how}: KUBECONFIG in the launch env, the first reflector shown, everything stopped with the debug session`, async () => {
      const { provider, registry, shown, started, terminated, errors } = load(how === 'setting' ? { observeDebugSessions: true } : {});
      const config = { type: 'go', request: 'launch', name: 'ctrl', env: { A: '1' }, ...(how === 'launch option' ? { informerInspector: { observe: true } } : {}) };
      const resolved = (await provider.resolveDebugConfiguration(undefined, config)) as unknown as { env: Record<string, string> } & Record<string, unknown>;
      assert.deepEqual(errors, []);
      assert.equal(resolved.env.A, '1');
      const kubeconfig = resolved.env.KUBECONFIG;
      assert.ok(kubeconfig && existsSync(kubeconfig));
      started.forEach((fn) => fn({ id: 'd1', configuration: resolved }));
      // The process lists through the proxy.
      const yaml = readFileSync(kubeconfig, 'utf8');
      const server = /server: (\S+)/.exec(yaml)![1];
      const token = /token: (\S+)/.exec(yaml)![1];
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(yaml)![1], 'base64').toString('utf8');
      await new Promise<void>((resolve, reject) =>
        https
          .get(`${server}/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0`, { ca, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve());
          })
          .on('error', reject),
      );
      assert.equal(shown.length, 1);
      assert.equal(registry.all().length, 1);
      assert.equal(shown[0].kind, 'observed');
      assert.ok(shown[0].live);
      terminated.forEach((fn) => fn({ id: 'd1', configuration: resolved }));
      const t0 = Date.now();
      while (shown[0].live && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
      assert.ok(!shown[0].live, 'the session ended with the debug session');
      assert.ok(!existsSync(kubeconfig), 'the kubeconfig is removed');
      provider.dispose();
    });
  }
});
