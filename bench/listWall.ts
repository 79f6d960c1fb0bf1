/**
 * One LIST through HttpListerWatcher.list over loopback, this tree's against a git revision's
 * (unpacked by bench/baseline.ts), alternating in one process: wall and CPU time per list.
 *   node --expose-gc --import tsx bench/listWall.ts --baseline main [--file list.json] [--rounds 9]
 * The server answers in the same process (res.end of the whole body), so the times are the
 * transfer and the decode, without an informer.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { KubeConnection } from '../src/kube/kubeconfig';
import { HttpListerWatcher } from '../src/kube/listerWatcher';
import { unpackRevision } from './baseline';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? d : process.argv[i + 1];
};
const revision = arg('--baseline', 'main');
const rounds = Number(arg('--rounds', '9'));
const body = fs.readFileSync(arg('--file', '/tmp/informer-inspector-peers-10000-50000/list.json'));

async function main(): Promise<void> {
  const unpacked = unpackRevision(revision);
  let base: { HttpListerWatcher: typeof HttpListerWatcher; KubeConnection: typeof KubeConnection };
  // The unpacked src/ reads ../package.json (format/tool.ts): the working tree's.
  fs.copyFileSync(join(__dirname, '..', 'package.json'), join(unpacked.root, 'package.json'));
  try {
    base = {
      HttpListerWatcher: (require(join(unpacked.root, 'src', 'kube', 'listerWatcher.ts')) as typeof import('../src/kube/listerWatcher')).HttpListerWatcher,
      KubeConnection: (require(join(unpacked.root, 'src', 'kube', 'kubeconfig.ts')) as typeof import('../src/kube/kubeconfig')).KubeConnection,
    };
  } catch (e) {
    unpacked.remove();
    throw e;
  }
  const srv = http.createServer((_q, r) => {
    r.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    r.end(body);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  const yaml = `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`;
  const res = { group: '', version: 'v1', resource: 'pods', namespaced: true };
  const ways: [string, HttpListerWatcher][] = [
    [revision, new base.HttpListerWatcher(base.KubeConnection.load({ kubeconfigYaml: yaml }), res)],
    ['this tree', new HttpListerWatcher(KubeConnection.load({ kubeconfigYaml: yaml }), res)],
  ];
  const wall = new Map<string, number[]>(ways.map(([n]) => [n, []]));
  const cpu = new Map<string, number[]>(ways.map(([n]) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, lw] of r % 2 ? [...ways].reverse() : ways) {
      (globalThis as { gc?: () => void }).gc?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const l = await lw.list({ resourceVersion: '' }, new AbortController().signal);
      wall.get(name)!.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.get(name)!.push((c.user + c.system) / 1000);
      if (r === 0) console.log(`${name}: ${l.items.length} items`);
    }
  }
  srv.close();
  unpacked.remove();
  const med = (x: number[]) => [...x].sort((a, b) => a - b)[x.length >> 1];
  for (const [what, m] of [['wall', wall], ['CPU', cpu]] as const) {
    const a = m.get(revision)!;
    const b = m.get('this tree')!;
    const ratios = b.map((x, i) => x / a[i]);
    console.log(`${what} ms: ${revision} ${med(a).toFixed(0)}, this tree ${med(b).toFixed(0)}; per round this/${revision} ${med(ratios).toFixed(2)}× (${ratios.map((x) => x.toFixed(2)).join(', ')})`);
  }
}

void main();
