/**
 * Tests and benchmarks run the engine worker (and the spill reader beside it) from bundles made
 * here (esbuild, once per process, when the first worker session starts) instead of the
 * TypeScript source under tsx, which takes seconds to load in every worker. The bundles are
 * removed when the process exits.
 */
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureSessions } from '../../src/app/sessions';

let bundled: string | undefined;

/** The path of a bundle of src/app/engineWorker.ts, with spillReaderWorker.js beside it (built on first call). */
export function engineWorkerBundle(): string {
  if (bundled) return bundled;
  const dir = mkdtempSync(join(tmpdir(), `informer-inspector-workers-${process.pid}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const entry of ['engineWorker', 'spillReaderWorker']) {
    buildSync({ entryPoints: [join(__dirname, `../../src/app/${entry}.ts`)], outfile: join(dir, `${entry}.js`), bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  }
  return (bundled = join(dir, 'engineWorker.js'));
}

/** Makes later sessions of this process run their worker from the bundle. */
export function useBundledEngineWorker(): void {
  configureSessions({ workerFile: engineWorkerBundle });
}

useBundledEngineWorker();
