/**
 * Kubeconfig loading, context selection and authenticated request options, through
 * @kubernetes/client-node (which implements token, token-file, client-cert, exec and OIDC auth,
 * proxies and tls-server-name). Credentials never leave this module except inside the Node
 * request options handed to https.request; nothing here logs or stringifies them.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
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
  /** A kubeconfig file, or several joined with the platform's path delimiter like $KUBECONFIG. Default: $KUBECONFIG, then ~/.kube/config. */
  kubeconfigPath?: string;
  /** Kubeconfig YAML given inline (takes precedence over kubeconfigPath). */
  kubeconfigYaml?: string;
  /** The context to use; default: current-context. */
  context?: string;
}

export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
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
  ) {}

  static load(opts: LoadOptions = {}): KubeConnection {
    const kc = new KubeConfig();
    try {
      if (opts.kubeconfigYaml !== undefined) kc.loadFromString(opts.kubeconfigYaml);
      else if (opts.kubeconfigPath) loadPaths(kc, opts.kubeconfigPath);
      else kc.loadFromDefault();
    } catch (e) {
      // Only the first line: YAML parse errors go on with a snippet of the file, which may hold credentials.
      throw new KubeConfigError(`cannot load kubeconfig: ${String((e as Error).message).split(/[\r\n\u2028\u2029]/)[0]}`);
    }
    return KubeConnection.select(kc, opts.context);
  }

  private static select(kc: KubeConfig, context?: string): KubeConnection {
    const name = context || kc.getCurrentContext();
    if (!name) throw new KubeConfigError('the kubeconfig has no current-context; choose a context');
    const ctx = kc.getContextObject(name);
    if (!ctx) throw new KubeConfigError(`context ${quoted(name)} is not in the kubeconfig`);
    kc.setCurrentContext(name);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new KubeConfigError(`context ${quoted(name)} names cluster ${quoted(ctx.cluster)}, which is not in the kubeconfig`);
    if (!/^https?:\/\//.test(cluster.server)) throw new KubeConfigError(`cluster ${quoted(cluster.name)} has no usable server URL`);
    return new KubeConnection(kc, {
      name,
      cluster: ctx.cluster,
      user: ctx.user,
      namespace: ctx.namespace,
      server: cluster.server.replace(/\/+$/, ''),
    });
  }

  /** The same kubeconfig with another context selected. */
  withContext(name: string): KubeConnection {
    const kc = new KubeConfig();
    kc.loadFromString(this.kc.exportConfig());
    return KubeConnection.select(kc, name);
  }

  /** Every context of the kubeconfig (names and servers only), for display: a password in a server URL reads "***". */
  contexts(): ContextInfo[] {
    return this.kc.getContexts().map((c) => ({
      name: c.name,
      cluster: c.cluster,
      user: c.user,
      namespace: c.namespace,
      server: redactedUrl(this.kc.getCluster(c.cluster)?.server ?? ''),
    }));
  }

  get server(): string {
    return this.context.server;
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

function loadPaths(kc: KubeConfig, paths: string): void {
  const delimiter = process.platform === 'win32' ? ';' : ':';
  const listed = paths.split(delimiter).filter((p) => p !== '');
  // Like client-go's loading rules, a file missing from a list of several is skipped (kubectl works
  // with such a $KUBECONFIG); a single path, or a list where none exists, still fails on the first.
  const existing = listed.filter((p) => existsSync(p));
  const files = listed.length > 1 && existing.length > 0 ? existing : listed;
  if (files.length === 1) {
    kc.loadFromFile(files[0]);
    return;
  }
  // Several files merge like $KUBECONFIG: client-node does that in loadFromDefault.
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = files.join(delimiter);
  try {
    kc.loadFromDefault();
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  }
}
