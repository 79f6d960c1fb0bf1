/**
 * The observing proxy: an HTTPS server on a loopback address that a process under observation
 * uses as its API server (through the kubeconfig it writes). Every request is forwarded
 * unchanged to the real API server with the credentials of the chosen kubeconfig context
 * (like `kubectl proxy`); the proxy originates no request of its own. GET lists and watches of
 * resource collections are asked for as JSON and their responses are teed to an observer.
 *
 * Transparency (docs/observe.md lists what cannot be preserved):
 *  - the process must present the proxy's random bearer token; anything else gets 401 and is
 *    not forwarded;
 *  - status codes, headers (Retry-After, …) and bodies pass as they are; watch ERROR events are
 *    body bytes like any other;
 *  - an upstream that refuses the connection: the accepted socket is reset and the proxy stops
 *    listening until the upstream accepts TCP connections again (so the process's next attempts
 *    are refused, as they would be without the proxy); an upstream reset resets the process's
 *    socket; a FIN in the middle of a body ends the process's socket the same way (no final
 *    chunk); nothing is ever turned into a 502;
 *  - bytes are written as they arrive and the upstream is paused while the process does not
 *    read, so a stalled upstream stalls the process and a slow process slows the upstream.
 * The proxy serves HTTPS with a certificate it makes at start (ECDSA P-256, SANs 127.0.0.1, ::1,
 * localhost), named in the kubeconfig it writes: client-go's clientcmd sends credentials only to
 * TLS servers, so a plain-HTTP proxy would never see the token.
 * Nothing here logs headers or bodies; notices carry method, path and status only.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { generate } from 'selfsigned';
import { TransportError } from '../engine/listWatch';
import { transportError } from '../kube/http';
import type { KubeConnection } from '../kube/kubeconfig';
import type { BodyEnd, ObservedExchange, ObservedFailure, ObservedResponse, ProxyNotice, ProxyStats } from './exchange';
import { acceptInfo, parseCollectionCall, reflectorKey } from './requests';

export interface ObservingProxyOptions {
  /** The upstream: a selected kubeconfig context. */
  conn: KubeConnection;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** 0 (default) = a free port. */
  port?: number;
  /** The bearer token the process must present; default 32 random bytes, hex. */
  token?: string;
  onExchange?: (x: ObservedExchange) => void;
  onNotice?: (n: ProxyNotice) => void;
  /** Every request forwarded upstream: method and request URI (path and query) as the process sent them. */
  onForward?: (f: { method: string; uri: string }) => void;
  /**
   * Watches of a client that prefers protobuf but accepts JSON: ask for JSON (true, default) or
   * pass them unchanged, unread (false). client-go picks a watch's decoder from the response's
   * Content-Type in current releases (rest.Request.newStreamWatcher → Negotiator.StreamDecoder);
   * kubernetes-1.15's Watch decodes with the configured content type and would fail on JSON.
   * Lists are asked for as JSON either way (every client-go decodes a list by its Content-Type).
   */
  rewriteProtobufWatches?: boolean;
  /** While the upstream refuses: how often to try a TCP connect to it (no HTTP is sent). Default 250 ms. */
  probeIntervalMs?: number;
}

export class ProxyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProxyError';
  }
}

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'authorization',
]);

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

export class ObservingProxy {
  readonly token: string;
  readonly host: string;
  private portNumber = 0;
  private server: https.Server | undefined;
  private readonly servers = new Set<https.Server>();
  private readonly sockets = new Set<Socket>();
  /** The TCP socket under each TLS connection, by remote address and port (an RST is sent on it). */
  private readonly tcp = new Map<string, Socket>();
  private nextId = 1;
  private closed = false;
  private probeTimer: NodeJS.Timeout | undefined;
  /** The upstream refused and the proxy does not listen; requests on open connections are reset, not forwarded. */
  private down = false;
  private readonly upstreamUrl: URL;
  private tls: { key: string; cert: string } | undefined;
  readonly stats: ProxyStats = { forwarded: 0, observed: 0, unauthorized: 0, cut: 0 };

  private constructor(private readonly o: ObservingProxyOptions) {
    this.host = o.host ?? '127.0.0.1';
    if (!LOOPBACK_HOSTS.has(this.host)) throw new ProxyError(`the observing proxy listens on loopback addresses only (127.0.0.1, ::1, localhost), not ${this.host}`);
    this.token = o.token ?? randomBytes(32).toString('hex');
    this.upstreamUrl = new URL(o.conn.server);
  }

