import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { applyTextRules, REDACTED, redactEvent, redactText } from '../../../src/trace/redact';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const SECRETS = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };

/** Pieces that make every rule match somewhere, mixed with the characters of names and versions. */
const PIECES = [
  'eyJ', 'eyJhbGciOiJ', 'abcd', 'x', 'J', '.', '/', '-', '_', '0', '42', 'ns', 'token', 'password', 'secret', 'SECRET', 'bearer', 'Bearer',
  'basic', 'Basic', 'authorization', 'key', 'cert', '=', ':', ' ', '"', "'", '\n', '@', 'https://', 'u:p@', '-----BEGIN X-----', '-----END X-----',
  'YWxpY2U6cHcxMjM=', 'Ä', '\u00e9', 'T', 'Z', 'TOKEN', 'tz', '2026-11-24T05:00:01Z', '00:01',
];

function randomText(next: () => number): string {
  let s = '';
  const n = 1 + Math.floor(next() * 8);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)];
  return s;
}

function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe('redaction pre-checks are exact', () => {
  it('redactText gives what every rule applied gives, for 50 000 strings built from the rules\' own words', () => {
    const next = lcg(12);
    let changed = 0;
    for (let i = 0; i < 50_000; i++) {
      const s = randomText(next);
      const want = applyTextRules(s);
      if (want !== s) changed++;
      assert.equal(redactText(s), want, `redactText(${JSON.stringify(s)})`);
    }
    assert.ok(changed > 1000, `the strings exercise the rules (${changed} changed)`);
    // The fast path's edges: a timestamp passes, a word before a colon does not.
    for (const s of ['2026-11-24T05:00:01Z', 'T:Z', '0:token', '0:eyJabcd.efgh.ij', 'TOKEN:abc', 'Token:TZ', 'SECRET:x', 'authorization:x', 'passwd:1']) {
      assert.equal(redactText(s), applyTextRules(s), `redactText(${JSON.stringify(s)})`);
    }
  });

  it('a bare token in a name-like string (letters, digits, dots, dashes) is still redacted', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const e: TraceEvent = { t: 0, type: 'fifo.pop', key: `ns/${jwt}`, deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 };
    const out = redactEvent(e, { resource: CONFIGMAPS });
    assert.notEqual(out, e);
    assert.equal(out.type === 'fifo.pop' && out.key, `ns/${REDACTED}`);
  });
});

describe('an update diff is copied only when it must be', () => {
  const update = (diff: unknown[]): TraceEvent =>
    ({ t: 1, type: 'distribute', op: 'update', key: 'ns/a', isSync: false, delivered: 2, skipped: 0, change: 'status', diff }) as TraceEvent;

  it('leaves a diff of plain leaf values as it is', () => {
    const e = update([
      { path: 'metadata.resourceVersion', old: '10', new: '11' },
      { path: 'status.conditions[0].lastProbeTime', old: '2026-11-24T05:00:00Z', new: '2026-11-24T05:00:01Z' },
      { path: 'status.replicas', old: 1, new: null },
      { path: 'status.ready', new: true },
    ]);
    assert.equal(redactEvent(e, { resource: CONFIGMAPS }), e);
  });

  it('copies (and scrubs) a change with an object value, a credential path or text, another shape, or any change of a Secret', () => {
    const cases: [unknown, unknown][] = [
      [{ path: 'metadata.labels', old: { a: '1' }, new: { a: '2' } }, { path: 'metadata.labels', old: { a: '1' }, new: { a: '2' } }],
      [{ path: 'data.password', old: 'x', new: 'y' }, { path: 'data.password', old: REDACTED, new: REDACTED }],
      [{ path: 'data.note', new: 'token=abc' }, { path: 'data.note', new: `token=${REDACTED}` }],
      [{ old: 'a', path: 'spec.x', new: 'b' }, { path: 'spec.x', old: 'a', new: 'b' }],
      [{ path: 'spec.x', new: 'b', extra: 'c' }, { path: 'spec.x', new: 'b' }],
      [{ path: 7, new: 'b' }, { path: 7, new: 'b' }],
    ];
    for (const [change, want] of cases) {
      const e = update([{ path: 'metadata.resourceVersion', old: '1', new: '2' }, change]);
      const out = redactEvent(e, { resource: CONFIGMAPS });
      assert.notEqual(out, e, JSON.stringify(change));
      assert.deepEqual(out.type === 'distribute' && out.diff?.[1], want);
    }
    const plain = update([{ path: 'data.color', old: 'cmVk', new: 'Ymx1ZQ==' }]);
    const out = redactEvent(plain, { resource: SECRETS });
    assert.notEqual(out, plain);
    assert.deepEqual(out.type === 'distribute' && out.diff, [{ path: 'data.color', old: REDACTED, new: REDACTED }]);
  });
});
