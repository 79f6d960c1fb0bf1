/**
 * Kubeconfig loading, context selection and authenticated request options, through
 * @kubernetes/client-node (which implements token, token-file, client-cert, exec and OIDC auth,
 * proxies and tls-server-name). Credentials never leave this module except inside the Node
 * request options handed to https.request; nothing here logs or stringifies them.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import * as yaml from 'js-yaml';
import type * as https from 'node:https';
import { redactedUrl } from './http';

export interface ContextInfo {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
  /** The API server URL of the context's cluster ("" when the cluster entry is missing). */
  server: string;
}

export interface LoadOptions {
  /**
   * Like kubectl's --kubeconfig: this file only, and it must exist. Several files joined with the
   * platform's path delimiter are taken like $KUBECONFIG. Default: $KUBECONFIG, then ~/.kube/config.
   */
  kubeconfigPath?: string;
  /** Kubeconfig YAML given inline (takes precedence over kubeconfigPath). */
  kubeconfigYaml?: string;
  /** The context to use; default: current-context. */
  context?: string;
  /** The environment and home directory the default rules read (tests pass their own). */
  env?: Record<string, string | undefined>;
  home?: string;
}

export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
  }
}

/** Neither --kubeconfig, $KUBECONFIG nor ~/.kube/config names a file that exists. */
export class NoKubeconfigError extends KubeConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'NoKubeconfigError';
  }
}

/** One kubeconfig file as parsed: its entries by name (in file order) and its current-context. */
interface RawFile {
  path: string;
  clusters: Map<string, unknown>;
  users: Map<string, unknown>;
  contexts: Map<string, unknown>;
  currentContext?: string;
}

/** The files client-go's loading rules read: an explicit path must exist; $KUBECONFIG files that do not exist are skipped. */
export function kubeconfigFiles(opts: Pick<LoadOptions, 'kubeconfigPath' | 'env' | 'home'> = {}): string[] {
  const delimiter = process.platform === 'win32' ? ';' : ':';
  const env = opts.env ?? process.env;
  if (opts.kubeconfigPath && !opts.kubeconfigPath.includes(delimiter)) {
    if (!existsSync(opts.kubeconfigPath)) throw new KubeConfigError(`cannot load kubeconfig ${opts.kubeconfigPath}: no such file`);
    return [opts.kubeconfigPath];
  }
  const list = opts.kubeconfigPath ?? env.KUBECONFIG;
  if (list) {
    const seen = new Set<string>();
    const files = list.split(delimiter).filter((p) => p !== '' && !seen.has(p) && (seen.add(p), true) && existsSync(p));
    if (files.length === 0) throw new NoKubeconfigError(`no kubeconfig found: none of the files in ${opts.kubeconfigPath ? '--kubeconfig' : 'KUBECONFIG'} (${list}) exists`);
    return files;
  }
  const home = opts.home ?? homedir();
  const dflt = join(home, '.kube', 'config');
  if (existsSync(dflt)) return [dflt];
  throw new NoKubeconfigError('no kubeconfig found: set KUBECONFIG or --kubeconfig, or create ~/.kube/config (kubectl config view shows what kubectl uses)');
}

function parseFile(path: string, text: string): RawFile {
  let obj: unknown;
  try {
    obj = yaml.load(text);
  } catch (e) {
    // Only the first line: YAML errors go on with a snippet of the file, which may hold credentials.
    throw new KubeConfigError(`cannot load kubeconfig ${path}: ${String((e as Error).message).split(/[\r\n\u2028\u2029]/)[0]}`);
  }
  if (obj === undefined || obj === null) obj = {};
  if (typeof obj !== 'object' || Array.isArray(obj)) throw new KubeConfigError(`cannot load kubeconfig ${path}: not a YAML mapping`);
  const o = obj as Record<string, unknown>;
  const named = (key: string): Map<string, unknown> => {
    const m = new Map<string, unknown>();
    const list = Array.isArray(o[key]) ? (o[key] as unknown[]) : [];
    for (const e of list) {
      const name = (e as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name !== '' && !m.has(name)) m.set(name, withAbsolutePaths(e, dirname(path)));
    }
    return m;
  };
  const cc = o['current-context'];
  return { path, clusters: named('clusters'), users: named('users'), contexts: named('contexts'), currentContext: typeof cc === 'string' && cc !== '' ? cc : undefined };
}

const PATH_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile'];

