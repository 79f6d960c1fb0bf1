/**
 * The StreamWatcher reads an ordinary stream line by line from the bytes (lazyWatchLine) and
 * hands anything else to the UTF-8 decoder and the framer. Both ways must give exactly what the
 * decoder and framer give alone: the same events, the same decode error, the same end, whatever
 * the bytes and wherever the chunks are cut.
 */
import { strict as assert } from 'node:assert';
import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import type { WatchEvent } from '../../../src/engine/listWatch';
import { decodeErrorEvent, decodeFrame, JsonFramer, lazyWatchEvent, StreamWatcher } from '../../../src/kube/watchStream';
import { check } from '../robustness/support';
import { chunked, drain, responseOf, watchEvent } from '../robustness/watchStreamSupport';

/** The text way alone: every chunk through the decoder and the framer (the reference). */
function reference(chunks: Uint8Array[]): { events: unknown[]; end: string } {
  const framer = new JsonFramer(lazyWatchEvent);
  const text = new StringDecoder('utf8');
  const events: WatchEvent[] = [];
  for (const c of chunks) {
    const parsed: (WatchEvent | undefined)[] = [];
    const frames = framer.push(text.write(Buffer.from(c)), parsed);
    let failure: string | undefined;
    for (let k = 0; k < frames.length; k++) {
      try {
        events.push(parsed[k] ?? decodeFrame(frames[k]));
      } catch (e) {
        failure = (e as Error).message;
        break;
      }
    }
    failure ??= framer.error;
    if (failure !== undefined) {
      events.push(decodeErrorEvent(failure));
      return { events: plain(events), end: 'eof' };
    }
  }
  return { events: plain(events), end: framer.partial ? 'unexpected-eof' : 'eof' };
}

function plain(events: WatchEvent[]): unknown[] {
  return JSON.parse(JSON.stringify(events)) as unknown[];
}

async function streamed(chunks: Uint8Array[]): Promise<{ events: unknown[]; end: string | undefined }> {
  const d = await drain(new StreamWatcher(responseOf(chunks).res));
  return { events: plain(d.events), end: d.end };
}

/** Lines as the apiserver writes them, and lines that leave the line way: pretty-printed, junk, cut, non-ASCII. */
const piece = fc.oneof(
  { weight: 6, arbitrary: watchEvent.map((e) => JSON.stringify(e) + '\n') },
  watchEvent.map((e) => JSON.stringify(e, null, 1) + '\n'),
  watchEvent.map((e) => ` \t${JSON.stringify(e)}\r\n\n`),
  watchEvent.map((e) => JSON.stringify(e)),
  fc.constantFrom('{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"é😀\u2028"}}}\n', '{"type":"ADDED","object":{"kind":""}}\n', '{"type":"NOPE","object":{"kind":"Pod"}}\n'),
  fc.constantFrom('{"type":"ADDED","object":{"kind":"Pod"}} {"type":"DELETED","object":{"kind":"Pod"}}\n', '{"type":"ADDED","obj', '[]\n', 'x\n', '{"a":1}}\n', '}\n', '{"type":"ADDED","object":{"kind":"Pod","x":"\u0001"}}\n'),
);

describe('kube/watch: lines read from the bytes, the rest through the decoder and framer', () => {
  it('the same events, decode error and end as the decoder and framer alone, for any bytes in any chunks', async () => {
    const bytes = fc.oneof(
      { weight: 4, arbitrary: fc.array(piece, { maxLength: 10 }).map((p) => Buffer.from(p.join(''), 'utf8')) },
      fc.tuple(fc.array(piece, { maxLength: 6 }), fc.uint8Array({ maxLength: 16 })).map(([p, g]) => Buffer.concat([Buffer.from(p.join(''), 'utf8'), g])),
    );
    await check(
      fc.asyncProperty(bytes, fc.array(fc.nat(), { maxLength: 30 }), async (b, cuts) => {
        const chunks = chunked(b, cuts);
        assert.deepEqual(await streamed(chunks), reference(chunks));
      }),
      { numRuns: 400, timeMs: 8000 },
    );
  });

  it('a frame still open at the end of a chunk takes the next bytes up to a line end that closes it, even ones that read as events', async () => {
    const event = '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}}';
    const chunks = [Buffer.from('{"type":"ADDED","object":{"kind":"List","items":['), Buffer.from(`${event}\n]}}\n${event}\n`)];
    const got = await streamed(chunks);
    assert.deepEqual(got, reference(chunks));
    assert.deepEqual(
      got.events.map((e) => (e as WatchEvent).object.kind),
      ['List', 'Pod'],
    );
  });

  it('a multi-byte character cut between chunks right after a line end (the line way resumes after the next one)', async () => {
    const line = '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"é"}}}\n';
    const b = Buffer.from(line + line + line, 'utf8');
    for (let cut = 0; cut <= b.length; cut++) {
      const chunks = [b.subarray(0, cut), b.subarray(cut)];
      const got = await streamed(chunks);
      assert.equal(got.events.length, 3, `cut at ${cut}`);
      assert.deepEqual(got, reference(chunks));
    }
  });
});
