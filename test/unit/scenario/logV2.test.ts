import { strict as assert } from 'node:assert';
import { compareLogs, isV2Log } from '../../conformance/compare';
import { canonicalOrder, type LogLine } from '../../../src/scenario/notificationLog';
import { canonicalJson, objectDigest } from '../../../src/scenario/objectDigest';

/** The same fixture, canonical bytes and digest as TestDigestCanonicalJSON in test/conformance/oracle/oracle_unit_test.go. */
const FIXTURE =
  '{"metadata":{"name":"a<b>&c","namespace":"default","labels":{"z":"1","a":"2","é":"3","B":"4"}},"data":{"n":1.50,"big":1e21,"small":0.000001,"tiny":1e-7,"neg":-0,"i":12345678901,"line":"x\\u2028y\\u0001\\t\\"q\\""},"list":[3,"b",null,true,{"y":1,"x":[]}]}';
const CANONICAL =
  '{"data":{"big":1e+21,"i":12345678901,"line":"x\\u2028y\\u0001\\t\\"q\\"","n":1.5,"neg":-0,"small":0.000001,"tiny":1e-7},"list":[3,"b",null,true,{"x":[],"y":1}],"metadata":{"labels":{"B":"4","a":"2","z":"1","é":"3"},"name":"a<b>&c","namespace":"default"}}';

describe('notification log v2', () => {
  it('canonical JSON and digest agree with the Go oracle byte for byte', () => {
    const v = JSON.parse(FIXTURE) as unknown;
    assert.equal(canonicalJson(v), CANONICAL);
    assert.equal(objectDigest(v), '96b483c072a0ba1d');
    assert.equal(objectDigest(undefined), '');
    assert.notEqual(objectDigest({ a: 1 }), objectDigest({ a: 2 }));
  });

  it('orders one instant as requests, handlers in added order, synced, divergence, store, end', () => {
    const lines: LogLine[] = [
      { kind: 'end', t: 5 },
      { kind: 'notify', t: 0, handler: 'late', op: 'add', key: 'k', rv: '1' },
      { kind: 'synced', t: 0 },
      { kind: 'notify', t: 0, handler: 'main', op: 'add', key: 'k', rv: '1' },
      { kind: 'request', t: 0, verb: 'watch', rv: '1' },
      { kind: 'store', t: 5, objects: {} },
      { kind: 'notify', t: 0, handler: 'main', op: 'add', key: 'j', rv: '2' },
    ];
    const out = canonicalOrder(lines, ['main', 'late']).map((l) => `${l.kind}${l.kind === 'notify' ? `:${l.handler}:${l.key}` : ''}`);
    assert.deepEqual(out, ['request', 'notify:main:k', 'notify:main:j', 'notify:late:k', 'synced', 'store', 'end']);
  });

  it('compares the whole stream exactly: a time, a timeoutSeconds, a digest or the store differing fails', () => {
    const base: LogLine[] = [
      { kind: 'request', t: 0, verb: 'watch', rv: '1', timeoutSeconds: 481 },
      { kind: 'notify', t: 0, handler: 'main', op: 'add', key: 'k', rv: '1', digest: 'aaaa' },
      { kind: 'store', t: 10, objects: { k: 'aaaa' } },
      { kind: 'end', t: 10 },
    ];
    assert.ok(isV2Log(base));
    assert.deepEqual(compareLogs(base, structuredClone(base)), []);
    const variants: ((l: LogLine[]) => void)[] = [
      (l) => ((l[0] as { t: number }).t = 0.001),
      (l) => ((l[0] as { timeoutSeconds: number }).timeoutSeconds = 482),
      (l) => ((l[1] as { digest: string }).digest = 'bbbb'),
      (l) => ((l[2] as { objects: Record<string, string> }).objects = {}),
      (l) => l.reverse(),
    ];
    for (const change of variants) {
      const other = structuredClone(base);
      change(other);
      const m = compareLogs(base, other);
      assert.equal(m.length, 1);
      assert.equal(m[0].aspect, 'stream');
    }
  });
});
