/**
 * The sandbox's HTTP front: a node:http server on 127.0.0.1 that routes GET requests to
 * discovery, LIST, single-object GET and WATCH, and answers every other method 405. It can be
 * "restarted" like a crashing apiserver: every connection is dropped and the listening socket is
 * closed (so clients get ECONNREFUSED) until it listens again on the same port.
 */
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { SANDBOX_VERSION, discoveryDocument, findResource, resourceId, type SandboxResource } from './resources';
import { objectKey, type SandboxStorage } from './storage';
import { isFailure, listResource } from './list';
import { type WatchServing, WatchStream, planWatch } from './watch';
import { type Failure, methodNotAllowed, notFound } from './status';

/** What a resource path names: the resource, the namespace (if any) and the object name (if any). */
interface ResourceTarget {
  resource: SandboxResource;
  namespace?: string;
  name?: string;
}

/** Parses /api/v1/... and /apis/<group>/<version>/... resource paths. */
function parseResourcePath(path: string): ResourceTarget | undefined {
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) [group, version, rest] = ['', parts[1], parts.slice(2)];
  else if (parts[0] === 'apis' && parts.length >= 4) [group, version, rest] = [parts[1], parts[2], parts.slice(3)];
  else return undefined;
  const at = (plural: string) => findResource(group, version, plural);
  // namespaces/{ns}/{plural}[/{name}] for namespaced resources; {plural}[/{name}] otherwise (or across namespaces).
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const resource = at(rest[2]);
    if (resource?.namespaced && rest.length <= 4) return { resource, namespace: rest[1], name: rest[3] };
    return undefined;
  }
  const resource = at(rest[0]);
  if (!resource || rest.length > 2) return undefined;
  if (rest.length === 2 && resource.namespaced) return undefined;
  return { resource, name: rest[1] };
}

export class SandboxApiServer {
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<WatchStream>();
  private listening = false;
  private boundPort = 0;

  constructor(
    private readonly storage: SandboxStorage,
    private readonly serving: WatchServing,
  ) {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  get port(): number {
    return this.boundPort;
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Open watch streams (for tests and the storyline log). */
  get openWatches(): number {
    return this.watches.size;
  }

  /** Listens on 127.0.0.1; port 0 picks a free port the first time, later calls reuse it. */
  listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.server.once('error', onError);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', onError);
        const address = this.server.address();
        this.boundPort = typeof address === 'object' && address ? address.port : port;
        this.listening = true;
        resolve(this.boundPort);
      });
    });
  }

  /** Stops accepting connections and drops every open one, watches included, mid-stream. */
  async close(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }

  /** Ends every open watch cleanly, as the cacher does when its watch cache reinitialises. */
  endWatches(): void {
    for (const w of [...this.watches]) w.stop();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== 'GET') {
      this.fail(res, methodNotAllowed());
      return;
    }
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/version') return this.json(res, 200, SANDBOX_VERSION);
    if (path === '/readyz' || path === '/healthz' || path === '/livez') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('ok');
      return;
    }
    const discovery = discoveryDocument(path, `127.0.0.1:${this.boundPort}`);
    if (discovery) return this.json(res, 200, discovery);
    const target = parseResourcePath(path);
    if (!target) return this.fail(res, notFound());
    const watch = url.searchParams.get('watch');
    if (watch === 'true' || watch === '1') return this.watch(res, target, url.searchParams);
    if (target.name !== undefined) return this.getOne(res, target);
    const list = listResource(this.storage, target.resource, url.searchParams, target.namespace);
    if (isFailure(list)) return this.fail(res, list);
    this.json(res, 200, list);
  }

  private getOne(res: http.ServerResponse, target: ResourceTarget): void {
    const { resource, namespace, name } = target;
    const obj = this.storage.get(resourceId(resource), objectKey(namespace, name ?? ''));
    if (!obj) return this.fail(res, notFound(`${resource.plural}${resource.group ? '.' + resource.group : ''} "${name}" not found`));
    this.json(res, 200, obj);
  }

  private watch(res: http.ServerResponse, target: ResourceTarget, query: URLSearchParams): void {
    if (target.name !== undefined) query.set('fieldSelector', [query.get('fieldSelector'), `metadata.name=${target.name}`].filter(Boolean).join(','));
    const plan = planWatch(this.storage, target.resource, query, target.namespace, this.serving);
    if (isFailure(plan)) return this.fail(res, plan);
    const stream = new WatchStream(res, this.storage, target.resource, plan, this.serving, (s) => this.watches.delete(s));
    this.watches.add(stream);
    stream.start();
  }

  private json(res: http.ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  private fail(res: http.ServerResponse, f: Failure): void {
    this.json(res, f.status.code ?? 500, f.status, f.headers);
  }
}
