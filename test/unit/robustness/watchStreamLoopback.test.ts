/**
 * The watch decoder through the real transport: HttpListerWatcher against a node:http server on
 * 127.0.0.1 that writes generated streams chunk by chunk (chunked encoding, optionally gzip),
 * or breaks the connection in the middle of a frame; and list bodies of any JSON shape.
 */
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import type { HttpListerWatcher } from '../../../src/kube/listerWatcher';
import { StatusError, TransportError } from '../../../src/engine/listWatch';
import { type Loopback, loopbackListerWatcher, startLoopback } from '../kube/loopback';
import { check, isOneLine, jsonValue } from './support';
import { assertEndsLikeStreamWatcher, chunked, drain, isDecodeError, streamText } from './watchStreamSupport';

interface Script {
  chunks: Uint8Array[];
  gzip?: boolean;
  /** Destroy the socket after the chunks, once this resolves, instead of ending the response. */
  breakAfter?: Promise<void>;
}

function write(res: http.ServerResponse | zlib.Gzip, chunk: Uint8Array): Promise<void> {
  return new Promise((r) => res.write(chunk, () => setImmediate(r)));
}

describe('robustness: watch stream over loopback HTTP', () => {
  let loop: Loopback;
  let lw: HttpListerWatcher;
  let script: Script = { chunks: [] };
  const methods: string[] = [];

  before(async () => {
    loop = await startLoopback((req, res) => {
      methods.push(req.method ?? '');
      void (async () => {
        const s = script;
        res.writeHead(200, { 'content-type': 'application/json', ...(s.gzip ? { 'content-encoding': 'gzip' } : {}) });
        res.flushHeaders();
        const gz = s.gzip ? zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH }) : undefined;
        gz?.pipe(res);
        for (const c of s.chunks) {
          if (res.destroyed) return;
          await write(gz ?? res, c);
        }
        if (s.breakAfter) {
          await s.breakAfter;
          req.socket.destroy();
        }
        else if (gz) gz.end();
        else res.end();
      })();
    });
    lw = loopbackListerWatcher(loop.port);
  });

  after(() => loop.close());

  async function watch(s: Script) {
    script = s;
    const w = await lw.watch({ resourceVersion: '1' }, new AbortController().signal);
    return drain(w);
  }

  it('valid streams in arbitrary chunks (plain and gzip) arrive whole over the real transport', async () => {
    await check(
      fc.asyncProperty(streamText, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), async ({ events, text }, cuts, gzip) => {
        const d = await watch({ chunks: chunked(Buffer.from(text), cuts), gzip });
        assert.deepEqual(d.events, JSON.parse(JSON.stringify(events)));
        assert.equal(d.end, 'eof');
      }),
      { numRuns: 25 },
    );
  });

  it('garbage after valid events: the events, then one decode ERROR, and the connection is closed', async () => {
    await check(
      fc.asyncProperty(streamText, fc.constantFrom('x', ']', '\uFEFF{}', '{"type":"NOPE","object":{"kind":"A"}}', '"str"'), fc.boolean(), async ({ events, text }, garbage, gzip) => {
        const d = await watch({ chunks: [Buffer.from(text), Buffer.from(garbage)], gzip });
        assert.deepEqual(d.events.slice(0, -1), JSON.parse(JSON.stringify(events)));
        assert.ok(isDecodeError(d.events[d.events.length - 1]));
        assertEndsLikeStreamWatcher(d);
      }),
      { numRuns: 15 },
    );
  });

  it('a connection broken in the middle of a frame ends the watch quietly (unexpected EOF or reset), without an ERROR', async () => {
    await check(
      fc.asyncProperty(streamText, fc.boolean(), async ({ events, text }, gzip) => {
        // The break comes once the client holds the complete events. (A break in the same tick as
        // the bytes: test/unit/kube/watchBreak.test.ts.)
        let breakNow = () => {};
        script = { chunks: [Buffer.from(text), Buffer.from('{"type":"ADDED","obj')], gzip, breakAfter: new Promise<void>((r) => (breakNow = r)) };
        const w = await lw.watch({ resourceVersion: '1' }, new AbortController().signal);
        const first: unknown[] = [];
        for (let i = 0; i < events.length; i++) first.push(await w.next());
        breakNow();
        const d = await drain(w);
        assert.deepEqual([...first, ...d.events], JSON.parse(JSON.stringify(events)));
        assert.ok(d.end === 'unexpected-eof' || d.end === 'reset', `end ${d.end}`);
      }),
      { numRuns: 10 },
    );
  });

  it('list bodies of any JSON shape: a list with an items array, or a StatusError/TransportError of one line', async () => {
    const body = fc.oneof(
      jsonValue,
      fc.record({ kind: fc.oneof(jsonValue, fc.constant('ConfigMapList')), apiVersion: jsonValue, metadata: jsonValue, items: fc.oneof(jsonValue, fc.array(jsonValue, { maxLength: 3 })) }, { requiredKeys: [] }),
    );
    await check(
      fc.asyncProperty(body, async (b) => {
        script = { chunks: [Buffer.from(JSON.stringify(b) ?? 'null')] };
        try {
          const list = await lw.list({ resourceVersion: '0' }, new AbortController().signal);
          assert.ok(Array.isArray(list.items));
        } catch (e) {
          assert.ok(e instanceof StatusError || e instanceof TransportError, `${(e as Error)?.stack ?? String(e)}`);
          assert.ok(isOneLine(e.message), JSON.stringify(e.message));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('sent nothing but GET', () => {
    assert.ok(methods.length > 0);
    assert.deepEqual([...new Set(methods)], ['GET']);
  });
});
