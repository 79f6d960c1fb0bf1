/**
 * An HTTPS server on 127.0.0.1 that answers every request with 429 Too Many Requests, as
 * kube-apiserver's priority-and-fairness does when a priority level is full: a Status (reason
 * TooManyRequests, code 429) with Retry-After. The soak points the fault proxy's new connections
 * at it for the length of a burst, while live connections stay with kube-apiserver. It serves
 * with the apiserver's own certificate (it names 127.0.0.1), so the engine's kubeconfig verifies.
 */
import * as https from 'node:https';
import type { Socket } from 'node:net';

export class ThrottleServer {
  private server: https.Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Requests answered so far. */
  throttled = 0;

  constructor(
    private readonly tls: { key: Buffer; cert: Buffer },
    private readonly retryAfterSeconds = 1,
  ) {}

  async listen(): Promise<number> {
    const server = https.createServer({ key: this.tls.key, cert: this.tls.cert }, (_req, res) => {
      this.throttled++;
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Too many requests, please try again later.',
        reason: 'TooManyRequests',
        details: { retryAfterSeconds: this.retryAfterSeconds },
        code: 429,
      });
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(this.retryAfterSeconds), 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.server = server;
    return (server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
