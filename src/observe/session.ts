/**
 * One observation: the observing proxy for a kubeconfig context plus the reconstruction of the
 * observed process's informers. Used by `informer-inspector observe` and the VS Code debug hook.
 */
import { basename, dirname, extname, join } from 'node:path';
import { findProfile, type Profile } from '../engine/profiles';
import type { KubeConnection } from '../kube/kubeconfig';
import { formatLog } from '../scenario/notificationLog';
import { exportTrace } from '../trace/traceFile';
import type { ObservedExchange, ProxyNotice, ProxyStats } from './exchange';
import { ObservingProxy } from './proxy';
import { Reconstructor, type ObservedLogLine, type ObservedReflector, type ObserveFinding } from './reconstruct';

export interface ObserveSessionOptions {
  conn: KubeConnection;
  profile: Profile;
  host?: string;
  port?: number;
  token?: string;
  cap?: number;
  onLine?: (l: ObservedLogLine) => void;
  onFinding?: (f: ObserveFinding) => void;
  onNotice?: (n: ProxyNotice) => void;
  onForward?: (f: { method: string; uri: string }) => void;
  onReflector?: (r: ObservedReflector) => void;
  /** Every observed list/watch, after the session's own reconstruction took it (a second reconstruction, e.g. under another profile, can follow the same traffic). */
  onExchange?: (x: ObservedExchange) => void;
  /** See ObservingProxyOptions.rewriteProtobufWatches; default: false for the v1.15 profile, true otherwise. */
  rewriteProtobufWatches?: boolean;
}

/** A reflector of the process the proxy could not read: forwarded unchanged, not reconstructed. */
export interface NotReconstructed {
  reflector: string;
  userAgent: string;
  /** The client's Accept header. */
  accept: string;
  /** Its lists and watches the proxy forwarded unchanged. */
  requests: number;
  /** Why it is not on the timeline, in one sentence. */
  why: string;
}

/** Why an unreadable reflector is not reconstructed (the CLI, VS Code and the trace index say the same). */
export function notReconstructedWhy(accept: string): string {
  return (
    `the client accepts only ${accept} (no JSON), which the proxy cannot read: its requests are forwarded unchanged and it is not reconstructed; ` +
    'let it accept JSON as well (client-go: AcceptContentTypes "application/vnd.kubernetes.protobuf,application/json", the default with ContentType protobuf)'
  );
}

export class ObserveSession {
  private readonly unreadable = new Map<string, NotReconstructed>();

  private constructor(
    readonly proxy: ObservingProxy,
    readonly reconstructor: Reconstructor,
    readonly profile: Profile,
  ) {}

  /** The reflectors of the process that could not be reconstructed, and why. */
  notReconstructed(): NotReconstructed[] {
    return [...this.unreadable.values()].map((u) => ({ ...u }));
  }

  private noteUnreadable(n: ProxyNotice): void {
    if (n.kind !== 'unreadable') return;
    const known = this.unreadable.get(n.reflector);
    if (known) known.requests++;
    else this.unreadable.set(n.reflector, { reflector: n.reflector, userAgent: n.userAgent, accept: n.accept, requests: 1, why: notReconstructedWhy(n.accept) });
  }

  static async start(o: ObserveSessionOptions): Promise<ObserveSession> {
    const reconstructor = new Reconstructor({
      profile: o.profile,
      context: o.conn.context.name,
      cap: o.cap,
      onLine: o.onLine,
      onFinding: o.onFinding,
      onReflector: o.onReflector,
    });
    let session: ObserveSession | undefined;
    const proxy = await ObservingProxy.start({
      conn: o.conn,
      host: o.host,
      port: o.port,
      token: o.token,
      onExchange: (x) => {
        reconstructor.accept(x);
        o.onExchange?.(x);
      },
      onNotice: (n) => {
        session?.noteUnreadable(n);
        o.onNotice?.(n);
      },
      onForward: o.onForward,
      rewriteProtobufWatches: o.rewriteProtobufWatches ?? o.profile.name !== 'v1.15',
    });
    session = new ObserveSession(proxy, reconstructor, o.profile);
    return session;
  }