  static async start(o: ObservingProxyOptions): Promise<ObservingProxy> {
    const p = new ObservingProxy(o);
    const made = await generate([{ name: 'commonName', value: 'informer-inspector observing proxy' }], {
      keyType: 'ec',
      curve: 'P-256',
      notAfterDate: new Date(Date.now() + 30 * 24 * 3600_000),
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }, { type: 2, value: 'localhost' }] },
      ],
    });
    p.tls = { key: made.private, cert: made.cert };
    await p.listen(o.port ?? 0);
    return p;
  }

  get port(): number {
    return this.portNumber;
  }

  /** The URL the process talks to. */
  get url(): string {
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${h}:${this.portNumber}`;
  }

  /** Whether the proxy accepts connections now (false while the upstream refuses). */
  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  /** The proxy's serving certificate (PEM), the CA of the kubeconfig it writes. */
  get certificate(): string {
    return this.tls?.cert ?? '';
  }

  /** A kubeconfig for the observed process: the proxy's URL, its certificate and token, the context's namespace. */
  kubeconfigYaml(): string {
    const ns = this.o.conn.context.namespace;
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: informer-inspector-observe',
      '  cluster:',
      `    server: ${this.url}`,
      `    certificate-authority-data: ${Buffer.from(this.certificate, 'utf8').toString('base64')}`,
      'users:',
      '- name: informer-inspector-observe',
      '  user:',
      `    token: ${this.token}`,
      'contexts:',
      '- name: informer-inspector-observe',
      '  context:',
      '    cluster: informer-inspector-observe',
      '    user: informer-inspector-observe',
      ...(ns ? [`    namespace: ${JSON.stringify(ns)}`] : []),
      'current-context: informer-inspector-observe',
      '',
    ].join('\n');
  }

  /** Writes kubeconfigYaml() with mode 0600. */
  writeKubeconfig(path: string): void {
    writeFileSync(path, this.kubeconfigYaml(), { mode: 0o600 });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    for (const s of this.sockets) s.destroy();
    await Promise.all([...this.servers].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    this.servers.clear();
  }

  // ---- listening -----------------------------------------------------------------------------

  private listen(port: number): Promise<void> {
    const server = https.createServer({ ...this.tls }, (req, res) => this.handle(req, res));
    server.keepAliveTimeout = 65_000;
    server.requestTimeout = 0;
    server.on('secureConnection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      const key = `${s.remoteAddress}|${s.remotePort}`;
      this.tcp.set(key, s);
      s.on('close', () => {
        this.sockets.delete(s);
        if (this.tcp.get(key) === s) this.tcp.delete(key);
      });
    });
    // Upgrades (exec, attach, port-forward) are not proxied: the socket is closed.
    server.on('upgrade', (_req, socket: Socket) => socket.destroy());
    server.on('clientError', (_err, socket: Socket) => socket.destroy());
    server.on('tlsClientError', () => undefined);
    return new Promise((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => {
        reject(new ProxyError(`cannot listen on ${this.host}:${port}: ${e.code ?? e.message}`));
      });
      server.listen(port, this.host, () => {
        const addr = server.address();
        if (addr && typeof addr === 'object') this.portNumber = addr.port;
        this.server = server;
        this.servers.add(server);
        server.on('close', () => this.servers.delete(server));
        resolve();
      });
    });
  }

  /**
   * The upstream refused a connection: stop accepting, so the process's next connects are
   * refused too, and accept again once a TCP connect to the upstream succeeds. With an HTTP
   * proxy between us and the upstream the refusal came from elsewhere: keep listening.
   */
  private upstreamRefused(): void {
    if (this.closed || !this.server || !this.server.listening) return;
    const server = this.server;
    server.close();
    this.down = true;
    // Kept-alive connections would carry the process's next requests past the closed listener.
    for (const s of this.servers) s.closeIdleConnections();
    const probe = () => {
      this.probeTimer = undefined;
      if (this.closed) return;
      const s = net.connect({ host: this.upstreamUrl.hostname.replace(/^\[|\]$/g, ''), port: upstreamPort(this.upstreamUrl) });
      s.setTimeout(2000);
      const retry = () => {
        s.destroy();
        if (!this.closed) this.probeTimer = setTimeout(probe, this.o.probeIntervalMs ?? 250);
      };
      s.once('connect', () => {
        s.destroy();
        this.listen(this.portNumber).then(
          () => {
            this.down = false;
            this.o.onNotice?.({ kind: 'listening-again', port: this.portNumber });
          },
          () => retry(),
        );
      });
      s.once('error', retry);
      s.once('timeout', retry);
    };
    this.probeTimer = setTimeout(probe, this.o.probeIntervalMs ?? 250);
  }

  // ---- one request -----------------------------------------------------------------------------

  private authorized(req: http.IncomingMessage): boolean {
    const got = Buffer.from(String(req.headers.authorization ?? ''), 'utf8');
    const want = Buffer.from(`Bearer ${this.token}`, 'utf8');
    return got.length === want.length && timingSafeEqual(got, want);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const method = req.method ?? 'GET';
    const rawPath = req.url ?? '/';
    const path = rawPath.split('?')[0];
    if (!this.authorized(req)) {
      this.stats.unauthorized++;
      this.o.onNotice?.({ kind: 'unauthorized', method, path });
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      res.writeHead(401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      req.resume();
      return;
    }
    if (this.down) {
      // A request on a connection opened before the upstream refused: reset it, as a refused
      // dial would fail it (Go retries a GET on a fresh connection, which is then refused).
      this.stats.cut++;
      this.cut(req.socket, 'reset');
      return;
    }
    this.stats.forwarded++;
    this.o.onForward?.({ method, uri: rawPath });
    const userAgent = String(req.headers['user-agent'] ?? '');
    const call = parseCollectionCall(method, rawPath);
    const accept = String(req.headers.accept ?? '');
    const info = acceptInfo(req.headers.accept);
    let kind = call ? info.kind : 'other';
    let why = '';
    if (call?.verb === 'watch' && kind === 'json' && !info.jsonFirst && this.o.rewriteProtobufWatches === false) {
      kind = 'other';
      why = ' (protobuf-first watch kept as it is)';
    }
    const headers: Record<string, string> = {};
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const k = req.rawHeaders[i];
      if (HOP_BY_HOP.has(k.toLowerCase())) continue;
      headers[k] = headers[k] === undefined ? req.rawHeaders[i + 1] : `${headers[k]}, ${req.rawHeaders[i + 1]}`;
    }
    let exchange: { x: ObservedExchange; settle: (o: ObservedResponse | ObservedFailure) => void } | undefined;
    if (call && kind !== 'table') {
      if (kind === 'json') {
        // Ask for JSON only, uncompressed, so the tee can read it; client-go decodes whatever
        // content type the response names.
        for (const k of Object.keys(headers)) if (/^accept(-encoding)?$/i.test(k)) delete headers[k];
        headers.Accept = 'application/json';
      } else {
        this.o.onNotice?.({ kind: 'unreadable', method, path, userAgent, accept: accept + why, reflector: reflectorKey(call, userAgent) });
      }
      let settle!: (o: ObservedResponse | ObservedFailure) => void;
      const outcome = new Promise<ObservedResponse | ObservedFailure>((r) => (settle = r));
      const x: ObservedExchange = { id: this.nextId++, call, userAgent, receivedAt: Date.now(), readable: kind === 'json', outcome };
      exchange = { x, settle };
      if (x.readable) {
        this.stats.observed++;
        this.o.onExchange?.(x);
      }
    }
    this.forward(req, res, method, rawPath, headers, exchange?.settle).catch((e: unknown) => {
      // Building the upstream request failed (credentials plugin, bad kubeconfig): the process sees a reset.
      this.o.onNotice?.({ kind: 'upstream-error', method, path, text: e instanceof Error ? e.message.split('\n')[0] : String(e) });
      exchange?.settle({ kind: 'failed', error: new TransportError('other', `${method} ${path}: upstream credentials unavailable`) });
      this.cut(req.socket, 'reset');
    });
  }

  private async forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    method: string,
    rawPath: string,
    headers: Record<string, string>,
    settle: ((o: ObservedResponse | ObservedFailure) => void) | undefined,
  ): Promise<void> {
    const opts = await this.o.conn.requestOptions(headers);
    const base = this.upstreamUrl;
    const prefix = base.pathname.replace(/\/+$/, '');
    const target = new URL(`${base.protocol}//${base.host}${prefix}${rawPath.startsWith('/') ? rawPath : `/${rawPath}`}`);
    opts.method = method;
    opts.protocol = base.protocol;
    opts.hostname = base.hostname.replace(/^\[|\]$/g, '');
    opts.port = upstreamPort(base);
    opts.path = target.pathname + target.search;
    if (opts.agent === undefined) opts.agent = false;
    const viaProxyAgent = opts.agent !== false;
    const send = base.protocol === 'https:' ? https.request : http.request;
    const path = rawPath.split('?')[0];
    let responded = false;
    let clientGone = false;
    let upstreamReset = false;

    const up = send(opts, (upRes) => {
      responded = true;
      const status = upRes.statusCode ?? 502;
      const flat: string[] = [];
      for (let i = 0; i + 1 < upRes.rawHeaders.length; i += 2) {
        const k = upRes.rawHeaders[i];
        const lk = k.toLowerCase();
        if (lk === 'connection' || lk === 'keep-alive' || lk === 'transfer-encoding' || lk === 'proxy-connection') continue;
        flat.push(k, upRes.rawHeaders[i + 1]);
      }
      let tee: PassThrough | undefined;
      let endSettle!: (e: BodyEnd) => void;
      const done = new Promise<BodyEnd>((r) => (endSettle = r));
      let ended: BodyEnd | undefined;
      const finish = (e: BodyEnd) => {
        if (ended) return;
        ended = e;
        endSettle(e);
        // The tee always ends (a destroyed stream would drop bytes not yet read); `done` says how.
        tee?.end();
      };
      if (settle) {
        tee = new PassThrough({ highWaterMark: 1 << 20 });
        const t = tee;
        settle({
          kind: 'response',
          status,
          headers: upRes.headers,
          body: t,
          done,
          failure: () =>
            ended === 'upstream-reset'
              ? new TransportError('connection-reset', `Get "${redactedPath(path)}": read: connection reset by peer`)
              : ended === 'client-closed'
                ? 'aborted'
                : undefined,
        });
      }
      res.writeHead(status, upRes.statusMessage, flat);
      res.flushHeaders();
      upRes.on('data', (chunk: Buffer) => {
        tee?.write(chunk);
        if (!res.write(chunk)) {
          upRes.pause();
          res.once('drain', () => upRes.resume());
        }
      });
      upRes.on('end', () => {
        finish('complete');
        res.end();
      });
      const broken = () => {
        if (ended || clientGone) return;
        const how: BodyEnd = upstreamReset ? 'upstream-reset' : 'upstream-eof';
        finish(how);
        this.stats.cut++;
        this.cut(req.socket, how === 'upstream-reset' ? 'reset' : 'fin');
      };
      upRes.on('aborted', broken);
      upRes.on('error', broken);
      upRes.on('close', () => {
        if (!upRes.complete) broken();
      });
      res.on('close', () => {
        if (!res.writableFinished && !ended) {
          clientGone = true;
          finish('client-closed');
          up.destroy();
        }
      });
    });
    up.on('socket', (s: Socket) => {
      s.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'ECONNRESET') upstreamReset = true;
      });
    });
    up.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET') upstreamReset = true;
      if (responded || clientGone) return;
      const te = transportError(e, `${this.o.conn.server}${path}`);
      // What the process sees: a FIN (EOF) when the upstream closed before answering, a reset otherwise.
      const seen = te.kind === 'eof' ? te : new TransportError('connection-reset', `Get "${redactedPath(path)}": read: connection reset by peer`);
      settle?.({ kind: 'failed', error: seen });
      this.stats.cut++;
      if (te.kind === 'connection-refused') {
        this.o.onNotice?.({ kind: 'upstream-refused', method, path });
        this.cut(req.socket, 'reset');
        if (!viaProxyAgent) this.upstreamRefused();
      } else if (te.kind === 'eof') {
        this.cut(req.socket, 'fin');
      } else {
        this.o.onNotice?.({ kind: 'upstream-error', method, path, text: te.message });
        this.cut(req.socket, 'reset');
      }
    });
    req.on('aborted', () => {
      if (!responded) {
        clientGone = true;
        settle?.({ kind: 'failed', error: new TransportError('other', 'the process closed the request before the response') });
        up.destroy();
      }
    });
    req.pipe(up);
  }

  /** Ends the process's socket after what was written reaches it: with an RST, or a FIN (no final chunk). */
  private cut(socket: Socket, how: 'reset' | 'fin'): void {
    const go = () => {
      if (socket.destroyed) return;
      if (how === 'fin') {
        socket.destroySoon();
        return;
      }
      // A TLS socket cannot send an RST itself: the TCP socket under it does.
      const raw = this.tcp.get(`${socket.remoteAddress}|${socket.remotePort}`);
      if (raw && !raw.destroyed) raw.resetAndDestroy();
      socket.destroy();
    };
    if (socket.writableLength === 0) go();
    else {
      socket.once('drain', go);
      socket.once('close', () => socket.off('drain', go));
    }
  }
}

function upstreamPort(u: URL): number {
  if (u.port) return Number(u.port);
  return u.protocol === 'https:' ? 443 : 80;
}

function redactedPath(p: string): string {
  return p.replace(/[^\x20-\x7e]/g, '?');
}
