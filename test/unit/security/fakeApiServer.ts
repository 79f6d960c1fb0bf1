/**
 * A small Kubernetes API server on 127.0.0.1 for the security tests. It records every request
 * (method, URL, Authorization header) and serves discovery, LISTs and watches (plain and
 * watch-list) of Secrets that carry payloads the tests then look for in every output.
 *
 * The watch script is finite: the first watch sends its events and ends; the second is answered
 * by a "proxy" 500 whose text body echoes the Authorization header (a leak vector: client-go puts
 * the body into the error text); every later watch stays open until the client goes away. So a
 * run always exercises list → watch → error → relist → watch, and no request loop can spin.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  authorization?: string;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** Everything sensitive the fake cluster and its kubeconfig hold; none of it may show up anywhere. */
export const SECRET_VALUES = {
  dataPlain: 'S3cr3t-DB-Pass-0417',
  newDataPlain: 'N3w-DB-Pass-9911',
  appliedPlain: 'Applied-DB-Pass-2277',
  stringData: 'STRINGDATA-VALUE-7731',
  token: 'TOKEN-abcdef-0123456789',
  password: 'PASSWD-5555-xyz',
  keyBody: 'PRIVATEKEYBODY4242',
  urlPassword: 'URLPW-8080',
} as const;

/** The strings to grep for: each payload as the server sends it (base64) and decoded. */
export function forbiddenStrings(): string[] {
  const v = SECRET_VALUES;
  return [
    v.dataPlain, b64(v.dataPlain),
    v.newDataPlain, b64(v.newDataPlain),
    v.appliedPlain, b64(v.appliedPlain),
    v.stringData,
    v.token,
    v.password, b64(`alice:${v.password}`),
    v.keyBody, b64(fakeKeyPem()),
    v.urlPassword,
  ];
}

function fakeKeyPem(): string {
  return `-----BEGIN RSA PRIVATE KEY-----\n${SECRET_VALUES.keyBody}\n-----END RSA PRIVATE KEY-----\n`;
}

/**
 * A kubeconfig whose user has every kind of credential: a bearer token, basic auth and a client
 * key (with its certificate). `server` may carry user info, e.g. http://bob:pw@127.0.0.1:1.
 */
export function kubeconfigWithCredentials(server: string): string {
  const keyData = b64(fakeKeyPem());
  const certData = b64('-----BEGIN CERTIFICATE-----\nCERTBODY\n-----END CERTIFICATE-----\n');
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c, cluster: {server: "${server}"}}]`,
    `users: [{name: u, user: {token: ${SECRET_VALUES.token}, username: alice, password: ${SECRET_VALUES.password}, client-certificate-data: ${certData}, client-key-data: ${keyData}}}]`,
    'contexts: [{name: secure, context: {cluster: c, user: u, namespace: prod}}]',
    'current-context: secure',
  ].join('\n');
}

function secret(name: string, rv: string, data: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'prod', resourceVersion: rv, uid: `uid-${name}` },
    type: 'Opaque',
    data,
    ...extra,
  };
}

const LIST_RV = '10';

function initialSecrets(): Record<string, unknown>[] {
  return [
    secret('db-creds', '5', { 'db-pass': b64(SECRET_VALUES.dataPlain) }),
    secret('api-creds', '7', {}, { stringData: { 'endpoint-cred': SECRET_VALUES.stringData } }),
  ];
}

/** db-creds changed: a new payload and the last-applied annotation that repeats it (kubectl apply). */
function modifiedSecret(): Record<string, unknown> {
  const applied = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', data: { 'db-pass': b64(SECRET_VALUES.appliedPlain) } });
  const s = secret('db-creds', '11', { 'db-pass': b64(SECRET_VALUES.newDataPlain) });
  (s.metadata as Record<string, unknown>).annotations = { 'kubectl.kubernetes.io/last-applied-configuration': applied };
  return s;
}

export class FakeApiServer {
  readonly seen: SeenRequest[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private watches = 0;
  port = 0;

  constructor() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    if (req.method !== 'GET') return json(res, 405, status(405, 'MethodNotAllowed', `${req.method} is not allowed here`));
    const u = new URL(req.url ?? '/', 'http://x');
    switch (u.pathname) {
      case '/api':
        return json(res, 200, { kind: 'APIVersions', versions: ['v1'] });
      case '/apis':
        return json(res, 200, { kind: 'APIGroupList', groups: [] });
      case '/api/v1':
        return json(res, 200, {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: [{ name: 'secrets', kind: 'Secret', namespaced: true, verbs: ['get', 'list', 'watch'] }],
        });
      case '/api/v1/secrets':
      case '/api/v1/namespaces/prod/secrets':
        return u.searchParams.get('watch') === 'true' ? this.watch(u, req, res) : this.list(res);
      default:
        return json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    }
  }

  private list(res: http.ServerResponse): void {
    json(res, 200, { apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: LIST_RV }, items: initialSecrets() });
  }

  private watch(u: URL, req: http.IncomingMessage, res: http.ServerResponse): void {
    const n = ++this.watches;
    if (n === 2) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`proxy: upstream refused the request; Authorization: ${req.headers.authorization ?? ''}`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const send = (type: string, object: unknown) => res.write(JSON.stringify({ type, object }) + '\n');
    if (u.searchParams.get('sendInitialEvents') === 'true') {
      for (const s of initialSecrets()) send('ADDED', s);
      send('BOOKMARK', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { resourceVersion: LIST_RV, annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
    }
    if (n === 1) {
      send('MODIFIED', modifiedSecret());
      res.end();
    }
    // Later watches stay open: the client's abort (or stop()) ends them.
  }
}

function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

function json(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
