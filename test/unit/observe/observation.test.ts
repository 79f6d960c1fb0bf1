/**
 * The observation use case (src/app/observation.ts): the kubeconfig it
 * writes reaches the proxy, each reflector of the process becomes a session, and stopping one
 * session stops the proxy, ends every session and removes the kubeconfig.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import * as https from 'node:https';
import { findProfile } from '../../../src/engine/profiles';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { startObservation } from '../../../src/app/observation';
import type { InformerSession } from '../../../src/app/session';
import { loopbackKubeconfig, startLoopback } from '../kube/loopback';

function get(url: string, ca: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('observe: the extension observation', function () {
  this.timeout(10_000);

  it('turns each observed reflector into a session; stopping one stops the proxy and ends them all', async () => {
    const upstream = await startLoopback((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[]}');
    });
    const sessions: InformerSession[] = [];
    let n = 0;
    const obs = await startObservation({
      conn: KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(upstream.port) }),
      profile: findProfile('v1.32')!,
      label: 'test',
      newId: () => `s${++n}`,
      onSession: (s) => sessions.push(s),
    });
    try {
      const yaml = readFileSync(obs.kubeconfigPath, 'utf8');
      const token = /token: (\S+)/.exec(yaml)![1];
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(yaml)![1], 'base64').toString('utf8');
      assert.match(yaml, new RegExp(`server: ${obs.proxyUrl.replace(/[.]/g, '\\.')}`));
      assert.equal(await get(`${obs.proxyUrl}/api/v1/namespaces/a/configmaps?limit=500&resourceVersion=0`, ca, token), 200);
      assert.equal(await get(`${obs.proxyUrl}/api/v1/namespaces/b/configmaps?limit=500&resourceVersion=0`, ca, token), 200);
      assert.equal(sessions.length, 2);
      assert.match(sessions[0].title, /^configmaps\.v1 ns=a .*\(v1\.\d+\), observed in test$/);
      assert.ok(sessions.every((s) => s.live));
      await sessions[1].stop();
      assert.ok(sessions.every((s) => !s.live), 'every session ended');
      assert.ok(obs.stopped);
      assert.ok(!existsSync(obs.kubeconfigPath), 'the kubeconfig is removed');
      await assert.rejects(get(`${obs.proxyUrl}/api/v1/configmaps`, ca, token));
    } finally {
      await obs.stop();
      upstream.close();
    }
  });
});
