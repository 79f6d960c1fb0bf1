/**
 * The HTTP watch decoder (src/kube/watchStream.ts) under arbitrary chunking and arbitrary bytes.
 * Whatever arrives, it must end the way client-go's StreamWatcher would: the events decoded so
 * far, then either a clean end of the result channel or exactly one synthetic ERROR (500
 * InternalError, cause ClientWatchDecoding) followed by the close — and next() never throws.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Status, WatchEvent } from '../../../src/engine/listWatch';
import { StreamWatcher } from '../../../src/kube/watchStream';
import { check, jsonValue } from './support';
import { assertEndsLikeStreamWatcher, chunked, drain, isDecodeError, responseOf, streamText, watchEvent, type Drained } from './watchStreamSupport';

const cuts = fc.array(fc.nat(), { maxLength: 40 });

function roundTrip(events: WatchEvent[]): WatchEvent[] {
  return JSON.parse(JSON.stringify(events)) as WatchEvent[];
}

async function decode(chunks: Uint8Array[]): Promise<Drained> {
  return drain(new StreamWatcher(responseOf(chunks).res));
}

function text(s: string): Uint8Array[] {
  return [Buffer.from(s, 'utf8')];
}

describe('robustness: watch stream decoder (properties)', () => {
  it('any chunking of a valid stream gives the same events and a clean end', async () => {
    await check(
      fc.asyncProperty(streamText, cuts, async ({ events, text: t }, c) => {
        const d = await decode(chunked(Buffer.from(t, 'utf8'), c));
        assert.deepEqual(d.events, roundTrip(events));
        assert.equal(d.end, 'eof');
      }),
    );
  });

  it('a valid prefix followed by arbitrary bytes: the prefix events, then an orderly end', async () => {
    const garbage = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.string({ minLength: 1, maxLength: 64 }).map((s) => Buffer.from(s)));
    await check(
      fc.asyncProperty(streamText, garbage, cuts, async ({ events, text: t }, g, c) => {
        const bytes = Buffer.concat([Buffer.from(t, 'utf8'), g]);
        const d = await decode(chunked(bytes, c));
        assert.deepEqual(d.events.slice(0, events.length), roundTrip(events));
        assertEndsLikeStreamWatcher(d);
      }),
    );
  });

  it('mutated valid streams (bytes flipped, dropped or duplicated) still end in order', async () => {
    const mutation = fc.array(fc.tuple(fc.nat(), fc.constantFrom('flip', 'drop', 'dup'), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 });
    await check(
      fc.asyncProperty(streamText, mutation, cuts, async ({ text: t }, muts, c) => {
        const bytes = [...Buffer.from(t, 'utf8')];
        for (const [pos, op, v] of muts) {
          if (bytes.length === 0) break;
          const i = pos % bytes.length;
          if (op === 'flip') bytes[i] = v;
          else if (op === 'drop') bytes.splice(i, 1);
          else bytes.splice(i, 0, bytes[i]);
        }
        assertEndsLikeStreamWatcher(await decode(chunked(Uint8Array.from(bytes), c)));
      }),
    );
  });

  it('a stream cut anywhere inside an event ends with unexpected EOF, never an ERROR', async () => {
    await check(
      fc.asyncProperty(streamText, watchEvent, fc.nat(), cuts, async ({ events, text: t }, last, cut, c) => {
        const frame = JSON.stringify(last);
        const partial = frame.slice(0, 1 + (cut % (frame.length - 1)));
        const d = await decode(chunked(Buffer.from(t + partial, 'utf8'), c));
        assert.deepEqual(d.events, roundTrip(events));
        assert.equal(d.end, 'unexpected-eof');
      }),
    );
  });

  it('arbitrary JSON values as frames: events only for well-formed ones, otherwise one decode ERROR', async () => {
    await check(
      fc.asyncProperty(fc.array(jsonValue, { minLength: 1, maxLength: 5 }), async (values) => {
        const d = await decode(text(values.map((v) => JSON.stringify(v) ?? 'null').join('\n')));
        assertEndsLikeStreamWatcher(d);
        for (const e of d.events.filter((x) => !isDecodeError(x))) {
          assert.ok(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'].includes(e.type));
          assert.equal(typeof e.object.kind, 'string');
        }
      }),
    );
  });
});

describe('robustness: watch stream decoder (named bad inputs)', () => {
  const ok = JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', resourceVersion: '1' } } });

  const decodeErrorCases: [string, string][] = [
    ['garbage after an event', `${ok}\nxyz`],
    ['a top-level array', `${ok}\n[1,2]`],
    ['a top-level string', '"hello"'],
    ['a top-level number', '42'],
    ['null', 'null'],
    ['an unknown event type', JSON.stringify({ type: 'EXPLODED', object: { kind: 'ConfigMap' } })],
    ['a non-string event type', JSON.stringify({ type: 7, object: { kind: 'ConfigMap' } })],
    ['an event without an object', JSON.stringify({ type: 'ADDED' })],
    ['an object without kind', JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })],
    ['an object that is an array', JSON.stringify({ type: 'ADDED', object: [] })],
    ['a byte-order mark before the first event', `\uFEFF${ok}`],
    ['a raw control character inside a string', '{"type":"ADDED","object":{"kind":"A\u0001"}}'.replace('\u0001', '\n')],
  ];
  for (const [name, input] of decodeErrorCases) {
    it(`${name}: one decode ERROR, then the end`, async () => {
      const d = await decode(text(input));
      assertEndsLikeStreamWatcher(d);
      assert.ok(d.events.length > 0 && isDecodeError(d.events[d.events.length - 1]), JSON.stringify(d.events));
    });
  }

  it('an object without metadata is handed on as it is (the unstructured decoder needs only kind)', async () => {
    const d = await decode(text(JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1' } })));
    assert.deepEqual(d.events, [{ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1' } }]);
    assert.equal(d.end, 'eof');
  });

  it('an ERROR Status with a null cause decodes (Go decodes null into a zero StatusCause)', async () => {
    const d = await decode(text(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, details: { causes: [null] } } })));
    assert.equal(d.events.length, 1);
    assert.equal(isDecodeError(d.events[0]), false, JSON.stringify(d.events[0]));
    assert.equal((d.events[0].object as Status).code, 410);
  });

  it('CRLF line ends and blank lines between events are fine', async () => {
    const d = await decode(text(`\r\n${ok}\r\n\r\n${ok}\r\n`));
    assert.equal(d.events.length, 2);
    assert.equal(d.end, 'eof');
  });

  it('an empty body is a clean end', async () => {
    assert.deepEqual(await decode([]), { events: [], end: 'eof' });
  });

  it('a huge event (8 MiB string) arriving in 64 KiB chunks decodes', async () => {
    const big = JSON.stringify({ type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'big' }, data: { x: 'y'.repeat(8 << 20) } } });
    const d = await decode(chunked(Buffer.from(big), Array.from({ length: 128 }, (_, i) => (i + 1) * 65536)));
    assert.equal(d.events.length, 1);
    assert.equal((d.events[0].object.data as { x: string }).x.length, 8 << 20);
  });

  it('a frame longer than client-go\'s 16 MiB limit is "object too large": one decode ERROR, and the buffer is dropped', async () => {
    // An endless unterminated string: without a limit the framer would buffer it until memory runs out.
    const head = Buffer.from('{"type":"ADDED","object":{"kind":"ConfigMap","data":"');
    const block = Buffer.alloc(1 << 20, 0x61);
    const { res, closed } = responseOf([head, ...Array.from({ length: 20 }, () => block)]);
    const d = await drain(new StreamWatcher(res));
    assertEndsLikeStreamWatcher(d);
    assert.equal(d.events.length, 1);
    assert.match((d.events[0].object as Status).message ?? '', /object to decode was longer than maximum allowed size/);
    assert.equal(closed(), true);
  });

  it('stop() in the middle of a stream ends it (stopped) and later next() calls return null', async () => {
    const { res } = responseOf([Buffer.from(`${ok}\n${ok}\n`)]);
    const w = new StreamWatcher(res);
    const first = await w.next();
    assert.equal(first?.type, 'ADDED');
    w.stop();
    w.stop();
    assert.equal(await w.next(), null);
    assert.equal(w.end?.kind, 'stopped');
  });
});
