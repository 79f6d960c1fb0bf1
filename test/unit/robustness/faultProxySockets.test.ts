/**
 * The fault proxy (test/e2e/faultProxy.ts) must not leave a socket open once its connections are
 * cut and it is closed: the soak's "nothing left after stop" check counts every TCP handle of the
 * process. A client-side socket that is passing on the upstream's FIN (its shutdown is in flight)
 * cannot send an RST; a reset of it has to close it all the same.
 * Loopback only: a node:net server as the upstream, the proxy in front of it.
 */
import { strict as assert } from 'node:assert';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { FaultProxy } from '../../e2e/faultProxy';

const tcpHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

/** Polls `cond` every 25 ms, at most `tries` times; its last value. */
async function until(cond: () => boolean, tries = 80): Promise<boolean> {
  for (let i = 0; i < tries && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
  return cond();
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function once(s: Socket, event: string): Promise<void> {
  return new Promise((r) => s.once(event, () => r()));
}

describe('FaultProxy sockets', () => {
  it("a reset in the tick the upstream's FIN is passed on closes the client-side socket", async () => {
    const before = tcpHandles();
    let upstreamClosed = false;
    const upstream = createServer((s) => {
      s.on('error', () => undefined);
      s.on('close', () => (upstreamClosed = true));
      s.end();
    });
    const proxy = new FaultProxy({ host: '127.0.0.1', port: await listen(upstream) });
    await proxy.listen();
    // Held bytes keep the pair alive after the upstream has gone, so the order below is fixed.
    proxy.stall();
    const client = connect(proxy.port, '127.0.0.1');
    client.on('error', () => undefined);
    try {
      assert.ok(await until(() => upstreamClosed), 'the upstream connection ends');
      assert.equal(proxy.liveConnections, 1);
      // resume() passes on the FIN: end() on the client-side socket, whose shutdown is then in
      // flight; the reset comes in the same tick, as when the upstream fails right after its FIN.
      proxy.resume();
      assert.equal(proxy.cutAll('reset'), 1);
      assert.equal(proxy.liveConnections, 0);
      client.destroy();
      await proxy.close();
      upstream.close();
      assert.ok(await until(() => tcpHandles() <= before), `TCP handles left: ${tcpHandles() - before}`);
    } finally {
      client.destroy();
      await proxy.close();
      upstream.close();
    }
  });

  it('a reset of a live connection still reaches the client as ECONNRESET and leaves nothing', async () => {
    const before = tcpHandles();
    const accepted: Socket[] = [];
    const upstream = createServer((s) => {
      accepted.push(s);
      s.on('error', () => undefined);
    });
    const proxy = new FaultProxy({ host: '127.0.0.1', port: await listen(upstream) });
    await proxy.listen();
    const client = connect(proxy.port, '127.0.0.1');
    const errors: string[] = [];
    client.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    try {
      await once(client, 'connect');
      assert.ok(await until(() => accepted.length === 1 && proxy.liveConnections === 1), 'the connection reaches the upstream');
      const closed = once(client, 'close');
      assert.equal(proxy.cutAll('reset'), 1);
      await closed;
      assert.deepEqual(errors, ['ECONNRESET']);
      await proxy.close();
      upstream.close();
      assert.ok(await until(() => tcpHandles() <= before), `TCP handles left: ${tcpHandles() - before}`);
    } finally {
      client.destroy();
      await proxy.close();
      for (const s of accepted) s.destroy();
      upstream.close();
    }
  });
});
