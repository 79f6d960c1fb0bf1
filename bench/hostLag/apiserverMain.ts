/**
 * The paced apiserver (pacedApiserver.ts) in a process of its own, so the rate it offers does
 * not depend on the runner's thread:
 *
 *   node --import tsx bench/hostLag/apiserverMain.ts <objects> <rate> <seconds>
 *
 * Prints one JSON line {url} once it listens on 127.0.0.1; when a line comes on stdin (or stdin
 * closes) it stops, prints one JSON line of PacedStats and exits. It exits by itself
 * `seconds` + 120 s after starting, whatever happens.
 */
import { PacedApiserver } from './pacedApiserver';

async function main(): Promise<void> {
  const [objects, rate, seconds] = process.argv.slice(2).map(Number);
  if (![objects, rate, seconds].every((x) => Number.isFinite(x) && x > 0)) throw new Error('usage: apiserverMain.ts <objects> <rate> <seconds>');
  const server = new PacedApiserver({ objects, rate, seconds });
  const url = await server.start();
  const guard = setTimeout(() => process.exit(2), (seconds + 120) * 1000);
  process.stdout.write(JSON.stringify({ url }) + '\n');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    clearTimeout(guard);
    process.stdout.write(JSON.stringify(server.stats) + '\n', () => process.exit(0));
  };
  process.stdin.on('data', () => void stop());
  process.stdin.on('end', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`paced apiserver: ${(e as Error).message}\n`);
  process.exit(1);
});
