/**
 * The HTTP watch decoder (src/kube/watchStream.ts) under arbitrary chunking and arbitrary bytes.
 * Whatever arrives, it must end the way client-go's StreamWatcher would: the events decoded so
 * far, then either a clean end of the result channel or exactly one synthetic ERROR (500
 * InternalError, cause ClientWatchDecoding) followed by the close — and next() never throws.
 */
import { strict as assert } from 'node:assert';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import type { Status, WatchEvent, Watcher } from '../../../src/engine/listWatch';
import type { GetResponse } from '../../../src/kube/http';
import { StreamWatcher } from '../../../src/kube/watchStream';
import { awkwardString, check, jsonValue } from './support';

/** A response whose body replays the given chunks, as the HTTP layer would hand them over. */
export function responseOf(chunks: readonly Uint8Array[]): { res: GetResponse; closed: () => boolean } {
  let closed = false;
  const body = new Readable({ read() {} });
  for (const c of chunks) body.push(Buffer.from(c));
  body.push(null);
  const res: GetResponse = {
    status: 200,
    headers: {},
    body,
    close: () => {
      closed = true;
      body.destroy();
    },
    failure: () => undefined,
  };
  return { res, closed: () => closed };
}

export interface Drained {
  events: WatchEvent[];
  end: string | undefined;
}

/** Reads a watcher to its end; fails (instead of hanging) if it never ends. */
export async function drain(w: Watcher, maxEvents = 100_000): Promise<Drained> {
  const events: WatchEvent[] = [];
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((r) => (timer = setTimeout(() => r('stuck'), 5000)));
    const e = await Promise.race([w.next(), stuck]);
    clearTimeout(timer);
    if (e === 'stuck') throw new Error(`watcher never ended after ${events.length} events`);
    if (e === null) break;
    events.push(e);
    if (events.length > maxEvents) throw new Error('watcher does not stop delivering');
  }
  // The channel stays closed.
  assert.equal(await w.next(), null);
  return { events, end: w.end?.kind };
}

export function isDecodeError(e: WatchEvent): boolean {
  const s = e.object as Status;
  return (
    e.type === 'ERROR' &&
    s.kind === 'Status' &&
    s.code === 500 &&
    s.reason === 'InternalError' &&
    (s.details?.causes ?? []).some((c) => c.type === 'ClientWatchDecoding') &&
    /^an error on the server \("unable to decode an event from the watch stream: .*"\) has prevented the request from succeeding$/s.test(s.message ?? '')
  );
}

/** The structural contract of a stream's ending, whatever its bytes. */
export function assertEndsLikeStreamWatcher(d: Drained): void {
  assert.ok(d.end === 'eof' || d.end === 'unexpected-eof', `end ${d.end}`);
  const decodeErrors = d.events.filter(isDecodeError);
  assert.ok(decodeErrors.length <= 1, `${decodeErrors.length} decode errors`);
  if (decodeErrors.length === 1) {
    assert.equal(d.events[d.events.length - 1], decodeErrors[0], 'nothing follows the decode error');
    assert.equal(d.end, 'eof', 'a decode error closes the stream like a clean end');
  }
}

const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'] as const;

/** A well-formed watch event: an object with kind and metadata, and arbitrary JSON content. */
export const watchEvent: fc.Arbitrary<WatchEvent> = fc.oneof(
  fc.record({
    type: fc.constantFrom(...EVENT_TYPES),
    object: fc.record({
      apiVersion: fc.constant('v1'),
      kind: fc.constantFrom('ConfigMap', 'Pod', 'Widget'),
      metadata: fc.record({ name: awkwardString, namespace: awkwardString, resourceVersion: fc.nat().map(String) }),
      data: jsonValue,
    }),
  }),
  // A server ERROR carrying a Status (no causes: statusFromWire leaves it as it is).
  fc.record({
    type: fc.constant('ERROR'),
    object: fc.record({ kind: fc.constant('Status'), apiVersion: fc.constant('v1'), status: fc.constant('Failure'), code: fc.constantFrom(410, 500, 504), message: awkwardString }),
  }),
);

const separator = fc.constantFrom('\n', '\r\n', '', ' ', '\t\n', '\n\n');

/** NDJSON (or whitespace-separated JSON) text of the events, as apiserver-like bytes. */
export const streamText = fc
  .array(fc.tuple(watchEvent, separator), { maxLength: 12 })
  .map((pairs) => ({ events: pairs.map(([e]) => e), text: pairs.map(([e, sep]) => JSON.stringify(e) + sep).join('') }));

/** Splits bytes at arbitrary positions (also inside multi-byte UTF-8 characters). */
export function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    if (c > prev) out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

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
