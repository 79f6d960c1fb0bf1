/**
 * A real etcd + kube-apiserver for mocha end-to-end tests, wrapping scripts/cluster.sh.
 *
 *   const cluster = useCluster({ apiserverFlags: ['--min-request-timeout=5'] });
 *   it('...', async () => { const c = cluster(); await c.admin('POST', '/api/v1/...', obj); });
 *
 * Each E2ECluster lives in its own temporary directory (certs, etcd data, logs, audit log).
 * Everything listens on 127.0.0.1 only. The binaries are built once per machine by
 * `scripts/cluster.sh build` (see tools/README.md); start() builds them when they are missing.
 *
 * Two users exist: "e2e-admin" (the tests write with it) and "e2e-inspector" (what the engine
 * reads with; its kubeconfig is `kubeconfigPath`). The audit log tells their requests apart.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(REPO, 'scripts', 'cluster.sh');

export interface ClusterOptions {
  /** Extra kube-apiserver flags, remembered across restartApiserver() unless replaced. */
  apiserverFlags?: string[];
  /** Keep the state directory after stop() (logs for debugging). Default: keep on failure only via KEEP_E2E_CLUSTER=1. */
  keepDir?: boolean;
}

export interface AuditEvent {
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  userAgent?: string;
  responseStatus?: { code?: number };
}

export interface HttpResult<T = unknown> {
  status: number;
  body: T;
  text: string;
}

