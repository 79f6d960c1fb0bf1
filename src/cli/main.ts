/** Entry point of the `informer-inspector` bin (bundled to dist/cli.js by esbuild.mjs). */
import { runCli } from './cli';
import { guardPipe, nodeIo } from './io';

function main(): void {
  guardPipe(process.stdout, (code) => process.exit(code), (t) => void process.stderr.write(t));
  guardPipe(process.stderr, (code) => process.exit(code), () => undefined);
  runCli(process.argv.slice(2), nodeIo).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`informer-inspector: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

main();
