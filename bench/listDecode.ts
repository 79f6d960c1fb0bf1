/**
 * A LIST body's decode on its own, this tree's two ways side by side: the whole text then
 * decodeList (utf8Collector's pieces joined), against listStream.ts taking items as the chunks come.
 *   npx tsx bench/listDecode.ts [--file list.json] [--chunk 65536] [--rounds 7]
 * With the engine worker's heap limits (young generation 6 MiB ≈ semi-spaces of 2): node --expose-gc --max-semi-space-size=2 --max-old-space-size=1024 --import tsx bench/listDecode.ts
 */
import * as fs from 'node:fs';
import { utf8Collector } from '../src/kube/http';
import { decodeList } from '../src/kube/listDecode';
import { listCollector } from '../src/kube/listStream';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? d : process.argv[i + 1];
};
const file = arg('--file', '/tmp/informer-inspector-peers-10000-50000/list.json');
const chunk = Number(arg('--chunk', '65536'));
const rounds = Number(arg('--rounds', '7'));
const bytes = fs.readFileSync(file);
const chunks: Buffer[] = [];
for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));

function whole(): number {
  const c = utf8Collector();
  for (const b of chunks) c.add(b);
  return decodeList(c.done()).items.length;
}
function streamed(): number {
  const c = listCollector();
  for (const b of chunks) c.add(b);
  return c.done().decode().items.length;
}
const ways = { whole, streamed };
const times: Record<string, number[]> = { whole: [], streamed: [] };
for (let r = 0; r < rounds; r++) {
  for (const [name, f] of Object.entries(ways)) {
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = process.cpuUsage();
    const n = f();
    const t = process.cpuUsage(t0);
    times[name].push((t.user + t.system) / 1000);
    if (r === 0) console.log(`${name}: ${n} items`);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`${(bytes.length / 2 ** 20).toFixed(1)} MiB in chunks of ${chunk}, ${rounds} alternating rounds, CPU ms: whole ${med(times.whole).toFixed(0)} (${times.whole.map((x) => x.toFixed(0)).join(', ')}), streamed ${med(times.streamed).toFixed(0)} (${times.streamed.map((x) => x.toFixed(0)).join(', ')}); per round streamed/whole ${times.streamed.map((x, i) => (x / times.whole[i]).toFixed(2)).join(', ')}`);
