import { strict as assert } from 'node:assert';
import type * as http from 'node:http';
import { lazyStateOf } from '../../../src/engine/lazyObject';
import { TransportError } from '../../../src/engine/listWatch';
import { httpGet } from '../../../src/kube/http';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { decodeList } from '../../../src/kube/listDecode';
import { ListStream, listCollector, readList } from '../../../src/kube/listStream';
import { seededRand } from '../../../src/sources/seededRand';
import { loopbackKubeconfig, loopbackListerWatcher, startLoopback, type Loopback } from './loopback';

/** What a decode came to, as text: the list (items, which are lazy, members) or the error's class, kind and message. */
function outcome(decode: () => unknown): string {
  try {
    const l = decode() as { items: object[] };
    return JSON.stringify({ list: l, lazy: l.items.map((o) => lazyStateOf(o) !== undefined) });
  } catch (e) {
    return `${(e as Error).constructor.name} ${(e as { kind?: string }).kind ?? ''}: ${(e as Error).message}`;
  }
}

/** The body's bytes streamed in `pieces`: the outcome, and whether its items were taken as they came. */
function streamed(pieces: Buffer[]): { outcome: string; streamed: boolean } {
  const c = listCollector();
  for (const p of pieces) c.add(p);
  const r = c.done();
  return { outcome: outcome(() => r.decode()), streamed: r.streamed };
}

/** What the generated bodies are broken with: one character put in (or over one). */
const MUTATIONS = ['{', '}', '[', ']', ',', ':', '"', '\\', 'n', '0', ' ', '\u0001', 'é'];

const whole = (bytes: Buffer) => outcome(() => decodeList(bytes));

const pod = (name: string, extra: object = {}) => ({ metadata: { name, namespace: 'default', resourceVersion: '7', uid: 'u-1' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] }, ...extra });

/** Bodies the walk takes whole (the items streamed at every split). */
const STREAMS = [
  JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [pod('a'), null, { kind: 'X', apiVersion: 'x/v1', metadata: { name: 'é😀€' } }] }),
  JSON.stringify({ items: [pod('b', { data: { s: 'q"uote \\ back\nnew €' } }), null], apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '12', continue: 'c' } }),
  JSON.stringify({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '3' }, items: [pod('c'), pod('d')] }, null, 10),
  '{"kind":"List","items":[ ] , "metadata":{},"n":-12.5e+3}',
  ' {"items":[],"apiVersion":"v1"}\n',
  '{"apiVersion":"v1","kind":"ConfigMapList","items":[{"metadata":{"n\\u0061me":"\\u00e9\\/x","resourceVersion":"1"},"kind":""},{"metadata":{"name":"z"},"apiVersion":""}],"x":true,"y":null,"z":12}',
  '{"apiVersion":5,"kind":"PodList","items":[{"metadata":{"name":"a"}},{"kind":"K","metadata":{"name":"b"}}]}',
  '{"it\\u0065ms":[{"metadata":{"name":"escaped key"}}],"kind":"PodList"}',
  '{"kind":"PodList","kind":"NodeList","items":[{"metadata":{"name":"a"}}],"metadata":{"resourceVersion":"1"},"metadata":{"resourceVersion":"2"}}',
];

/** Bodies the walk leaves to decodeList (the same list or error from the rebuilt text). */
const REBUILT = [
  '{"items":[{"a":1},]}',
  '{"items":[1]}',
  '{"items":[[]]}',
  '{"items":["x"]}',
  '{"items":[true,null]}',
  '{"items":[nul]}',
  '{"items":[nullx]}',
  '{"items":{}}',
  '{"items":[{"a":1}] x}',
  '{"items":[{"a":1}]}}',
  '{"items":[{"a":1}]} x',
  '{"items":[{"a":1}],}',
  '{"items":[{"kind":5,"metadata":{"name":"a"}}],"kind":"PodList"}',
  '{"items":[{"metadata":{"name":1}}]}',
  '{"items":[{"a":"\u0001"}]}',
  '{"items":[{"a":1}],"items":[null,{"metadata":{"name":"second"}}]}',
  '\uFEFF{"items":[]}',
  '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":410}',
  '{"kind":"PodList","metadata":{}}',
  '',
  '   ',
  'null',
  '[]',
  '<html>502</html>',
  '{"items":[{"a":"\\x"}]}',
  '{"items":[{"a":01}]}',
  '{"kind":"PodList","items":[{"metadata":{"name":"a"}}]',
];

