/**
 * A lazy object's state kept compactly (src/engine/lazyObject.ts): the members record as a shared
 * key tuple and packed spans, the text as a span of the watch line, the name as a slice of the
 * store key, and one state per lazy object even when a scanner's result is handed over twice.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { compareUpdate } from '../../../src/engine/diff';
import { lazyObject, lazyObjectIn, lazyStateOf, membersOf, newLazyState, rawOf, setMembers, storeKey } from '../../../src/engine/lazyObject';
import { metaField, resourceVersionOf } from '../../../src/engine/objects';
import { metaNamespaceKeyFunc } from '../../../src/engine/store';
import { scanObject } from '../../../src/kube/jsonScan';
import { lazyWatchLine } from '../../../src/kube/watchStream';
import { check, jsonValue } from '../robustness/support';

/** A members record as the scanner writes it: key, value start, value end, … */
const record = fc.array(fc.tuple(fc.constantFrom('kind', 'apiVersion', 'metadata', 'spec', 'status', '__proto__', '0', 'a"b'), fc.nat({ max: 70_000 }), fc.nat({ max: 70_000 })), { maxLength: 8 }).map((ms) => ms.flatMap(([k, a, b]) => [k, Math.min(a, b), Math.max(a, b)]));

describe('engine: the lazy object state', () => {
  it('keeps any members record and gives it back as the scanner wrote it (packed or not)', async () => {
    await check(
      fc.property(record, record, (m1, m2) => {
        const a = newLazyState();
        const b = newLazyState();
        setMembers(a, [...m1]);
        setMembers(b, [...m2]);
        assert.deepEqual(membersOf(a), m1);
        assert.deepEqual(membersOf(b), m2);
        assert.deepEqual(membersOf(a), m1, 'again, after another record was kept');
      }),
      { numRuns: 500 },
    );
    const none = newLazyState();
    setMembers(none, undefined);
    assert.equal(membersOf(none), undefined);
  });

  it('objects with the same keys share one key tuple; spans past 0xffff keep the whole record', () => {
    const a = newLazyState();
    const b = newLazyState();
    setMembers(a, ['kind', 1, 5, 'spec', 7, 9]);
    setMembers(b, ['kind', 2, 6, 'spec', 8, 12]);
    assert.ok(a.memberKeys !== undefined && a.memberKeys === b.memberKeys, 'one tuple');
    assert.equal(typeof a.memberSpans, 'string');
    const big = newLazyState();
    setMembers(big, ['kind', 1, 5, 'spec', 7, 0x10000]);
    assert.equal(big.memberKeys, undefined);
    assert.deepEqual(membersOf(big), ['kind', 1, 5, 'spec', 7, 0x10000]);
  });

  it('reads the object from its span of the watch line', () => {
    const line = '{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0-7d9f8c6b5-00000","namespace":"default","resourceVersion":"7"},"spec":{}}}';
    const e = lazyWatchLine(line);
    assert.ok(e);
    const s = lazyStateOf(e.object);
    assert.ok(s);
    assert.equal(rawOf(s), line.slice(28, -1));
    assert.equal(s.holder, line, 'the line itself is kept, not a slice of it');
    assert.deepEqual(e.object, JSON.parse(line).object);
  });

  it('the store key is made once and the name is then a slice of it, with the same characters', () => {
    const names = ['a', 'exactly-13-ch', 'web-0-7d9f8c6b5-00000', 'n'.repeat(300)];
    for (const name of names) {
      for (const ns of [undefined, '', 'default', 'a-much-longer-namespace-name']) {
        const text = JSON.stringify({ kind: 'Pod', metadata: { name, namespace: ns, resourceVersion: '1' } });
        const o = lazyObject(text, scanObject(text, 0)?.fields ?? assert.fail('scanned'));
        const s = lazyStateOf(o) ?? assert.fail('lazy');
        const key = metaNamespaceKeyFunc(o);
        assert.equal(key, ns ? `${ns}/${name}` : name);
        assert.equal(storeKey(s), key);
        assert.equal(metaField(o, 'name'), name);
        assert.equal(resourceVersionOf(o), '1');
        assert.equal((JSON.parse(text) as { metadata: { name: string } }).metadata.name, metaField(o, 'name'));
        assert.equal(s.parsed, undefined, 'still text');
      }
    }
  });

  it('a scanner state handed to two lazy objects gives each a state of its own', () => {
    const t1 = '{"kind":"Pod","metadata":{"name":"a","namespace":"ns"},"spec":{"x":1}}';
    const t2 = '{"kind":"Pod","metadata":{"name":"a","namespace":"ns"},"spec":{"x":2}}';
    const fields = scanObject(t1, 0)?.fields ?? assert.fail('scanned');
    const a = lazyObject<{ spec: unknown }>(t1, fields);
    const b = lazyObjectIn<{ spec: unknown }>(` ${t2} `, 1, t2.length + 1, fields);
    assert.notEqual(lazyStateOf(a), lazyStateOf(b));
    assert.deepEqual(a.spec, { x: 1 });
    assert.deepEqual(b.spec, { x: 2 });
    // Fields written by hand (no scanner state) are copied into a state of their own too.
    const hand = { kind: 'Pod', hasMetadata: true, name: 'h', namespace: 'ns', members: ['kind', 1, 6] };
    const c = lazyObject(t1, hand);
    const cs = lazyStateOf(c) ?? assert.fail('lazy');
    assert.notEqual(cs as unknown, hand);
    assert.deepEqual(membersOf(cs), ['kind', 1, 6]);
  });
  it('the update comparison of objects read from watch lines (texts at other places in their lines) equals the parsed objects\' one', async () => {
    const pod = (rv: string, labels: unknown, spec: unknown, status: unknown) => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web-0-7d9f8c6b5-00000', namespace: 'default', resourceVersion: rv, labels }, spec, status });
    const type = fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK');
    const part = fc.oneof(jsonValue, fc.constant({ containers: [{ name: 'c', image: 'x:1' }] }));
    await check(
      fc.property(type, type, fc.tuple(part, part, part), fc.tuple(part, part, part), (ta, tb, [la, sa, xa], [lb, sb, xb]) => {
        const a = pod('1', la, sa, xa);
        const b = pod('2', lb, sb, xb);
        const ea = lazyWatchLine(JSON.stringify({ type: ta, object: a }));
        const eb = lazyWatchLine(JSON.stringify({ type: tb, object: b }));
        assert.ok(ea && eb);
        assert.deepEqual(compareUpdate(ea.object, eb.object), compareUpdate(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))));
      }),
      { numRuns: 400 },
    );
  });
});
