/**
 * `informer-inspector observe --kubeconfig K [--context C] --listen 127.0.0.1:PORT
 *  --kubeconfig-out FILE [--trace OUT.json] [--log OUT.ndjson] [--profile P | --go-mod go.mod]
 *  [--keep-protobuf-watches | --rewrite-protobuf-watches]`
 * Starts the observing proxy (docs/observe.md), writes the kubeconfig for the process to observe,
 * and reconstructs that process's informers until SIGINT/SIGTERM; then writes the notification
 * log of every reconstructed informer (each line with a `reflector` field) and the traces.
 */
import { notReconstructedWhy, ObserveSession, profileFromGoMod, ProxyError } from '../app/observation';
import { DEFAULT_PROFILE, profileNamed } from '../app/profiles';
import { connect } from '../app/resources';
import { parseCommandArgs, stringOption } from './args';
import { EXIT_OK, readInput, UsageError, writeOutput, type CliIo } from './io';

export async function observeCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(
    'observe',
    args,
    {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      listen: { type: 'string' },
      'kubeconfig-out': { type: 'string' },
      trace: { type: 'string' },
      log: { type: 'string' },
      profile: { type: 'string' },
      'go-mod': { type: 'string' },
      quiet: { type: 'boolean' },
      'keep-protobuf-watches': { type: 'boolean' },
      'rewrite-protobuf-watches': { type: 'boolean' },
    },
    0,
  );
  const out = stringOption(parsed, 'kubeconfig-out');
  if (!out) throw new UsageError('observe: --kubeconfig-out FILE is required (the kubeconfig the observed process uses)');
  const { host, port } = listenAddress(stringOption(parsed, 'listen') ?? '127.0.0.1:0');
  const quiet = parsed.values.quiet === true;
  const note = (t: string) => {
    if (!quiet) io.stderr(t + '\n');
  };

  let profile = profileNamed(stringOption(parsed, 'profile') ?? DEFAULT_PROFILE);
  let profileWhy = stringOption(parsed, 'profile') ? 'chosen' : 'default';
  const goMod = stringOption(parsed, 'go-mod') ?? (stringOption(parsed, 'profile') ? undefined : 'go.mod');
  const goModText = goMod === undefined ? undefined : stringOption(parsed, 'go-mod') ? readInput(io, goMod, 'go.mod') : tryRead(io, goMod);
  if (goMod !== undefined && goModText !== undefined) {
    const fromMod = profileFromGoMod(goModText);
    if (fromMod) {
      profile = fromMod.profile;
      profileWhy = `k8s.io/client-go ${fromMod.clientGo} in ${goMod}`;
    } else if (stringOption(parsed, 'go-mod')) throw new UsageError(`observe: ${goMod} does not require k8s.io/client-go`);
  }

  const conn = connect({ kubeconfigPath: stringOption(parsed, 'kubeconfig'), context: stringOption(parsed, 'context') });
  let session: ObserveSession;
  const unreadableNoted = new Set<string>();
  try {
    session = await ObserveSession.start({
      conn,
      profile,
      host,
      port,
      ...(parsed.values['keep-protobuf-watches'] === true ? { rewriteProtobufWatches: false } : {}),
      ...(parsed.values['rewrite-protobuf-watches'] === true ? { rewriteProtobufWatches: true } : {}),
      onFinding: (f) => note(`finding [${f.reflector}]: ${f.title}. ${f.detail} Likely: ${f.likelyCauses.join('; ')}.`),
      onNotice: (n) => {
        if (n.kind === 'unauthorized') note(`refused ${n.method} ${n.path}: wrong or missing token (401, not forwarded)`);
        else if (n.kind === 'unreadable') {
          // Once per reflector: a protobuf-only client sends one such request per list and watch.
          if (!unreadableNoted.has(n.reflector)) note(`cannot reconstruct ${n.reflector} (${n.method} ${n.path}): ${notReconstructedWhy(n.accept)}`);
          unreadableNoted.add(n.reflector);
        } else if (n.kind === 'upstream-refused') note(`the API server refused the connection for ${n.method} ${n.path}: not listening until it accepts again`);
        else if (n.kind === 'listening-again') note(`the API server accepts connections again; listening on port ${n.port}`);
        else note(`upstream error for ${n.method} ${n.path}: ${n.text}`);
      },
    });
  } catch (e) {
    if (e instanceof ProxyError) throw new UsageError(`observe: ${e.message}`);
    throw e;
  }
  try {
    writeOutput(io, out, session.proxy.kubeconfigYaml(), 'kubeconfig');
  } catch (e) {
    await session.stop();
    throw e;
  }
  note(`observing through ${session.proxy.url} for context ${conn.context.name} (profile ${profile.name}: ${profileWhy})`);
  note(`run the process with KUBECONFIG=${out}; Ctrl-C stops`);
  await io.interrupted();
  await session.stop();

  const logPath = stringOption(parsed, 'log');
  if (logPath !== undefined) writeOutput(io, logPath, session.logText(), 'log');
  const tracePath = stringOption(parsed, 'trace');
  if (tracePath !== undefined) for (const f of session.traceFiles(tracePath)) writeOutput(io, f.path, f.text, 'trace');
  const s = session.summary();
  note(
    `observed ${s.proxy.forwarded} requests (${s.proxy.observed} lists/watches, ${s.proxy.unauthorized} refused for a bad token); ` +
      `${s.reflectors.length} informers reconstructed, ${s.reflectors.reduce((n, r) => n + r.notifications, 0)} notifications`,
  );
  for (const r of s.reflectors) note(`  ${r.reflector}: ${r.requests} requests, ${r.notifications} notifications, ${r.findings.length} findings`);
  return EXIT_OK;
}

/** 127.0.0.1:PORT, [::1]:PORT, localhost:PORT or a bare port (127.0.0.1); loopback only. */
export function listenAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(text) ?? (/^\d+$/.test(text) ? [text, undefined, '127.0.0.1', text] : null);
  const host = m ? (m[1] ?? m[2]) : undefined;
  const port = m ? Number(m[3]) : NaN;
  if (!host || !Number.isInteger(port) || port > 65535) throw new UsageError(`observe: --listen must be HOST:PORT, got "${text}"`);
  if (!['127.0.0.1', '::1', 'localhost'].includes(host)) throw new UsageError(`observe: --listen must be a loopback address (127.0.0.1, [::1], localhost), got "${host}"`);
  return { host, port };
}

/** The workspace's go.mod when there is one (its absence is not an error). */
function tryRead(io: CliIo, path: string): string | undefined {
  try {
    return io.readFile(path);
  } catch {
    return undefined;
  }
}
