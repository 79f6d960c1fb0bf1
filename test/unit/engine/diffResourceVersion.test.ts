/**
 * The update comparison's metadata settled from the scanner's record of the resourceVersion's
 * span (src/engine/diff.ts resourceVersionOnly, src/kube/jsonScan.ts rvStart/rvEnd): two lazy
 * objects compare exactly as their parsed objects do, wherever the resourceVersion is, however
 * it is spelled, repeated or not, and whatever else in metadata differs.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { compareUpdate } from '../../../src/engine/diff';
import { lazyObject } from '../../../src/engine/lazyObject';
import { scanObject } from '../../../src/kube/jsonScan';
import { check } from '../robustness/support';

function lazy(text: string) {
  const s = scanObject(text, 0);
  assert.ok(s, `scanned ${text}`);
  return lazyObject(text, s.fields);
}

function same(ta: string, tb: string): void {
  assert.deepEqual(compareUpdate(lazy(ta), lazy(tb)), compareUpdate(JSON.parse(ta), JSON.parse(tb)), `${ta} / ${tb}`);
}

const pod = (metadata: string, status = '{"phase":"Running"}') => `{"kind":"Pod","apiVersion":"v1","metadata":${metadata},"spec":{"x":1},"status":${status}}`;

describe('engine: metadata.resourceVersion from the scanned span', () => {
  it('finds the one change of the resourceVersion wherever it is in metadata', () => {
    same(pod('{"name":"p","resourceVersion":"1"}'), pod('{"name":"p","resourceVersion":"2"}'));
    same(pod('{"resourceVersion":"1","name":"p"}'), pod('{"resourceVersion":"22","name":"p"}')); // first member, other length
    same(pod('{"resourceVersion":"9"}'), pod('{"resourceVersion":"10"}')); // the only member
    same(pod('{"name":"p","resourceVersion":"1"}'), pod('{"name":"p","resourceVersion":"1"}', '{"phase":"Pending"}')); // same RV
    same(pod('{"name":"p", "resourceVersion" : "1" }'), pod('{"name":"p", "resourceVersion" : "2" }')); // spaces
    same(pod('{"name":"p","resourceVersion":"1"}'), pod('{"name":"p","resourceVersion":"1","uid":"u"}')); // only a member added
    same(pod('{"name":"p","resourceVersion":"1"}'), pod('{"name":"q","resourceVersion":"2"}')); // the first character of the text before it
    same(pod('{"name":"p","resourceVersion":"1","uid":"a"}'), pod('{"name":"p","resourceVersion":"2","uid":"b"}')); // the last before the end
  });

  it('reads the value JSON.parse keeps: escapes, unicode, a repeated key, another spelling of the key', () => {
    same(pod('{"resourceVersion":"1\\u0030"}'), pod('{"resourceVersion":"10"}')); // the same string spelled two ways: no change
    same(pod('{"resourceVersion":"\\"1\\\\"}'), pod('{"resourceVersion":"\\"2\\\\"}'));
    same(pod('{"resourceVersion":"ünï 日本 😀"}'), pod('{"resourceVersion":"ünï 日本 😁"}'));
    same(pod('{"resourceVersion":"1","resourceVersion":"5"}'), pod('{"resourceVersion":"2","resourceVersion":"5"}')); // the first is replaced: no change
    same(pod('{"resourceVersion":"5","resourceVersion":"1"}'), pod('{"resourceVersion":"5","resourceVersion":"2"}'));
    same(pod('{"resource\\u0056ersion":"1","name":"p"}'), pod('{"resource\\u0056ersion":"2","name":"p"}'));
    same(pod('{"resource\\u0056ersion":"1","resourceVersion":"3"}'), pod('{"resource\\u0056ersion":"2","resourceVersion":"3"}'));
    same(pod('{"name":"p","resourceVersion":"1","x":{"resourceVersion":"1"}}'), pod('{"name":"p","resourceVersion":"1","x":{"resourceVersion":"2"}}'));
  });

  it('compares the rest of metadata when more than the resourceVersion differs, or one side has none', () => {
    same(pod('{"name":"p","resourceVersion":"1","labels":{"a":"1"}}'), pod('{"name":"p","resourceVersion":"2","labels":{"a":"2"}}'));
    same(pod('{"name":"p","resourceVersion":"1","managedFields":[{"m":1}]}'), pod('{"name":"p","resourceVersion":"2","managedFields":[{"m":2}]}'));
    same(pod('{"name":"p"}'), pod('{"name":"p","resourceVersion":"2"}'));
    same(pod('{"name":"p","resourceVersion":"1"}'), pod('{"name":"p"}'));
    same(pod('{"name":"p","resourceVersion":"1"}'), pod('{"name":"pp","resourceVersion":"2"}')); // other lengths before it
    same(pod('{"name":"p","resourceVersion":"1","uid":"a"}'), pod('{"name":"p","resourceVersion":"2","uid":"bb"}')); // and after it
    same(pod('{"resourceVersion":"1","name":"p"}'), pod('{"name":"p","resourceVersion":"1"}')); // reordered
  });

  it('compares a LIST item (apiVersion and kind filled in) with its next version alike', () => {
    const item = (metadata: string) => `{"metadata":${metadata},"spec":{"x":1},"status":{"phase":"Running"}}`;
    const listed = (text: string) => {
      const s = scanObject(text, 0);
      assert.ok(s);
      return lazyObject(text, s.fields, { apiVersion: 'v1', kind: 'Pod' });
    };
    const cases: [string, string][] = [
      ['{"name":"p","resourceVersion":"1"}', '{"name":"p","resourceVersion":"2"}'],
      ['{"name":"p","resourceVersion":"1","uid":"a"}', '{"name":"p","resourceVersion":"2","uid":"b"}'],
      ['{"resourceVersion":"1","resourceVersion":"5"}', '{"resourceVersion":"2","resourceVersion":"5"}'],
    ];
    for (const [ma, mb] of cases) {
      const parsedOld = { apiVersion: 'v1', kind: 'Pod', ...JSON.parse(item(ma)) };
      assert.deepEqual(compareUpdate(listed(item(ma)), lazy(pod(mb))), compareUpdate(parsedOld, JSON.parse(pod(mb))), `${ma} / ${mb}`);
      assert.deepEqual(compareUpdate(listed(item(ma)), listed(item(mb))), compareUpdate(parsedOld, { apiVersion: 'v1', kind: 'Pod', ...JSON.parse(item(mb)) }), `${ma} / ${mb}`);
    }
  });

  it('two objects of one text are identical even when their states were given other resourceVersions (sameText only answers "not the same" from them)', () => {
    const text = pod('{"name":"p","resourceVersion":"1"}');
    const fields = (rv: string) => ({ ...scanObject(text, 0)!.fields, resourceVersion: rv, memberKeys: undefined, memberSpans: undefined, members: undefined });
    const a = lazyObject(text, fields('1'));
    const b = lazyObject(text, fields('2'));
    assert.deepEqual(compareUpdate(a, b), { change: 'identical', diff: [], total: 0 });
  });

  it('equals the parsed comparison for generated metadata pairs', async () => {
    const key = fc.constantFrom('"resourceVersion"', '"resource\\u0056ersion"', '"name"', '"uid"', '"labels"', '"x"');
    const value = fc.constantFrom('"1"', '"2"', '"10"', '"1\\u0030"', '"a\\"b"', '"ü"', '{"resourceVersion":"1"}', '{"a":"2"}', '[1]', '"' + '7'.repeat(20) + '"');
    const space = fc.constantFrom('', '', '', ' ');
    const members = fc.array(fc.tuple(key, value, value, fc.boolean(), space), { maxLength: 5 });
    await check(
      fc.property(members, (ms) => {
        // Each member's value the same on both sides unless its flag says otherwise.
        const side = (s: 0 | 1) => `{${ms.map(([k, va, vb, differ, w]) => `${w}${k}:${s === 0 || !differ ? va : vb}`).join(',')}}`;
        const [ta, tb] = [pod(side(0)), pod(side(1))];
        if (!scanObject(ta, 0) || !scanObject(tb, 0)) return;
        same(ta, tb);
      }),
      { numRuns: 3000, timeMs: 6000 },
    );
  });
});