describe('kube: a LIST decoded as its body streams in (listStream.ts) gives what decodeList gives for the same bytes', () => {
  it('bodies split in two at every byte offset, and byte by byte', () => {
    let n = 0;
    for (const [set, bodies] of [['streams', STREAMS], ['rebuilt', REBUILT]] as const) {
      for (const body of bodies) {
        const bytes = Buffer.from(body);
        const want = whole(bytes);
        const splits = [[...bytes].map((_, i) => bytes.subarray(i, i + 1))];
        for (let cut = 0; cut <= bytes.length; cut++) splits.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
        for (const pieces of splits) {
          const got = streamed(pieces);
          n++;
          assert.equal(got.outcome, want, `${JSON.stringify(body)} split at ${pieces.map((p) => p.length).join(',')}`);
          assert.equal(got.streamed, set === 'streams', `${JSON.stringify(body)} ${set === 'streams' ? 'not ' : ''}streamed, split at ${pieces.map((p) => p.length).join(',')}`);
        }
      }
    }
    assert.ok(n > 3000, `${n} splits`);
  });

  it('small bodies split in three at every pair of offsets', () => {
    for (const body of [...STREAMS.slice(0, 2), ...STREAMS.slice(3), ...REBUILT].filter((b) => Buffer.byteLength(b) <= 160)) {
      const bytes = Buffer.from(body);
      const want = whole(bytes);
      for (let a = 0; a <= bytes.length; a++) {
        for (let b = a; b <= bytes.length; b++) {
          const got = streamed([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]);
          assert.equal(got.outcome, want, `${JSON.stringify(body)} split at ${a},${b}`);
        }
      }
    }
  });

  it('every cut of a body (a connection that ended early, read as if complete) decodes as decodeList decodes it', () => {
    const body = Buffer.from(STREAMS[0]);
    for (let end = 0; end <= body.length; end++) {
      const cut = body.subarray(0, end);
      const mid = end >> 1;
      assert.equal(streamed([cut.subarray(0, mid), cut.subarray(mid)]).outcome, whole(cut), `cut at ${end}`);
    }
  });

  it('generated lists (objects, nulls, unicode, escapes, members before and after items, whitespace), whole or broken, split at random offsets (1 500 bodies)', () => {
    const rand = seededRand(20261125);
    let taken = 0;
    for (let n = 0; n < 1500; n++) {
      let body = generatedList(rand);
      const r = rand();
      if (r < 0.15) body = body.slice(0, Math.floor(rand() * body.length));
      else if (r < 0.3) {
        const at = Math.floor(rand() * body.length);
        body = body.slice(0, at) + MUTATIONS[Math.floor(rand() * MUTATIONS.length)] + body.slice(at + (rand() < 0.5 ? 1 : 0));
      }
      const bytes = Buffer.from(body);
      const want = whole(bytes);
      const pieces: Buffer[] = [];
      const small = rand() < 0.3;
      for (let i = 0; i < bytes.length; ) {
        const len = 1 + Math.floor(rand() * (small ? 8 : 400));
        pieces.push(bytes.subarray(i, i + len));
        i += len;
      }
      const got = streamed(pieces);
      if (got.streamed) taken++;
      assert.equal(got.outcome, want, body);
    }
    assert.ok(taken > 800, `${taken} bodies streamed`);
  });

  it('carries over at most the unfinished item and what came since the last walk; the whole text is never made', () => {
    const items = Array.from({ length: 3000 }, (_, i) => pod(`pod-${i}`, i % 97 === 0 ? { big: 'x'.repeat(5000 + i) } : {}));
    const text = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '99' }, items });
    const maxItem = Math.max(...items.map((o) => JSON.stringify(o).length));
    for (const piece of [16384, 1000, 100]) {
      const s = new ListStream();
      let most = 0;
      for (let i = 0; i < text.length; i += piece) {
        s.write(text.slice(i, i + piece));
        most = Math.max(most, s.carried);
      }
      const r = s.end();
      assert.equal(r.streamed, true);
      assert.ok(most <= 2 * (maxItem + 1) + piece, `piece ${piece}: carried ${most} > 2 × ${maxItem + 1} + ${piece}`);
      assert.ok(most < text.length / 10, `piece ${piece}: carried ${most} of ${text.length}`);
      assert.equal(outcome(() => r.decode()), whole(Buffer.from(text)));
    }
  });

  it('the walk never reads past the end of the text it scans (such reads deoptimized the scanner in the first LIST)', () => {
    // Every charCodeAt while the stream is written to and ended: none past the end of its string.
    const charCodeAt = String.prototype.charCodeAt;
    let past = 0;
    let example = '';
    const walkWith = (pieces: string[]) => {
      const s = new ListStream();
      String.prototype.charCodeAt = function (this: string, i: number) {
        if (i >= this.length && past++ === 0) example = `${JSON.stringify(this.slice(-20))}[${i}] of ${pieces.join('').length}`;
        return charCodeAt.call(this, i);
      };
      try {
        for (const p of pieces) s.write(p);
        s.end();
      } finally {
        String.prototype.charCodeAt = charCodeAt;
      }
    };
    const big = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: Array.from({ length: 300 }, (_, i) => pod(`pod-${i}`)) });
    for (const piece of [1000, 7]) walkWith(Array.from({ length: Math.ceil(big.length / piece) }, (_, k) => big.slice(k * piece, (k + 1) * piece)));
    for (const text of [...STREAMS, ...REBUILT]) {
      for (let at = 0; at <= text.length; at++) walkWith([text.slice(0, at), text.slice(at)]);
    }
    assert.equal(past, 0, `${past} reads past the end, e.g. ${example}`);
  });

  it('a multi-byte character cut between two chunks, and invalid bytes, read as the whole-body decode reads them', () => {
    const text = '{"kind":"PodList","items":[{"metadata":{"name":"😀é€"}},{"metadata":{"name":"ok"}}]}';
    const bytes = Buffer.from(text);
    const at = bytes.indexOf(Buffer.from('😀')) + 2;
    const got = streamed([bytes.subarray(0, at), bytes.subarray(at)]);
    assert.equal(got.streamed, true);
    assert.equal(got.outcome, whole(bytes));
    assert.match(got.outcome, /😀é€/);
    const bad = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 2)]);
    assert.equal(streamed([bad.subarray(0, at), bad.subarray(at)]).outcome, whole(bad));
  });
});

