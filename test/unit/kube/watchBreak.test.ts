/**
 * A watch whose connection breaks right after the bytes of its events: the server writes N events
 * and destroys (FIN) or resets (RST) the socket in the same tick, so the bytes and the break reach
 * the client together, often before the watcher is attached. client-go's decoder reads every
 * complete event that reached the socket and then ends with unexpected EOF (or a reset); so must we.
 * A real node:http server on 127.0.0.1, plain and gzip.
 */
import { strict as assert } from 'node:assert';
import * as zlib from 'node:zlib';
import type { WatchEvent, Watcher } from '../../../src/engine/listWatch';
import type { HttpListerWatcher } from '../../../src/kube/listerWatcher';
import { type Loopback, loopbackListerWatcher, startLoopback } from './loopback';

interface Plan {
  events: number;
  how: 'destroy' | 'reset';
  gzip: boolean;
  /** Also a partial frame after the complete events. */
  partial: boolean;
  /** Break this much later instead of in the same tick (the bytes have all reached the client by then). */
  breakAfterMs?: number;
}

function event(i: number): WatchEvent {
  return {
    type: 'ADDED',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default', resourceVersion: String(100 + i) }, data: { i: String(i) } },
  } as WatchEvent;
}

async function drainAll(w: Watcher): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((r) => (timer = setTimeout(() => r('stuck'), 10_000)));
    const e = await Promise.race([w.next(), stuck]);
    clearTimeout(timer);
    if (e === 'stuck') throw new Error(`watcher never ended after ${out.length} events`);
    if (e === null) return out;
    out.push(e);
  }
}

describe('kube/watch: bytes that arrive together with the connection break', () => {
  let loop: Loopback;
  let lw: HttpListerWatcher;
  let plan: Plan = { events: 1, how: 'destroy', gzip: false, partial: false };
  const methods: string[] = [];

  before(async () => {
    loop = await startLoopback((req, res) => {
      methods.push(req.method ?? '');
      const p = plan;
      const text =
        Array.from({ length: p.events }, (_, i) => JSON.stringify(event(i)) + '\n').join('') + (p.partial ? '{"type":"MODIFIED","object":{"kind":"Con' : '');
      const body = p.gzip ? zlib.gzipSync(Buffer.from(text)).subarray(0, -8) /* no trailer: the stream never ends cleanly */ : Buffer.from(text);
      // Headers and one chunk straight onto the socket (res.write would hold them until the next
      // tick, and a destroy discards them), then the break in the same tick.
      const head = ['HTTP/1.1 200 OK', 'Content-Type: application/json', ...(p.gzip ? ['Content-Encoding: gzip'] : []), 'Transfer-Encoding: chunked', '', ''].join('\r\n');
      res.detachSocket(req.socket);
      req.socket.write(Buffer.concat([Buffer.from(`${head}${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]));
      const brk = () => (p.how === 'reset' ? req.socket.resetAndDestroy() : req.socket.destroy());
      if (p.breakAfterMs === undefined) brk();
      else setTimeout(brk, p.breakAfterMs);
    });
    lw = loopbackListerWatcher(loop.port);
  });

  after(() => loop.close());

  const cases: Plan[] = [];
  for (const how of ['destroy', 'reset'] as const) {
    for (const gzip of [false, true]) {
      for (const partial of [false, true]) {
        // A reset discards what the server's kernel has not sent yet, so a same-tick reset only
        // promises the events of one small write; a FIN delivers everything written.
        for (const events of how === 'reset' ? [1, 3, 50] : [1, 3, 50, 1000]) cases.push({ events, how, gzip, partial });
      }
    }
  }

  for (const c of cases) {
    it(`${c.events} event(s)${c.partial ? ' + a partial frame' : ''}, ${c.gzip ? 'gzip' : 'plain'}, then ${c.how} in the same tick: all delivered, then the break`, async () => {
      plan = c;
      // Several rounds: whether the break beats the watcher depends on scheduling.
      for (let round = 0; round < 5; round++) {
        const w = await lw.watch({ resourceVersion: '1' }, new AbortController().signal);
        // Give the break time to land before anyone asks for an event.
        await new Promise((r) => setTimeout(r, 20 + (c.breakAfterMs ?? 0)));
        const got = await drainAll(w);
        const names = (es: WatchEvent[]) => es.map((e) => e.object.metadata?.name).join(' ');
        assert.equal(names(got), names(Array.from({ length: c.events }, (_, i) => event(i))), `round ${round}: ${got.length} of ${c.events} events`);
        assert.deepEqual(got, Array.from({ length: c.events }, (_, i) => event(i)));
        const end = w.end?.kind;
        if (c.how === 'reset') assert.ok(end === 'reset' || end === 'unexpected-eof', `round ${round}: end ${end}`);
        else assert.equal(end, 'unexpected-eof', `round ${round}`);
      }
    });
  }

  // Nobody reads while 1000 events arrive: the watcher holds back (HIGH_WATER) and the bytes wait
  // in the body's buffer, where a reset destroying the body must not take them along.
  for (const gzip of [false, true]) {
    const c: Plan = { events: 1000, how: 'reset', gzip, partial: false, breakAfterMs: 100 };
    it(`1000 events, ${gzip ? 'gzip' : 'plain'}, not read until after a reset: all delivered, then the break`, async () => {
      plan = c;
      const w = await lw.watch({ resourceVersion: '1' }, new AbortController().signal);
      await new Promise((r) => setTimeout(r, 200));
      const got = await drainAll(w);
      assert.equal(got.length, c.events);
      assert.deepEqual(got, Array.from({ length: c.events }, (_, i) => event(i)));
      assert.ok(w.end?.kind === 'reset' || w.end?.kind === 'unexpected-eof', `end ${w.end?.kind}`);
    });
  }

  it('sent nothing but GET', () => {
    assert.ok(methods.length > 0);
    assert.deepEqual([...new Set(methods)], ['GET']);
  });
});