/** Relative file references are relative to the kubeconfig that holds them (client-go ResolvePaths). */
function withAbsolutePaths(entry: unknown, dir: string): unknown {
  if (!dir || typeof entry !== 'object' || entry === null) return entry;
  const copy = JSON.parse(JSON.stringify(entry)) as Record<string, Record<string, unknown> | undefined>;
  for (const inner of [copy.cluster, copy.user]) {
    if (!inner || typeof inner !== 'object') continue;
    for (const f of PATH_FIELDS) {
      const v = inner[f];
      if (typeof v === 'string' && v !== '' && !isAbsolute(v)) inner[f] = resolve(dir, v);
    }
  }
  return copy;
}

/**
 * Every context of one or more kubeconfig files merged like client-go's loading rules: files in
 * order, the first file that defines a cluster, user or context (or sets current-context) wins.
 * Nothing is validated until a context is chosen, and then only what that context uses.
 */
export class KubeconfigSet {
  private constructor(
    readonly files: readonly string[],
    private readonly clusters: Map<string, unknown>,
    private readonly users: Map<string, unknown>,
    private readonly contextEntries: Map<string, unknown>,
    /** The merged current-context ("" when none is set). */
    readonly currentContext: string,
  ) {}

  static load(opts: LoadOptions = {}): KubeconfigSet {
    const raws: RawFile[] = [];
    if (opts.kubeconfigYaml !== undefined) raws.push(parseFile('', opts.kubeconfigYaml));
    else {
      for (const f of kubeconfigFiles(opts)) {
        let text: string;
        try {
          text = readFileSync(f, 'utf8');
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          throw new KubeConfigError(`cannot load kubeconfig ${f}: ${code === 'EISDIR' ? 'is a directory' : code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
        }
        raws.push(parseFile(f, text));
      }
    }
    const merge = (key: 'clusters' | 'users' | 'contexts') => {
      const m = new Map<string, unknown>();
      for (const r of raws) for (const [k, v] of r[key]) if (!m.has(k)) m.set(k, v);
      return m;
    };
    const current = raws.find((r) => r.currentContext)?.currentContext ?? '';
    return new KubeconfigSet(raws.map((r) => r.path).filter(Boolean), merge('clusters'), merge('users'), merge('contexts'), current);
  }

  /** Every context (names and servers only), for display: a password in a server URL reads "***". */
  contexts(): ContextInfo[] {
    return [...this.contextEntries.entries()].map(([name, e]) => {
      const c = ((e as { context?: Record<string, unknown> }).context ?? {}) as Record<string, unknown>;
      const cluster = typeof c.cluster === 'string' ? c.cluster : '';
      const server = ((this.clusters.get(cluster) as { cluster?: { server?: unknown } } | undefined)?.cluster?.server ?? '') as unknown;
      return {
        name,
        cluster,
        user: typeof c.user === 'string' ? c.user : '',
        ...(typeof c.namespace === 'string' && c.namespace !== '' ? { namespace: c.namespace } : {}),
        server: redactedUrl(typeof server === 'string' ? server : ''),
      };
    });
  }

  /** The context (default: current-context), validated: its cluster with a usable server, its user. */
  connect(context?: string): KubeConnection {
    const name = context || this.currentContext;
    if (!name) throw new KubeConfigError('the kubeconfig has no current-context; choose a context (--context)');
    const entry = this.contextEntries.get(name) as { context?: { cluster?: unknown; user?: unknown } } | undefined;
    if (!entry) throw new KubeConfigError(`context ${quoted(name)} is not in the kubeconfig`);
    const clusterName = entry.context?.cluster;
    const userName = entry.context?.user;
    const cluster = typeof clusterName === 'string' ? this.clusters.get(clusterName) : undefined;
    if (!cluster) throw new KubeConfigError(`context ${quoted(name)} names cluster ${quoted(clusterName ?? '')}, which is not in the kubeconfig`);
    const server = (cluster as { cluster?: { server?: unknown } }).cluster?.server;
    if (typeof server !== 'string' || !/^https?:\/\//.test(server)) {
      throw new KubeConfigError(`cluster ${quoted(clusterName)} has no usable server URL`);
    }
    const user = typeof userName === 'string' ? this.users.get(userName) : undefined;
    // Only the entries the context uses reach client-node, so a broken unrelated entry cannot fail it.
    const kc = new KubeConfig();
    const doc = {
      clusters: [cluster],
      users: user ? [user] : [{ name: typeof userName === 'string' && userName ? userName : 'anonymous', user: {} }],
      contexts: [{ ...(entry as object), context: { ...entry.context, user: typeof userName === 'string' && userName ? userName : 'anonymous' } }],
      'current-context': name,
    };
    try {
      kc.loadFromString(yaml.dump(doc));
    } catch (e) {
      throw new KubeConfigError(`context ${quoted(name)}: ${String((e as Error).message).split(/[\r\n\u2028\u2029]/)[0]}`);
    }
    return KubeConnection.fromKubeConfig(kc, this);
  }
}

/**
 * One selected context of one kubeconfig: the cluster URL, the default namespace and a way to
 * build authenticated request options. Immutable once made; choose another context with withContext().
 */
export class KubeConnection {
  private constructor(
    private readonly kc: KubeConfig,
    readonly context: ContextInfo,
    private readonly set: KubeconfigSet,
  ) {}

  /** client-go's loading rules (KubeconfigSet), then the context asked for or the current one. */
  static load(opts: LoadOptions = {}): KubeConnection {
    return KubeconfigSet.load(opts).connect(opts.context);
  }

  /** @internal KubeconfigSet.connect's result: a KubeConfig holding exactly one valid context. */
  static fromKubeConfig(kc: KubeConfig, set: KubeconfigSet): KubeConnection {
    const name = kc.getCurrentContext();
    const ctx = kc.getContextObject(name)!;
    const cluster = kc.getCurrentCluster()!;
    return new KubeConnection(
      kc,
      { name, cluster: ctx.cluster, user: ctx.user, ...(ctx.namespace ? { namespace: ctx.namespace } : {}), server: cluster.server.replace(/\/+$/, '') },
      set,
    );
  }

  /** The same kubeconfig with another context selected. */
  withContext(name: string): KubeConnection {
    return this.set.connect(name);
  }

  /** Every context of the kubeconfig (names and servers only), for display. */
  contexts(): ContextInfo[] {
    return this.set.contexts();
  }

  get server(): string {
    return this.context.server;
  }

  /**
   * The selected context's kubeconfig (its cluster, user and context, credentials included), as
   * KubeConnection.load({ kubeconfigYaml }) takes it: how an engine worker thread connects the same
   * way. Never for a trace, log or message.
   */
  kubeconfigYaml(): string {
    return this.kc.exportConfig();
  }

  /**
   * Node https options for one request to `url`: TLS material, proxy agent and the
   * Authorization header, refreshed per call (exec/OIDC tokens rotate).
   */
  async requestOptions(headers: Record<string, string>): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = { headers: { ...headers } };
    const cluster = this.kc.getCurrentCluster();
    if (this.server.startsWith('http:') && !cluster?.skipTLSVerify && !cluster?.proxyUrl) {
      // client-node refuses plain-HTTP servers unless insecure-skip-tls-verify is set; kubectl
      // (and our sandbox cluster) use them. Apply only the auth headers and keep Node's agent.
      const withOptions = this.kc as unknown as { applyOptions?: (o: https.RequestOptions) => Promise<void> };
      if (typeof withOptions.applyOptions === 'function') {
        await withOptions.applyOptions.call(this.kc, opts);
        return this.withBasicAuth(opts);
      }
    }
    await this.kc.applyToHTTPSOptions(opts);
    return this.withBasicAuth(opts);
  }

  /**
   * Username/password of the kubeconfig user as `Authorization: Basic …`, whatever the scheme, like
   * client-go's BasicAuthRoundTripper (HasBasicAuth: a username; the password may be empty). client-node
   * only sets it (as `auth`) on its HTTPS path. An Authorization header already there (a bearer
   * token, an auth plugin's) is kept, as the round tripper keeps one. The value is never logged.
   */
  private withBasicAuth(opts: https.RequestOptions): https.RequestOptions {
    const user = this.kc.getCurrentUser();
    const username = typeof user?.username === 'string' ? user.username : '';
    if (!username) return opts;
    // client-node's `user:password` form (with "undefined" for a missing password) is not used.
    delete opts.auth;
    const headers = (opts.headers ??= {}) as Record<string, string | string[] | number | undefined>;
    const has = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization' && headers[k] !== undefined && headers[k] !== '');
    if (!has) {
      const password = typeof user?.password === 'string' ? user.password : '';
      headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
    }
    return opts;
  }
}

/** A name from the kubeconfig in double quotes, escaped so that the message stays one line. */
function quoted(name: unknown): string {
  return JSON.stringify(String(name)).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
