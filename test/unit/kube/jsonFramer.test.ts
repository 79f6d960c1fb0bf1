/**
 * The watch framer's two ways of cutting frames (src/kube/watchStream.ts): the line fast path
 * (indexOf + JSON.parse, used by StreamWatcher) must give the same frames, values and errors as
 * the character scanner alone, whatever the text and however it is split into chunks.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { JsonFramer, MAX_NESTING_DEPTH } from '../../../src/kube/watchStream';
import { check, jsonValue } from '../robustness/support';

interface Framed {
  values: unknown[];
  error: string | undefined;
  partial: boolean;
  /** How many frames the fast path parsed itself. */
  fast: number;
}

function frame(chunks: readonly string[], fastPath: boolean): Framed {
  const f = new JsonFramer();
  const values: unknown[] = [];
  let fast = 0;
  for (const c of chunks) {
    const parsed: unknown[] = [];
    const frames = fastPath ? f.push(c, parsed) : f.push(c);
    if (fastPath) assert.equal(parsed.length, frames.length);
    frames.forEach((text, i) => {
      if (parsed[i] !== undefined) fast++;
      let v: unknown;
      try {
        v = parsed[i] ?? JSON.parse(text);
      } catch (e) {
        v = `unparsable: ${(e as Error).message}`;
      }
      values.push(v);
    });
  }
  return { values, error: f.error, partial: f.partial, fast };
}

function split(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const c of at) {
    out.push(text.slice(from, c));
    from = c;
  }
  out.push(text.slice(from));
  return out;
}

/** Pieces of watch-stream text: well-formed lines, two objects on a line, pretty-printed, broken, stray. */
const piece = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 6 }), jsonValue, { maxKeys: 3 }).map((o) => `${JSON.stringify(o)}\n`),
  fc.dictionary(fc.string({ maxLength: 6 }), jsonValue, { maxKeys: 3 }).map((o) => `${JSON.stringify(o, null, 1)}\r\n`),
  fc.tuple(jsonValue, jsonValue).map(([a, b]) => `{"a":${JSON.stringify(a)}}{"b":${JSON.stringify(b)}}\n`),
  fc.constantFrom('{"a":}\n', '{"a":1}}\n', '{"a":"}\\"{"}\n', '  \n', '{"x":[1,{"y":2}]}  \n', 'x\n', '[1]\n', '{"a":1', '"s"\n', '{"a":"\\u00e9"}\n'),
);

describe('JsonFramer: the line fast path frames exactly like the scanner', () => {
  it('same values, errors and partial state for any text and any chunking', async () => {
    await check(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 }), (pieces, cuts) => {
        const chunks = split(pieces.join(''), cuts);
        const fast = frame(chunks, true);
        const slow = frame(chunks, false);
        assert.deepEqual({ ...fast, fast: 0 }, { ...slow, fast: 0 });
      }),
    );
  });

  it('well-formed one-object lines are parsed by the fast path, broken ones by the scanner', () => {
    const r = frame(['{"a":1}\n{"b":[2]}\r\n{"c":}\n{"d":1}{"e":2}\n'], true);
    assert.deepEqual(r.values.slice(0, 2), [{ a: 1 }, { b: [2] }]);
    assert.match(String(r.values[2]), /^unparsable/);
    assert.deepEqual(r.values.slice(3), [{ d: 1 }, { e: 2 }]);
    // a, b and (after the scanner cut {"d":1}) e.
    assert.equal(r.fast, 3);
  });

  it('a line nested deeper than MAX_NESTING_DEPTH fails as the scanner does, though JSON.parse would read it', () => {
    const deep = `{"a":${'['.repeat(MAX_NESTING_DEPTH)}1${']'.repeat(MAX_NESTING_DEPTH)}}\n`;
    const r = frame([deep], true);
    assert.deepEqual(r.values, []);
    assert.equal(r.error, "invalid character '[' exceeded max depth");
    const ok = `{"a":${'['.repeat(MAX_NESTING_DEPTH - 1)}1${']'.repeat(MAX_NESTING_DEPTH - 1)}}\n`;
    assert.equal(frame([ok], true).values.length, 1);
    assert.equal(frame([ok], true).fast, 1, 'exactly MAX_NESTING_DEPTH brackets: still the fast path');
  });
});