describe('kube: a LIST streamed from a loopback server', () => {
  let loop: Loopback;
  let handler: http.RequestListener;
  before(async () => {
    loop = await startLoopback((req, res) => handler(req, res));
  });
  after(() => loop.close());
  const signal = () => new AbortController().signal;
  const body = Buffer.from(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: Array.from({ length: 200 }, (_, i) => ({ metadata: { name: `c-é-${i}`, namespace: 'n', resourceVersion: String(i) } })) }));

  /** Writes the body in pieces of `size` bytes, one per turn; then ends it, or (cut) closes the socket. */
  const chunked = (size: number, upTo = body.length, cut = false): http.RequestListener => (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let i = 0;
    const next = () => {
      if (i >= upTo) {
        if (cut) req.socket.destroy();
        else res.end();
        return;
      }
      res.write(body.subarray(i, Math.min(i + size, upTo)));
      i += size;
      setImmediate(next);
    };
    next();
  };

  it('a body written in pieces of 1 000 and 7 bytes gives the list decodeList gives', async () => {
    for (const size of [1000, 7]) {
      handler = chunked(size);
      const l = await loopbackListerWatcher(loop.port).list({ resourceVersion: '' }, signal());
      assert.equal(outcome(() => l), whole(body));
    }
  });

  it('a body cut by a broken connection mid-item is the transport error it was before', async () => {
    handler = chunked(500, 3333, true);
    await assert.rejects(loopbackListerWatcher(loop.port).list({ resourceVersion: '' }, signal()), (e: unknown) => e instanceof TransportError && /^unexpected error when reading response body\. Please retry\. Original error: Get "[^"]*": unexpected EOF$/.test(e.message));
  });

  it('maxBytes ends the read with the same error', async () => {
    handler = chunked(1000);
    const conn = KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(loop.port) });
    let read: Promise<unknown> | undefined;
    await httpGet(conn, `http://127.0.0.1:${loop.port}/api/v1/configmaps`, { signal: signal(), onResponse: (r) => (read = readList(r, 4000)) });
    await assert.rejects(read as Promise<unknown>, (e: unknown) => e instanceof TransportError && e.message === 'response body larger than 4000 bytes');
  });
});

/** A random LIST body: members in random order around items; items objects (some nested, unicode, escapes) or nulls; random whitespace. */
function generatedList(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const str = () => pick(['a', 'é', '😀x', 'q"q', 'b\\s', 'n\nl', '€€€', 'x'.repeat(20), '\u2028', '', 'tab\there', '\u0000']);
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth > 3 || r < 0.3) return pick([str(), 12, -0.5, 1e21, true, false, null]);
    if (r < 0.65) return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [str(), value(depth + 1)]));
    return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
  };
  const item = () => {
    if (rand() < 0.1) return null;
    const o: Record<string, unknown> = { metadata: { name: str(), namespace: pick(['default', 'kube-system']), resourceVersion: String(Math.floor(rand() * 1e6)) } };
    if (rand() < 0.3) o.kind = pick(['Pod', '']);
    if (rand() < 0.3) o.apiVersion = pick(['v1', '']);
    if (rand() < 0.7) o.spec = value(0);
    return o;
  };
  const members: [string, unknown][] = [
    ['items', Array.from({ length: Math.floor(rand() * 12) }, item)],
    ['kind', pick(['PodList', 'List', '', 7])],
    ['apiVersion', pick(['v1', 'apps/v1'])],
    ['metadata', { resourceVersion: String(Math.floor(rand() * 1e6)), continue: str() }],
  ];
  if (rand() < 0.3) members.push(['extra', value(0)]);
  members.sort(() => rand() - 0.5);
  const obj = Object.fromEntries(members);
  const style = rand();
  return style < 0.5 ? JSON.stringify(obj) : style < 0.8 ? JSON.stringify(obj, null, Math.floor(rand() * 12)) : ` \n${JSON.stringify(obj, null, '\t')}\r\n `;
}
