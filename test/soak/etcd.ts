/** etcd compaction through etcd's v3 JSON gateway on 127.0.0.1 (what makes the soak's watches expire). */
import * as http from 'node:http';

function etcdPost(port: number, p: string, body: unknown): Promise<{ header: { revision: string } }> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = http.request({ host: '127.0.0.1', port, path: p, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': data.length }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`etcd ${p}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`etcd ${p} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

/** Compacts etcd to its current revision (physically); resolves with that revision. */
export async function compactEtcd(port: number): Promise<number> {
  const r = await etcdPost(port, '/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
  const rev = Number(r.header.revision);
  await etcdPost(port, '/v3/kv/compaction', { revision: String(rev), physical: true });
  return rev;
}
