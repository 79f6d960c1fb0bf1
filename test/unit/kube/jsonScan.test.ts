/**
 * The structural scanner behind lazy objects (src/kube/jsonScan.ts) against JSON.parse: on texts
 * written with duplicate keys, escaped keys, random whitespace, numbers of every form and traps
 * (a `resourceVersion` inside `spec`, a `metadata` inside `involvedObject`), it reads exactly the
 * fields JSON.parse gives, and it declines every text JSON.parse refuses.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { scanList, scanObject, scanWatchEvent, type ScannedFields } from '../../../src/kube/jsonScan';
import { decodeList } from '../../../src/kube/listerWatcher';
import { decodeParsedFrame, lazyWatchEvent } from '../../../src/kube/watchStream';
import { lazyStateOf, membersOf, type LazyFields } from '../../../src/engine/lazyObject';
import { check, jsonLeaf } from '../robustness/support';

/** A JSON text's syntax tree: objects are member lists, so keys can repeat. */
type Node = { t: 'leaf'; v: unknown } | { t: 'arr'; items: Node[] } | { t: 'obj'; members: [string, Node][] };

const KEYS = ['kind', 'apiVersion', 'metadata', 'name', 'namespace', 'resourceVersion', 'spec', 'involvedObject', 'items', 'type', 'object', '__proto__', 'a', 'é"\\'];

const leaf = fc.oneof(
  jsonLeaf.map((v): Node => ({ t: 'leaf', v })),
  fc.constantFrom('"v1"', '"Pod"', '"ns"', '"12"', '""', '-0', '1e3', '0.5E-2', '12').map((text): Node => ({ t: 'leaf', v: { text } })),
);

const node: fc.Arbitrary<Node> = fc.letrec<{ n: Node }>((tie) => ({
  n: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('n'), { maxLength: 3 }).map((items): Node => ({ t: 'arr', items })),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 4 })), tie('n')), { maxLength: 5 }).map((members): Node => ({ t: 'obj', members })),
  ),
})).n;

/** A Kubernetes-like object: the engine's fields (often strings), metadata with traps, repeats. */
const kubeNode: fc.Arbitrary<Node> = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constantFrom('kind', 'apiVersion'), fc.oneof(fc.string({ maxLength: 5 }).map((v): Node => ({ t: 'leaf', v })), node)),
      fc.tuple(
        fc.constant('metadata'),
        fc.oneof(
          fc
            .array(fc.tuple(fc.constantFrom('name', 'namespace', 'resourceVersion', 'labels', 'annotations'), fc.oneof(fc.string({ maxLength: 5 }).map((v): Node => ({ t: 'leaf', v })), node)), { maxLength: 6 })
            .map((members): Node => ({ t: 'obj', members })),
          node,
        ),
      ),
      fc.tuple(fc.constantFrom('spec', 'involvedObject', 'status'), node),
    ),
    { maxLength: 7 },
  )
  .map((members): Node => ({ t: 'obj', members }));

