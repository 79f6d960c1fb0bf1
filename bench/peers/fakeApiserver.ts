/**
 * The fake apiserver of the peer benchmark: 127.0.0.1 on an ephemeral port, serving the bytes
 * that `peers gen` wrote (the same Pods as JSON and as protobuf) to every client alike.
 *
 *   GET /api/v1/pods                 the LIST (protobuf when the Accept header asks for it first)
 *   GET /api/v1/pods?watch=…         the first watch of a run streams every event once GET
 *                                    /bench/go has been seen (the client calls it when synced, so
 *                                    the watch phase is timed on its own), then stays open; any
 *                                    later watch stays open and silent
 *   GET /bench/go                    releases the watch events
 *
 * Bounded: a watch response ends after `holdMs`, and the server serves one run at a time (reset()).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export interface Workload {
  listJson: Buffer;
  listPb: Buffer;
  watchJson: Buffer;
  watchPb: Buffer;
}

export function loadWorkload(dir: string): Workload {
  const f = (n: string) => fs.readFileSync(path.join(dir, n));
  return { listJson: f('list.json'), listPb: f('list.pb'), watchJson: f('watch.json'), watchPb: f('watch.pb') };
}

export class FakeApiserver {
  private server?: http.Server;
  private released = false;
  private watchServed = false;
  private waiting: (() => void)[] = [];
  private readonly open = new Set<http.ServerResponse>();
  /** Requests seen in this run, "list"/"watch"/"go" with the content type answered. */
  readonly requests: string[] = [];

  constructor(
    private readonly w: Workload,
    private readonly holdMs = 120_000,
  ) {}

  async start(): Promise<string> {
    const server = http.createServer((req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Ends every open response and arms the next run. */
  reset(): void {
    for (const res of this.open) res.destroy();
    this.open.clear();
    this.released = false;
    this.watchServed = false;
    this.waiting = [];
    this.requests.length = 0;
  }

  async stop(): Promise<void> {
    this.reset();
    const s = this.server;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET') return this.status(res, 405, 'MethodNotAllowed', 'only GET');
    if (url.pathname === '/bench/go') {
      this.requests.push('go');
      this.released = true;
      for (const w of this.waiting.splice(0)) w();
      res.end('ok');
      return;
    }
    if (url.pathname !== '/api/v1/pods') return this.status(res, 404, 'NotFound', `no ${url.pathname}`);
    const pb = (req.headers.accept ?? '').trim().startsWith(PROTOBUF);
    const watch = url.searchParams.get('watch');
    if (watch !== 'true' && watch !== '1') {
      this.requests.push(`list ${pb ? 'pb' : 'json'}`);
      const body = pb ? this.w.listPb : this.w.listJson;
      res.writeHead(200, { 'content-type': pb ? PROTOBUF : 'application/json', 'content-length': body.length });
      res.end(body);
      return;
    }
    if (url.searchParams.get('sendInitialEvents') === 'true') {
      // The clients run with WatchListClient off; a streaming list here is a set-up mistake.
      return this.status(res, 400, 'BadRequest', 'sendInitialEvents is not served by the bench apiserver');
    }
    this.requests.push(`watch ${pb ? 'pb' : 'json'}`);
    res.writeHead(200, { 'content-type': pb ? `${PROTOBUF};stream=watch` : 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    this.open.add(res);
    const timer = setTimeout(() => res.end(), this.holdMs);
    res.on('close', () => {
      clearTimeout(timer);
      this.open.delete(res);
    });
    if (this.watchServed) return;
    this.watchServed = true;
    const send = () => void this.stream(res, pb ? this.w.watchPb : this.w.watchJson);
    if (this.released) send();
    else this.waiting.push(send);
  }

  /** Writes the events in 64 KiB chunks, waiting for the socket to drain. */
  private async stream(res: http.ServerResponse, body: Buffer): Promise<void> {
    const chunk = 64 * 1024;
    for (let off = 0; off < body.length && !res.destroyed; off += chunk) {
      if (!res.write(body.subarray(off, off + chunk))) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
  }

  private status(res: http.ServerResponse, code: number, reason: string, message: string): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
  }
}
