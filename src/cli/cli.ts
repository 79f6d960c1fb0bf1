/**
 * The `informer-inspector` command line (shared/spec/contracts.md §3, docs/cli.md). Every
 * failure ends as one line on stderr: bad input exits 2, a failed run 1; no stack traces
 * (set INFORMER_INSPECTOR_DEBUG=1 to see one for an unexpected error).
 */
import { BadInputError } from '../app/errors';
import { checkConsistencyCommand } from './checkConsistencyCommand';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, type CliIo } from './io';
import { profilesCommand } from './profilesCommand';
import { recordCommand } from './recordCommand';
import { replayCommand } from './replayCommand';
import { sandboxCommand } from './sandboxCommand';
import { summarizeCommand } from './summarizeCommand';

type Command = (args: string[], io: CliIo) => number | Promise<number>;

const COMMANDS: Record<string, Command> = {
  replay: replayCommand,
  record: recordCommand,
  'check-consistency': checkConsistencyCommand,
  sandbox: sandboxCommand,
  summarize: summarizeCommand,
  profiles: profilesCommand,
};

export const USAGE = `usage: informer-inspector <command> [options]

  replay SCENARIO.json [--profile P] [--log OUT.ndjson] [--trace OUT.json] [--seed N]
  record --resource PLURAL[.GROUP] [--kubeconfig F] [--context C] [--namespace N] [--selector S]
         [--profile P] [--duration 60s] [--log OUT.ndjson] [--trace OUT.json] [--quiet]
         [--fault NAME[=VALUE][@AT]]... [--check-consistency AT]... [--consistency-every D]
  check-consistency --resource PLURAL[.GROUP] [--kubeconfig F] [--context C] [--namespace N]
         [--selector S] [--profile P] [--wait D] [--timeout D] [--trace OUT.json]
  sandbox [--scenario NAME] [--port N]
  summarize TRACE.json [--perfetto OUT.json]
  profiles
`;

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.stderr : io.stdout)(USAGE);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(`unknown command "${name}" (one of: ${Object.keys(COMMANDS).join(', ')})`);
    return await command(args, io);
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
