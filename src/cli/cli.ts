/**
 * The `informer-inspector` command line (shared/spec/contracts.md §3, docs/cli.md). Every
 * failure ends as one line on stderr: bad input exits 2, a failed run 1; no stack traces
 * (set INFORMER_INSPECTOR_DEBUG=1 to see one for an unexpected error).
 */
import { BadInputError } from '../app/errors';
import { checkConsistencyCommand } from './checkConsistencyCommand';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, type CliIo } from './io';
import { observeCommand } from './observeCommand';
import { profilesCommand } from './profilesCommand';
import { recordCommand } from './recordCommand';
import { replayCommand } from './replayCommand';
import { sandboxCommand } from './sandboxCommand';
import { summarizeCommand } from './summarizeCommand';
import { jsonOutput, jsonText, parseCommandArgs } from './args';
import { STORYLINES } from '../app/sessions';
import { TOOL_VERSION } from '../format/tool';

type Command = (args: string[], io: CliIo) => number | Promise<number>;

const TARGET_HELP = `  RESOURCE                 plural, plural.group, kind or short name, as kubectl takes it (or --resource)
  -n, --namespace NS       default: the context's namespace, else "default"
  -A, --all-namespaces     every namespace
  -l, --selector SEL       label selector, e.g. app=web,tier!=db
      --field-selector SEL field selector, e.g. metadata.name=x
      --context NAME       kubeconfig context (default: current-context)
      --kubeconfig FILE    this file only (default: $KUBECONFIG, then ~/.kube/config)
      --profile P          client-go line to emulate (see \`informer-inspector profiles\`)`;

const COMMANDS: Record<string, { run: Command; summary: string; help: string }> = {
  record: {
    run: recordCommand,
    summary: 'run an informer against a cluster (GET only) and record what it does',
    help: `usage: informer-inspector record RESOURCE [options]

Runs the engine against a real cluster for --duration, with a progress line on stderr every
--progress-every; then writes the notification log (stdout, or --log) and the trace (--trace)
and prints the findings on stderr. Exit 1 when the server refused access (401/403/404).

${TARGET_HELP}
      --duration D         how long to record (default 60s; 90s, 2m, 1h30m)
      --log FILE           notification log (NDJSON) to FILE instead of stdout
      --trace FILE         the trace (informer-trace/v1 JSON)
      --fault NAME[=V][@AT]  inject a fault (repeatable; see docs/cli.md)
      --check-consistency AT  compare the cache with a fresh LIST at AT (repeatable)
      --consistency-every D   ... and every D
      --progress-every D   progress period on stderr (default 10s)
  -q, --quiet              nothing on stderr except errors
  -o, --output json        a JSON summary (findings included) on stdout instead of the log
`,
  },
  'check-consistency': {
    run: checkConsistencyCommand,
    summary: "sync an informer, then compare its cache with the server's",
    help: `usage: informer-inspector check-consistency RESOURCE [options]

Syncs an informer, lets it run for --wait, then compares its cache with a consistent LIST.
Exit 0 when they match, 1 when the cache is stale or the informer never synced.

${TARGET_HELP}
      --wait D             run this long after the sync before checking (default 0s)
      --timeout D          give up syncing after D (default 60s)
      --trace FILE         the trace (informer-trace/v1 JSON)
  -o, --output json        the result as JSON
`,
  },
  replay: {
    run: replayCommand,
    summary: 'run a scenario file through the engine in virtual time',
    help: `usage: informer-inspector replay SCENARIO.json [options]

Runs the scenario through the engine; writes the notification log (stdout, or --log) and
optionally the trace. Exit 0 when the run ends without divergence.

      --profile P          client-go line to emulate (default: the scenario's or v1.36)
      --log FILE           notification log to FILE instead of stdout
      --trace FILE         the trace (informer-trace/v1 JSON)
      --seed N             jitter seed
  -o, --output json        outcome, divergence and log as JSON
`,
  },
  sandbox: {
    run: sandboxCommand,
    summary: 'start the SIMULATED cluster on loopback and print its kubeconfig',
    help: `usage: informer-inspector sandbox [options]

Starts the simulated API server on 127.0.0.1, prints a kubeconfig for it on stdout and runs
until Ctrl-C.

      --scenario NAME      storyline (${'${STORYLINES}'})
      --port N             port to listen on (default: a free one)
  -o, --output json        url, scenario and kubeconfig as JSON
`,
  },
  summarize: {
    run: summarizeCommand,
    summary: 'print the findings of a trace file',
    help: `usage: informer-inspector summarize TRACE.json [-o json] [--perfetto OUT.json]

Prints the trace header, the summary (relists by reason and how many had their LIST refused,
lists, watches, identical updates, tombstones: the timeline header's counts), the findings (most
severe first, with evidence and advice) and how many events of each type the trace holds.
--perfetto OUT.json also writes the trace as Chrome trace-event JSON: open it in
https://ui.perfetto.dev ("Open trace file").
`,
  },
  profiles: {
    run: profilesCommand,
    summary: 'list the client-go profiles and what each changes',
    help: `usage: informer-inspector profiles [-o json]

Lists the emulated client-go lines and what each changes.
`,
  },
  observe: {
    run: observeCommand,
    summary: "watch another process's informers through an observing proxy (docs/observe.md)",
    help: `usage: informer-inspector observe --kubeconfig-out FILE [options]

Starts the observing proxy on loopback, writes a kubeconfig for the process to observe to
--kubeconfig-out, and reconstructs that process's informers until Ctrl-C; then writes the
notification log of every reconstructed informer and the traces.

      --kubeconfig-out FILE    the kubeconfig to give the observed process
      --kubeconfig K           the real cluster's kubeconfig
      --context C              its context
      --listen 127.0.0.1:PORT  where the proxy listens
      --trace OUT.json         the traces
      --log OUT.ndjson         the notification logs
      --profile P | --go-mod go.mod   the observed process's client-go line
      --quiet
      --keep-protobuf-watches | --rewrite-protobuf-watches
`,
  },
  version: {
    run: (args, io) => {
      const parsed = parseCommandArgs('version', args, {}, 0);
      io.stdout(jsonOutput(parsed) ? jsonText({ name: 'informer-inspector', version: TOOL_VERSION }) : `informer-inspector ${TOOL_VERSION}\n`);
      return EXIT_OK;
    },
    summary: 'print the version',
    help: 'usage: informer-inspector version [-o json]   (also: informer-inspector --version)\n',
  },
};

