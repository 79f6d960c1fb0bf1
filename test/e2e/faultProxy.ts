/**
 * A TCP fault proxy on 127.0.0.1 between the engine and kube-apiserver.
 *
 * It forwards bytes both ways without looking at them: TLS stays end-to-end between the
 * client and kube-apiserver (the serving certificate names 127.0.0.1, so a kubeconfig whose
 * server is `https://127.0.0.1:<proxy port>` verifies as usual). Because it cannot read HTTP,
 * the proof that the engine only sent GETs comes from kube-apiserver's audit log instead
 * (see E2ECluster.auditEvents and GET_AUDIT_VERBS in cluster.ts).
 *
 * Faults:
 *  - cutAll('reset' | 'close'): every live connection is ended (RST or FIN) at once;
 *  - refuseFor(ms): the listening socket is closed, so connects get ECONNREFUSED, and reopened
 *    on the same port afterwards; live connections are cut too unless told otherwise;
 *  - retarget(port): new connections go to another loopback server (live ones stay);
 *  - stall(): bytes stop flowing in both directions (connections stay open, new ones are
 *    accepted and stall too) until resume(); that is how a client-side timeout is provoked.
 */
import * as net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

export class FaultProxy {
  private server: net.Server | undefined;
  private readonly pairs = new Set<Pair>();
  private stalled = false;
  private readonly held: Array<() => void> = [];
  private listenPort = 0;
  /** Connections accepted so far (each HTTP/1.1 or HTTP/2 connection of the client). */
  accepted = 0;

  constructor(private target: { host: string; port: number }) {
    if (target.host !== '127.0.0.1' && target.host !== 'localhost') {
      throw new Error('FaultProxy forwards to loopback only');
    }
  }

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `https://127.0.0.1:${this.listenPort}`;
  }

  get liveConnections(): number {
    return this.pairs.size;
  }

  /** Starts listening (on a free port unless one is given); resolves with the port. */
  async listen(port = this.listenPort): Promise<number> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.listenPort = (server.address() as net.AddressInfo).port;
    return this.listenPort;
  }

  private accept(client: net.Socket): void {
    this.accepted++;
    const upstream = net.connect(this.target.port, this.target.host);
    const pair: Pair = { client, upstream };
    this.pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) => {
      from.on('data', (chunk: Buffer) => {
        const send = () => {
          if (!to.destroyed) to.write(chunk);
        };
        if (this.stalled) this.held.push(send);
        else send();
      });
      from.on('end', () => {
        const end = () => to.end();
        if (this.stalled) this.held.push(end);
        else end();
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    const drop = (err?: Error) => {
      this.pairs.delete(pair);
      // An upstream failure (apiserver gone) looks like a reset to the client.
      if (err) reset(client);
      if (!upstream.destroyed) upstream.destroy();
      if (!client.destroyed) client.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', () => drop());
    upstream.on('close', () => {
      if (!this.stalled) drop();
    });
  }

  /** Sends new connections to another loopback port from now on; live ones stay where they are. */
  retarget(port: number): void {
    this.target = { ...this.target, port };
  }

  /** Ends every live connection: 'reset' sends RST (ECONNRESET on the client), 'close' a FIN (EOF). */
  cutAll(how: 'reset' | 'close' = 'reset'): number {
    const n = this.pairs.size;
    for (const p of [...this.pairs]) {
      this.pairs.delete(p);
      if (how === 'reset') reset(p.client);
      else p.client.end();
      p.upstream.destroy();
    }
    return n;
  }

  /** Closes the listening socket (connects are refused) for `ms`, then listens on the same port again. */
  async refuseFor(ms: number, opts: { cut?: 'reset' | 'close' | false } = {}): Promise<void> {
    await this.stopListening();
    if (opts.cut !== false) this.cutAll(opts.cut ?? 'reset');
    await new Promise((r) => setTimeout(r, ms));
    await this.listen(this.listenPort);
  }

  /** Stops accepting connections (ECONNREFUSED) until listen() is called again. */
  async stopListening(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    // close() releases the port at once; its callback would wait for live connections to end.
    if (s) s.close();
    await new Promise((r) => setImmediate(r));
  }

  /** Holds all bytes in both directions until resume(). */
  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const f of this.held.splice(0)) f();
  }

  async close(): Promise<void> {
    this.resume();
    this.cutAll('close');
    await this.stopListening();
  }
}

/**
 * Ends `s` with an RST. A socket on which end() was called (to pass on the upstream's FIN) may
 * still have its shutdown in flight, and then cannot send one: libuv refuses the reset with
 * EINVAL, after which Node neither closes the TCP handle nor keeps a reference to it, and the
 * handle stays open for good. Such a socket is destroyed instead (its FIN is on the way already).
 */
function reset(s: net.Socket): void {
  if (s.destroyed) return;
  if (s.writableEnded) s.destroy();
  else s.resetAndDestroy();
}
