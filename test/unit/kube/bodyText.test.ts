import { strict as assert } from 'node:assert';
import { utf8Collector } from '../../../src/kube/http';
import { seededRand } from '../../../src/sources/seededRand';

/** Random bytes: mostly ASCII, with whole and cut multi-byte characters, BOMs and invalid bytes. */
function randomBytes(rand: () => number, n: number): Buffer {
  const pieces = ['a', '{"k":"v"}', 'é', '€', '😀', '\uFEFF', '\u2028'].map((s) => Buffer.from(s));
  const out: number[] = [];
  while (out.length < n) {
    const r = rand();
    if (r < 0.6) out.push(0x20 + Math.floor(rand() * 0x5f));
    else if (r < 0.9) out.push(...pieces[Math.floor(rand() * pieces.length)]);
    else out.push(0x80 + Math.floor(rand() * 0x80));
  }
  return Buffer.from(out);
}

describe('kube: a LIST body read as text, chunk by chunk', () => {
  it('gives the text a decode of the whole body gives, however the bytes are split (2 000 random bodies)', () => {
    const rand = seededRand(12);
    for (let n = 0; n < 2000; n++) {
      const body = randomBytes(rand, Math.floor(rand() * 200));
      const c = utf8Collector();
      for (let i = 0; i < body.length; ) {
        const len = 1 + Math.floor(rand() * 7);
        c.add(body.subarray(i, i + len));
        i += len;
      }
      assert.equal(c.done(), body.toString('utf8'), `body ${body.toString('hex')}`);
    }
  });

  it('a body that ends inside a character ends with U+FFFD, as the whole decode does', () => {
    const c = utf8Collector();
    const euro = Buffer.from('x€');
    c.add(euro.subarray(0, 2));
    assert.equal(c.done(), euro.subarray(0, 2).toString('utf8'));
  });
});