/** How to write a tree: whitespace between tokens, and which key characters to write as \uXXXX. */
interface Style {
  spaces: string[];
  escapeKeys: boolean[];
}
const style: fc.Arbitrary<Style> = fc.record({
  spaces: fc.array(fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n '), { minLength: 1, maxLength: 8 }),
  escapeKeys: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});

function write(n: Node, s: Style): string {
  let k = 0;
  const ws = () => s.spaces[k++ % s.spaces.length];
  const key = (name: string): string => {
    let out = '"';
    for (const ch of name) {
      if (s.escapeKeys[k++ % s.escapeKeys.length]) {
        for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
      } else out += JSON.stringify(ch).slice(1, -1);
    }
    return `${out}"`;
  };
  const go = (x: Node): string => {
    if (x.t === 'leaf') {
      const v = x.v as { text?: string } | undefined;
      return v && typeof v === 'object' && typeof v.text === 'string' && Object.keys(v).length === 1 ? v.text : JSON.stringify(x.v);
    }
    if (x.t === 'arr') return `[${ws()}${x.items.map((i) => go(i)).join(`${ws()},${ws()}`)}${ws()}]`;
    return `{${ws()}${x.members.map(([name, v]) => `${key(name)}${ws()}:${ws()}${go(v)}`).join(`${ws()},${ws()}`)}${ws()}}`;
  };
  return go(n);
}

/** What the scanner must read from a parsed object, or undefined when it must decline (a field of another type). */
function expectedFields(o: Record<string, unknown>): LazyFields | undefined {
  const str = (v: unknown) => v === undefined || typeof v === 'string';
  if (!str(o.kind) || !str(o.apiVersion)) return undefined;
  const f: LazyFields = { hasMetadata: o.metadata !== undefined, kind: o.kind as string | undefined, apiVersion: o.apiVersion as string | undefined };
  if (o.metadata !== undefined) {
    const m = o.metadata as Record<string, unknown>;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return undefined;
    if (!str(m.name) || !str(m.namespace) || !str(m.resourceVersion)) return undefined;
    Object.assign(f, { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion });
  }
  return f;
}

/** The fields the engine reads (not the state's other members). */
function norm(f: LazyFields | undefined): unknown {
  return f && JSON.parse(JSON.stringify({ hasMetadata: f.hasMetadata, kind: f.kind, apiVersion: f.apiVersion, name: f.name, namespace: f.namespace, resourceVersion: f.resourceVersion }));
}

/** The span of metadata's resourceVersion value (rvStart/rvEnd) holds the text of the value JSON.parse keeps; -1 without one. */
function checkRvSpan(text: string, f: ScannedFields): void {
  if (f.resourceVersion === undefined) {
    assert.deepEqual([f.rvStart, f.rvEnd], [-1, -1], text);
    return;
  }
  const [start, end] = [f.rvStart as number, f.rvEnd as number];
  assert.ok(start > 0 && end > start && end <= text.length, text);
  assert.equal(JSON.parse(text.slice(start, end)), f.resourceVersion, text);
}

/** A change to a valid text: insert, delete or replace one character (usually makes it invalid). */
const edit = fc.record({ at: fc.nat(), op: fc.constantFrom('insert', 'delete', 'replace'), ch: fc.constantFrom(...'{}[]":,\\ 0-+.eEtfnu\x01x'.split('')) });

function applyEdit(text: string, e: { at: number; op: string; ch: string }): string {
  const i = e.at % (text.length + 1);
  if (e.op === 'insert') return text.slice(0, i) + e.ch + text.slice(i);
  if (e.op === 'delete') return text.slice(0, i) + text.slice(i + 1);
  return text.slice(0, i) + e.ch + text.slice(i + 1);
}

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

describe('kube: the JSON scanner of lazy objects', () => {
  it('reads exactly the fields JSON.parse gives, and declines only fields of another type', async () => {
    let read = 0;
    await check(
      fc.property(kubeNode, style, (n, s) => {
        const text = write(n, s);
        const want = expectedFields(JSON.parse(text) as Record<string, unknown>);
        const got = scanObject(text, 0);
        assert.deepEqual(norm(got?.fields), norm(want), text);
        if (got) {
          read++;
          assert.equal(got.end, text.length, text);
          checkRvSpan(text, got.fields);
        }
      }),
      { numRuns: 3000, timeMs: 6000 },
    );
    assert.ok(read > 100, `the scanner read ${read} objects`);
  });

  it('declines every text JSON.parse refuses, and reads what it accepts as JSON.parse does', async () => {
    let refused = 0;
    await check(
      fc.property(kubeNode, style, edit, (n, s, e) => {
        const text = applyEdit(write(n, s), e);
        const p = parses(text);
        const got = scanObject(text, 0);
        if (!p.ok) {
          refused++;
          // A prefix that is a whole object is fine (scanObject reads one value); the rest is the caller's.
          if (got) assert.ok(parses(text.slice(0, got.end)).ok, text);
          return;
        }
        if (got && got.end === text.length) assert.deepEqual(norm(got.fields), norm(expectedFields(p.value as Record<string, unknown>)), text);
      }),
      { numRuns: 3000, timeMs: 6000 },
    );
    assert.ok(refused > 100, `${refused} broken texts`);
  });

  it('a watch event line: lazy only where JSON.parse gives the same event, the same object', async () => {
    let lazy = 0;
    const type = fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR', 'BOGUS');
    await check(
      fc.property(kubeNode, type, style, fc.option(edit, { nil: undefined }), fc.boolean(), (n, t, s, e, twice) => {
        const obj = write(n, s);
        let line = `{"type":${JSON.stringify(t)},"object":${obj}${twice ? ',"type":"ADDED"' : ''}}  `;
        if (e) line = applyEdit(line, e);
        let want: unknown;
        try {
          want = decodeParsedFrame(JSON.parse(line));
        } catch (err) {
          want = `error: ${(err as Error).message}`;
        }
        const ev = lazyWatchEvent(line, 0, line.length);
        if (ev === undefined) return;
        lazy++;
        assert.ok(lazyStateOf(ev.object), 'a lazy object');
        assert.equal(typeof want, 'object', line);
        assert.deepEqual(JSON.parse(JSON.stringify(ev)), JSON.parse(JSON.stringify(want)), line);
        if (!e) assert.equal(scanWatchEvent(line, 0, line.length)?.objectEnd, line.indexOf(obj) + obj.length);
      }),
      { numRuns: 3000, timeMs: 6000 },
    );
    assert.ok(lazy > 100, `${lazy} lazy events`);
  });

  it('a LIST body: the same list as the JSON.parse decoder, items lazy, apiVersion/kind filled in alike', async () => {
    let lazyLists = 0;
    const listNode = fc.tuple(fc.array(fc.oneof(kubeNode, fc.constant<Node>({ t: 'leaf', v: null })), { maxLength: 4 }), node, fc.constantFrom('PodList', 'List', '', 'x'));
    await check(
      fc.property(listNode, style, fc.option(edit, { nil: undefined }), ([items, meta, kind], s, e) => {
        let body = write({ t: 'obj', members: [['apiVersion', { t: 'leaf', v: 'v1' }], ['kind', { t: 'leaf', v: kind }], ['metadata', meta], ['items', { t: 'arr', items }]] }, s);
        if (e) body = applyEdit(body, e);
        // What the bytes decode to (a lone surrogate becomes U+FFFD), as decodeList reads them.
        body = Buffer.from(body).toString('utf8');
        let want: unknown;
        try {
          want = referenceDecodeList(body);
        } catch (err) {
          want = 'error';
        }
        let got: unknown;
        try {
          got = decodeList(Buffer.from(body));
        } catch {
          got = 'error';
        }
        if (scanList(body)) lazyLists++;
        assert.deepEqual(JSON.parse(JSON.stringify(got) ?? 'null'), JSON.parse(JSON.stringify(want) ?? 'null'), body);
      }),
      { numRuns: 2000, timeMs: 6000 },
    );
    assert.ok(lazyLists > 100, `${lazyLists} lists read by the scanner`);
  });

  it('skips strings with escaped quotes and backslashes, and nested look-alikes', () => {
    const text = '{"metadata":{"annotations":{"x":"\\"resourceVersion\\":\\"9\\"\\\\"},"resourceVersion":"5","name":"a"},"spec":{"metadata":{"name":"b"},"resourceVersion":"7"},"kind":"Pod","metadata":{"name":"c"}}';
    assert.deepEqual(norm(scanObject(text, 0)?.fields), { hasMetadata: true, kind: 'Pod', name: 'c' });
  });

  it('keys compared in place and keys known from the objects read before: escaped, longer, shorter, moved or renamed keys read as JSON.parse reads them', () => {
    const texts = [
      '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"1"},"spec":{}}',
      // The same keys escaped, one character longer or shorter, in the places of the last object's keys.
      '{"\\u006bind":"Pod","apiVersio":"v0","metadatas":{"name":"x"},"metadata":{"nam":"y","\\u006eame":"b","namespacex":"z","resourceVersion\\u0000":"w"},"spec":1}',
      '{"kinds":"Pod","apiVersion":"v1","metadat":{},"kind":"Node","metadata":{"resourceVersio":"9","resourceVersion":"2"}}',
      '{"spec":{},"metadata":{"namespace":"m","name":"c"},"kind":"Pod","apiVersion":"v2"}',
      '{"k\\"ind":"Pod","kind":"Svc","":1,"metadata":{"":"","name":""}}',
    ];
    const keys = [
      ['kind', 'apiVersion', 'metadata', 'spec'],
      ['kind', 'apiVersio', 'metadatas', 'metadata', 'spec'],
      ['kinds', 'apiVersion', 'metadat', 'kind', 'metadata'],
      ['spec', 'metadata', 'kind', 'apiVersion'],
      ['k"ind', 'kind', '', 'metadata'],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [t, text] of texts.entries()) {
        const f = scanObject(text, 0)?.fields;
        const o = JSON.parse(text) as { kind?: string; apiVersion?: string; metadata?: { name?: string; namespace?: string; resourceVersion?: string } };
        assert.deepEqual(norm(f), norm({ hasMetadata: true, kind: o.kind, apiVersion: o.apiVersion, name: o.metadata?.name, namespace: o.metadata?.namespace, resourceVersion: o.metadata?.resourceVersion }), text);
        assert.deepEqual((f && membersOf(f))?.filter((m) => typeof m === 'string'), keys[t], text);
      }
    }
  });

  it('reads every kind, apiVersion, namespace and key exactly past the bound of shared strings (6 000 distinct ones each)', () => {
    for (let n = 0; n < 6000; n++) {
      const text = `{"kind":"Kind${n}-with-a-long-name","apiVersion":"group${n}.example.com/v1","key${n}":1,"metadata":{"namespace":"ns-${n}-long-enough","name":"a"}}`;
      const f = scanObject(text, 0)?.fields;
      assert.equal(f?.kind, `Kind${n}-with-a-long-name`);
      assert.equal(f?.apiVersion, `group${n}.example.com/v1`);
      assert.equal(f?.namespace, `ns-${n}-long-enough`);
      assert.deepEqual((f && membersOf(f))?.filter((m) => typeof m === 'string'), ['kind', 'apiVersion', `key${n}`, 'metadata']);
    }
    const long = `{"kind":"${'K'.repeat(100)}","metadata":{}}`;
    assert.equal(scanObject(long, 0)?.fields.kind, 'K'.repeat(100));
  });
});

/** decodeList's JSON.parse path, written out: the reference the lazy path must equal. */
function referenceDecodeList(body: string): unknown {
  const l = JSON.parse(body) as { apiVersion?: unknown; kind?: unknown; metadata?: unknown; items?: unknown };
  if (!l || typeof l !== 'object' || !Array.isArray(l.items)) throw new Error('not a list');
  const itemKind = typeof l.kind === 'string' ? l.kind.replace(/List$/, '') : '';
  const items = (l.items as unknown[]).map((o) => {
    if (o === null) return { apiVersion: l.apiVersion, kind: itemKind };
    if (typeof o !== 'object' || Array.isArray(o)) throw new Error('not an object');
    const item = o as Record<string, unknown>;
    return !item.kind && !item.apiVersion ? { apiVersion: l.apiVersion, kind: itemKind, ...item } : item;
  });
  return { apiVersion: l.apiVersion, kind: l.kind, metadata: l.metadata ?? {}, items };
}
