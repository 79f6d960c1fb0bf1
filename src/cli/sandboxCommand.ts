/**
 * `informer-inspector sandbox [--scenario NAME] [--port N]`: starts the simulated cluster
 * (src/sources/sandbox.ts), prints a kubeconfig for it on stdout and its storyline on stderr,
 * and runs until interrupted.
 */
import { startSandbox, STORYLINES } from '../app/sessions';
import { intOption, jsonOutput, jsonText, parseCommandArgs, stringOption } from './args';
import { EXIT_OK, UsageError, type CliIo } from './io';

export async function sandboxCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs('sandbox', args, { scenario: { type: 'string' }, port: { type: 'string' } }, 0);
  const scenario = stringOption(parsed, 'scenario');
  if (scenario !== undefined && !(STORYLINES as readonly string[]).includes(scenario)) {
    throw new UsageError(`unknown sandbox scenario "${scenario}" (one of: ${STORYLINES.join(', ')})`);
  }
  const json = jsonOutput(parsed);
  const port = intOption(parsed, 'port');
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  let sandbox;
  try {
    sandbox = await startSandbox({ scenario, port, writeKubeconfig: true, onLog: (line) => io.stderr(line + '\n') });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new UsageError(`cannot listen on port ${port}: ${code}`);
    throw e;
  }
  io.stderr(`SIMULATED sandbox (${sandbox.scenario}) at ${sandbox.url}; kubeconfig at ${sandbox.kubeconfigPath ?? '(not written)'}; Ctrl-C stops it\n`);
  if (json) io.stdout(jsonText({ url: sandbox.url, scenario: sandbox.scenario, kubeconfigPath: sandbox.kubeconfigPath ?? null, kubeconfig: sandbox.kubeconfigYaml }));
  else io.stdout(sandbox.kubeconfigYaml);
  await Promise.race([io.interrupted(), sandbox.stopped]);
  await sandbox.stop();
  return EXIT_OK;
}
