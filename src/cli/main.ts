/** Entry point of the `informer-inspector` bin (bundled to dist/cli.js by esbuild.mjs). */
import { runCli } from './cli';
import { nodeIo } from './io';

function main(): void {
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
