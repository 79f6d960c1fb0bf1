/**
 * Tests and benchmarks run the engine worker from a bundle made here (esbuild, once per process,
 * when the first worker session starts) instead of the TypeScript source under tsx, which takes
 * seconds to load in every worker. The bundle is removed when the process exits.
 */
import { buildSync } from 'esbuild';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureSessions } from '../../src/app/sessions';

let bundled: string | undefined;

/** The path of a bundle of src/app/engineWorker.ts (built on first call). */
export function engineWorkerBundle(): string {
  if (bundled) return bundled;
  const out = join(tmpdir(), `informer-inspector-engine-worker-${process.pid}.js`);
  buildSync({ entryPoints: [join(__dirname, '../../src/app/engineWorker.ts')], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  process.once('exit', () => rmSync(out, { force: true }));
  return (bundled = out);
}

/** Makes later sessions of this process run their worker from the bundle. */
export function useBundledEngineWorker(): void {
  configureSessions({ workerFile: engineWorkerBundle });
}

useBundledEngineWorker();