export const USAGE = `usage: informer-inspector <command> [options]
       kubectl informer <command> [options]      (as a kubectl plugin)

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(18)} ${c.summary}`)
  .join('\n')}

\`informer-inspector <command> --help\` shows a command's options; --version prints the version.
examples:
  informer-inspector record configmaps -n kube-system --duration 2m --trace cm.json
  informer-inspector record widgets.example.com -A -l app=web -o json
  informer-inspector summarize cm.json
`;

/** True when the arguments ask for help (before a `--` that ends the options). */
function wantsHelp(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic && COMMANDS[topic]) {
      io.stdout(COMMANDS[topic].help.replace('${STORYLINES}', STORYLINES.join(', ')));
      return EXIT_OK;
    }
    (name === undefined ? io.stderr : io.stdout)(USAGE);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`informer-inspector ${TOOL_VERSION}\n`);
    return EXIT_OK;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(`unknown command "${name}" (one of: ${Object.keys(COMMANDS).join(', ')}; see --help)`);
    if (wantsHelp(args)) {
      io.stdout(command.help.replace('${STORYLINES}', STORYLINES.join(', ')));
      return EXIT_OK;
    }
    return await command.run(args, io);
  } catch (e) {
    if (e instanceof BadInputError) {
      io.stderr(`informer-inspector: ${e.message.split('\n').join('\ninformer-inspector: ')}\n`);
      return EXIT_USAGE;
    }
    io.stderr(`informer-inspector ${name}: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.INFORMER_INSPECTOR_DEBUG && e instanceof Error && e.stack) io.stderr(e.stack + '\n');
    return EXIT_FAILED;
  }
}
