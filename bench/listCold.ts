/**
 * One LIST body decoded once in a fresh process (cold JIT, as the engine worker's first LIST is):
 * this tree streamed (listCollector), a git revision's streamed, and this tree's whole-text
 * decode (utf8Collector + decodeList), one process each per round, alternating; the engine
 * worker's heap limits. bench/listDecode.ts and bench/listWall.ts run many rounds in one process,
 * where the scanner is warm after the first: they did not see what the first LIST pays.
 *   node --import tsx bench/listCold.ts --baseline main [--file list.json] [--chunk 65536] [--rounds 7]
 * With --trace-deopt in NODE_OPTIONS-free form: node --trace-deopt --import tsx bench/listCold.ts --child streamed src
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { unpackRevision } from './baseline';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? d : process.argv[i + 1];
};
const file = arg('--file', '/tmp/informer-inspector-peers-10000-50000/list.json');
const chunk = Number(arg('--chunk', '65536'));

/** In the child: one decode, printed as `items cpuMs wallMs`. */
async function child(way: string, src: string): Promise<void> {
  const bytes = fs.readFileSync(file);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(Buffer.from(bytes.subarray(i, i + chunk)));
  const http = (await import(join(src, 'kube', 'http.ts'))) as typeof import('../src/kube/http');
  const ld = (await import(join(src, 'kube', 'listDecode.ts'))) as typeof import('../src/kube/listDecode');
  const ls = (await import(join(src, 'kube', 'listStream.ts'))) as typeof import('../src/kube/listStream');
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let n: number;
  if (way === 'whole') {
    const c = http.utf8Collector();
    for (const b of chunks) c.add(b);
    n = ld.decodeList(c.done()).items.length;
  } else {
    const c = ls.listCollector();
    for (const b of chunks) c.add(b);
    n = c.done().decode().items.length;
  }
  const c = process.cpuUsage(c0);
  console.log(`${n} ${((c.user + c.system) / 1000).toFixed(1)} ${(performance.now() - t0).toFixed(1)}`);
}

function driver(): void {
  const revision = arg('--baseline', 'main');
  const rounds = Number(arg('--rounds', '7'));
  const unpacked = unpackRevision(revision);
  fs.copyFileSync(join(__dirname, '..', 'package.json'), join(unpacked.root, 'package.json'));
  const own = join(__dirname, '..', 'src');
  const ways: [string, string, string][] = [
    ['streamed', 'streamed', own],
    [`${revision} streamed`, 'streamed', join(unpacked.root, 'src')],
    ['whole', 'whole', own],
  ];
  const cpu = new Map<string, number[]>(ways.map(([n]) => [n, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const [name, way, src] of r % 2 ? [...ways].reverse() : ways) {
        const out = execFileSync(process.execPath, ['--expose-gc', '--max-semi-space-size=2', '--max-old-space-size=1024', '--import', 'tsx', __filename, '--child', way, src, '--file', file, '--chunk', String(chunk)], { encoding: 'utf8', timeout: 120_000 });
        const [items, ms] = out.trim().split('\n').pop()!.split(' ').map(Number);
        if (items !== 10_000 && r === 0) console.log(`${name}: ${items} items`);
        cpu.get(name)!.push(ms);
      }
    }
  } finally {
    unpacked.remove();
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const whole = cpu.get('whole')!;
  for (const [name] of ways) {
    const xs = cpu.get(name)!;
    console.log(`${name}: CPU ms ${med(xs).toFixed(0)} (${xs.map((x) => x.toFixed(0)).join(', ')}); / whole per round ${xs.map((x, i) => (x / whole[i]).toFixed(2)).join(', ')}`);
  }
}

const at = process.argv.indexOf('--child');
if (at !== -1) void child(process.argv[at + 1], process.argv[at + 2]);
else driver();