  /** Stops the proxy (open connections are closed), then the reconstructed informers. */
  async stop(): Promise<void> {
    await this.proxy.close();
    await this.reconstructor.close();
  }

  /** Every reconstructed informer's notification-log lines, reflector by reflector. */
  logLines(): ObservedLogLine[] {
    return this.reconstructor.reflectors().flatMap((r) => r.lines);
  }

  logText(): string {
    return formatLog(this.logLines());
  }

  summary(): ObserveSummary {
    return {
      proxy: { ...this.proxy.stats },
      profile: this.profile.name,
      reflectors: this.reconstructor.reflectors().map((r) => ({
        reflector: r.name,
        userAgent: r.userAgent,
        requests: r.requests,
        notifications: r.notifications,
        findings: r.findings,
      })),
      notReconstructed: this.notReconstructed(),
    };
  }

  /**
   * The traces: one informer-trace/v1 file per reconstructed informer next to `path`
   * (OUT.json → OUT.1.json, OUT.2.json, …) and, in `path` itself, an index naming them.
   */
  traceFiles(path: string): { path: string; text: string }[] {
    const ext = extname(path) || '.json';
    const stem = basename(path, extname(path));
    const files = this.reconstructor.reflectors().map((r, i) => ({ path: join(dirname(path), `${stem}.${i + 1}${ext}`), text: exportTrace(r.recorder) }));
    const summary = this.summary();
    const index = {
      format: 'informer-observe/v1',
      profile: summary.profile,
      proxy: summary.proxy,
      reflectors: summary.reflectors.map((r, i) => ({ ...r, trace: basename(files[i].path) })),
      notReconstructed: summary.notReconstructed,
    };
    return [{ path, text: JSON.stringify(index, null, 2) + '\n' }, ...files];
  }
}

export interface ObserveSummary {
  proxy: ProxyStats;
  profile: string;
  reflectors: { reflector: string; userAgent: string; requests: number; notifications: number; findings: ObserveFinding[] }[];
  notReconstructed: NotReconstructed[];
}

/**
 * The profile for the k8s.io/client-go version a go.mod requires (nearest behaviour: before 1.16
 * → v1.15; 1.16–1.32 → v1.32; 1.33–1.34 → v1.34; 1.35 and later → v1.36); undefined when the
 * go.mod does not require client-go. Old semver tags vN.0.0 (N ≤ 12) are Kubernetes 1.(N+3).
 */
export function profileFromGoMod(text: string): { profile: Profile; clientGo: string } | undefined {
  const m = /^\s*(?:require\s+)?k8s\.io\/client-go\s+(v[0-9][^\s]*)/m.exec(text);
  if (!m) return undefined;
  const version = m[1];
  let minor: number | undefined;
  const zero = /^v0\.(\d+)\./.exec(version);
  const old = /^v(\d+)\.\d+\.\d+/.exec(version);
  if (zero && !/^v0\.0\.0-/.test(version)) minor = Number(zero[1]);
  else if (/^v0\.0\.0-(\d{4})/.test(version)) {
    // A pseudo-version: the commit year says roughly which line (kubernetes-1.15 tags are from 2019).
    const year = Number(/^v0\.0\.0-(\d{4})/.exec(version)![1]);
    minor = year <= 2019 ? 15 : 20;
  } else if (old) minor = Number(old[1]) + 3;
  if (minor === undefined) return undefined;
  const name = minor < 16 ? 'v1.15' : minor <= 32 ? 'v1.32' : minor <= 34 ? 'v1.34' : 'v1.36';
  const profile = findProfile(name);
  return profile ? { profile, clientGo: version } : undefined;
}
