/** The client-node variant of the peer benchmark (client.ts loads its bundle for that mode only). */
import { performance } from 'node:perf_hooks';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { benchKubeconfig } from '../benchKubeconfig';
import { Counter, watchPhase, type Result } from './clientCommon';

export async function clientNode(url: string, events: number): Promise<Result> {
  const kc = new KubeConfig();
  // client-node refuses plain HTTP unless TLS verification is marked off (there is no TLS here).
  kc.loadFromString(benchKubeconfig(url).replace(`server: "${url}"`, `server: "${url}", insecure-skip-tls-verify: true`));
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
  const counter = new Counter(2, events);
  for (let h = 0; h < 2; h++) informer.on('update', counter.handler(h));
  informer.on('error', (e: unknown) => console.error('client-node informer error:', String(e)));
  const t0 = performance.now();
  await informer.start();
  const syncMs = performance.now() - t0;
  const r = await watchPhase(url, counter, () => informer.list().length, syncMs);
  await informer.stop();
  return r;
}

