/**
 * plainDiffJson (src/trace/diffJson.ts) against what it stands for: JSON.stringify of the diff
 * when diffNeedsCopy is false, undefined exactly when it is true.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { FieldChange } from '../../../src/format/events';
import { plainDiffJson } from '../../../src/trace/diffJson';
import { diffNeedsCopy, type RedactionContext } from '../../../src/trace/redact';

const pods: RedactionContext = { resource: { group: '', resource: 'pods', kind: 'Pod' } };
const secrets: RedactionContext = { resource: { group: '', resource: 'secrets', kind: 'Secret' } };

/** What plainDiffJson must answer: undefined when redaction copies, else the JSON text (null allowed only for values it does not spell). */
function expect(diff: FieldChange[], ctx: RedactionContext): void {
  const got = plainDiffJson(diff, ctx);
  if (diffNeedsCopy(diff, ctx)) {
    assert.equal(got, undefined, `needs a copy: ${JSON.stringify(diff)}`);
    return;
  }
  const spelled = (v: unknown) => typeof v === 'string' || v === null || typeof v === 'boolean' || Number.isFinite(v);
  const spells = diff.every((c) => (['old', 'new'] as const).every((side) => !(side in c) || spelled(c[side])));
  if (got === null) assert.ok(!spells, `declined a diff it spells: ${JSON.stringify(diff)}`);
  else assert.equal(got, JSON.stringify(diff));
}

describe('plainDiffJson (an update diff spelled from its changes)', () => {
  it('spells the diffs of updates as JSON.stringify does', () => {
    const cases: FieldChange[][] = [
      [],
      [{ path: 'metadata.resourceVersion', old: '10001', new: '20001' }],
      [
        { path: 'metadata.resourceVersion', old: '10001', new: '20001' },
        { path: 'status.conditions[0].lastProbeTime', old: '2026-01-01T00:00:01Z', new: '2026-01-01T02:46:41Z' },
        { path: 'status.conditions[0].lastTransitionTime', old: null, new: '2026-01-01T02:46:41Z' },
      ],
      [{ path: 'metadata.labels.app' }, { path: 'spec.replicas', old: 3 }, { path: 'spec.paused', new: true }, { path: 'x', old: false, new: -0 }],
      [{ path: 'data["a.b"]', old: 'x', new: 'y' }, { path: 'metadata.annotations["kubernetes.io/x"]', old: 'a "quoted" word', new: 'back\\slash' }],
      [{ path: 'spec.x', old: 'line\nbreak', new: 'tab\there' }, { path: 'spec.y', old: 'ctl\u0001', new: 'del\u007f' }],
      [{ path: 'spec.u', old: 'naïve – ünïcödé 日本', new: '😀 emoji' }, { path: 'spec.v', old: 'lone \ud800 high', new: 'lone \udc00 low' }],
      [{ path: 'spec.n', old: 1.5, new: 1e21 }, { path: 'spec.m', old: 2 ** 53, new: -1e-7 }],
      [{ path: 'spec.long', old: 'a'.repeat(40), new: 'a'.repeat(40) + 'J' }, { path: 'spec.colon', old: 'host:8080', new: 'name: x' }],
    ];
    for (const diff of cases) expect(diff, pods);
  });

  it('declines exactly where redaction would copy', () => {
    const cases: FieldChange[][] = [
      [{ path: 'spec.token', old: 'a', new: 'b' }],
      [{ path: 'spec.env[0].value', old: 'Bearer abcdefghijklmnop', new: 'x' }],
      [{ path: 'spec.x', old: 'x', new: 'password=hunter2' }],
      [{ path: 'spec.x', old: { nested: 1 }, new: 'x' }],
      [{ path: 'spec.x', new: ['a'] } as unknown as FieldChange],
      [{ old: 'a', path: 'spec.x' } as unknown as FieldChange],
      [{ path: 'spec.x', new: 'a', old: 'b' } as unknown as FieldChange],
      [{ path: 'spec.x', old: 'a', extra: 1 } as unknown as FieldChange],
      [{ path: 7, old: 'a' } as unknown as FieldChange],
      [{} as FieldChange],
      [null as unknown as FieldChange],
    ];
    for (const diff of cases) {
      assert.equal(plainDiffJson(diff, pods), undefined, JSON.stringify(diff));
      expect(diff, pods);
    }
    assert.equal(plainDiffJson([{ path: 'data.a', old: 'x', new: 'y' }], secrets), undefined);
    assert.equal(plainDiffJson([], secrets), '[]');
  });

  it('one diff after another: a long one, a declined one, one left to the caller, a short one (its pieces are reused)', () => {
    const long: FieldChange[] = Array.from({ length: 20 }, (_, i) => ({ path: `spec.a${i}`, old: `o${i}`, new: `n${i}` }));
    const sequence: FieldChange[][] = [
      long,
      [{ path: 'spec.x', old: 'x', new: 'y' }],
      [...long.slice(0, 5), { path: 'spec.token', old: 'a', new: 'b' }],
      [{ path: 'spec.y', old: 1, new: 2 }],
      [...long.slice(0, 7), { path: 'spec.z', old: 'a', new: undefined } as unknown as FieldChange],
      [{ path: 'spec.w', new: true }],
      long.slice(0, 3),
    ];
    for (let round = 0; round < 2; round++) for (const diff of sequence) expect(diff, pods);
  });

  it('leaves values it does not spell to the caller', () => {
    for (const v of [undefined, NaN, Infinity, () => 1]) {
      const diff = [{ path: 'spec.a', old: 'x', new: v }] as FieldChange[];
      assert.equal(plainDiffJson(diff, pods), null);
      expect(diff, pods);
    }
  });

  it('agrees with diffNeedsCopy and JSON.stringify on generated diffs', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('10001', '2026-01-01T00:00:01Z', 'Bearer abcdefgh12345', 'token: x', 'eyJhbGciOi.eyJzdWIi.sig', 'a"b', 'c\\d', '\ud800', 'naïve', 'a'.repeat(20)),
    );
    const value = fc.oneof(text, fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
    const path = fc.constantFrom('metadata.resourceVersion', 'status.phase', 'data["a.b"]', 'spec.password', 'metadata.annotations["x/y"]', 'spec.containers[0].env[1].value');
    const change = fc.record({ path, old: value, new: value }, { requiredKeys: ['path'] }) as fc.Arbitrary<FieldChange>;
    fc.assert(
      fc.property(fc.array(change, { maxLength: 5 }), fc.boolean(), (diff, secret) => expect(diff, secret ? secrets : pods)),
      { numRuns: 3000 },
    );
  });
});