function run(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, ...args], { env, timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`cluster.sh ${args[0]} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export class E2ECluster {
  readonly apiserverUrl: string;
  readonly port: number;
  readonly ca: Buffer;
  /** kubeconfig of the read-only engine user (e2e-inspector), pointing at the apiserver. */
  readonly kubeconfigPath: string;
  readonly auditLogPath: string;
  readonly kubeVersion: string;
  private readonly adminToken: string;
  private readonly inspectorToken: string;

  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly keepDir: boolean,
  ) {
    const vars = parseEnvFile(readFileSync(path.join(dir, 'cluster.env'), 'utf8'));
    this.apiserverUrl = vars.APISERVER_URL;
    this.port = Number(vars.APISERVER_PORT);
    this.ca = readFileSync(vars.CA_FILE);
    this.kubeconfigPath = vars.KUBECONFIG;
    this.auditLogPath = vars.AUDIT_LOG;
    this.kubeVersion = vars.KUBE_VERSION;
    this.adminToken = readFileSync(vars.ADMIN_TOKEN_FILE, 'utf8').trim();
    this.inspectorToken = readFileSync(vars.INSPECTOR_TOKEN_FILE, 'utf8').trim();
  }

  static async start(opts: ClusterOptions = {}): Promise<E2ECluster> {
    const dir = mkdtempSync(path.join(tmpdir(), 'ii-e2e-cluster-'));
    const env = { ...process.env, CLUSTER_DIR: dir };
    try {
      await run(['build'], env, 60 * 60_000);
      await run(['start', ...(opts.apiserverFlags ?? [])], env, 5 * 60_000);
    } catch (e) {
      await run(['stop'], env, 60_000).catch(() => undefined);
      throw e;
    }
    return new E2ECluster(dir, env, opts.keepDir ?? process.env.KEEP_E2E_CLUSTER === '1');
  }

  async stop(): Promise<void> {
    await run(['stop'], this.env, 60_000);
    if (!this.keepDir) rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Stops kube-apiserver (new connections are refused) and starts it again on the same port.
   * mode: 'kill' = SIGKILL (a crash); 'graceful' = SIGTERM and wait for it to exit by itself (fails
   * if it does not; see GRACEFUL_SHUTDOWN_FLAGS in scripts/cluster.sh); default SIGTERM, SIGKILL after 10 s.
   */
  async restartApiserver(flags?: string[], mode?: 'kill' | 'graceful'): Promise<void> {
    await run(['restart-apiserver', ...(mode ? [`--${mode}`] : []), ...(flags ?? [])], this.env, 5 * 60_000);
  }

  async stopApiserver(mode?: 'kill' | 'graceful'): Promise<void> {
    await run(['stop-apiserver', ...(mode ? [`--${mode}`] : [])], this.env, 2 * 60_000);
  }

  /** The state variables of scripts/cluster.sh (ports, paths) of this cluster. */
  stateVars(): Record<string, string> {
    return parseEnvFile(readFileSync(path.join(this.dir, 'cluster.env'), 'utf8'));
  }

  async startApiserver(flags?: string[]): Promise<void> {
    await run(['start-apiserver', ...(flags ?? [])], this.env, 5 * 60_000);
  }

  /** A kubeconfig (YAML) for the engine user, optionally pointing at another server (a fault proxy). */
  kubeconfigYaml(opts: { server?: string; user?: 'inspector' | 'admin' } = {}): string {
    const token = opts.user === 'admin' ? this.adminToken : this.inspectorToken;
    const name = opts.user === 'admin' ? 'e2e-admin' : 'e2e-inspector';
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: e2e',
      '  cluster:',
      `    server: ${opts.server ?? this.apiserverUrl}`,
      `    certificate-authority-data: ${this.ca.toString('base64')}`,
      'users:',
      `- name: ${name}`,
      '  user:',
      `    token: ${token}`,
      'contexts:',
      `- name: ${name}`,
      '  context:',
      '    cluster: e2e',
      `    user: ${name}`,
      '    namespace: default',
      `current-context: ${name}`,
      '',
    ].join('\n');
  }

  /** Writes kubeconfigYaml(opts) into the cluster directory and returns its path. */
  writeKubeconfig(fileName: string, opts: { server?: string; user?: 'inspector' | 'admin' } = {}): string {
    const p = path.join(this.dir, fileName);
    writeFileSync(p, this.kubeconfigYaml(opts), { mode: 0o600 });
    return p;
  }

  /** An HTTP request as the admin user, straight to the apiserver (tests write with this; the engine never does). */
  admin<T = any>(method: string, urlPath: string, body?: unknown, timeoutMs = 30_000): Promise<HttpResult<T>> {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request(
        `${this.apiserverUrl}${urlPath}`,
        {
          method,
          ca: this.ca,
          headers: {
            authorization: `Bearer ${this.adminToken}`,
            accept: 'application/json',
            'user-agent': 'informer-inspector-e2e-admin',
            ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: any = undefined;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, text });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`admin ${method} ${urlPath} timed out`)));
      req.on('error', reject);
      req.end(data);
    });
  }

  /** Like admin() but throws unless the status is 2xx. */
  async adminOk<T = any>(method: string, urlPath: string, body?: unknown): Promise<T> {
    const r = await this.admin<T>(method, urlPath, body);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${urlPath}: HTTP ${r.status} ${r.text.slice(0, 500)}`);
    return r.body;
  }

  /** A fresh consistent LIST (resourceVersion=""), all pages, as the admin user. */
  async consistentList(collectionPath: string, pageSize = 500): Promise<{ resourceVersion: string; items: any[] }> {
    const items: any[] = [];
    let cont = '';
    let rv = '';
    for (;;) {
      const q = new URLSearchParams({ limit: String(pageSize) });
      if (cont) q.set('continue', cont);
      const page = await this.adminOk<any>('GET', `${collectionPath}?${q}`);
      items.push(...page.items);
      rv = rv || page.metadata.resourceVersion;
      cont = page.metadata.continue ?? '';
      if (!cont) return { resourceVersion: rv, items };
    }
  }

  /** The audit events written so far (kube-apiserver writes them synchronously: --audit-log-mode=blocking). */
  auditEvents(): AuditEvent[] {
    if (!existsSync(this.auditLogPath)) return [];
    return readFileSync(this.auditLogPath, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as AuditEvent);
  }
}

/**
 * Registers mocha before()/after() hooks that start one cluster for the enclosing describe()
 * and stop it afterwards; returns an accessor for use inside the tests.
 */
export function useCluster(opts: ClusterOptions = {}): () => E2ECluster {
  let cluster: E2ECluster | undefined;
  before(async function () {
    this.timeout(60 * 60_000); // a cold build of kube-apiserver takes many minutes on two cores
    cluster = await E2ECluster.start(opts);
  });
  after(async function () {
    this.timeout(120_000);
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error('the e2e cluster did not start');
    return cluster;
  };
}

/**
 * The audit verbs a plain HTTP GET maps to (kube-apiserver derives the verb from the method:
 * GET → get/list/watch for resources, "get" for non-resource URLs such as /api or /apis).
 * Any other verb (create, update, patch, delete, deletecollection, post, put, ...) means a
 * non-GET request.
 */
/** kube-apiserver flags under which a graceful SIGTERM finishes with watches open (scripts/cluster.sh graceful-flags). */
export const GRACEFUL_SHUTDOWN_FLAGS: readonly string[] = [
  '--shutdown-delay-duration=0s',
  '--shutdown-watch-termination-grace-period=5s',
  '--shutdown-send-retry-after=true',
];

export const GET_AUDIT_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line);
    if (m) out[m[1]] = m[2];
  }
  return out;
}
