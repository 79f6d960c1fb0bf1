/**
 * The trace reader's worker (src/app/traceReadWorker.ts) as a bundle made here (esbuild, once per
 * process), as engineWorker.ts does for the engine worker: a worker under tsx takes seconds to load.
 */
import { buildSync } from 'esbuild';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let bundled: string | undefined;

/** The path of a bundle of src/app/traceReadWorker.ts (built on first call, removed when the process exits). */
export function traceReadWorkerBundle(): string {
  if (bundled) return bundled;
  const out = join(tmpdir(), `informer-inspector-trace-read-worker-${process.pid}.js`);
  buildSync({ entryPoints: [join(__dirname, '../../src/app/traceReadWorker.ts')], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  process.once('exit', () => rmSync(out, { force: true }));
  return (bundled = out);
}
