// Builds six bundles: the extension host (node/cjs, 'vscode' external), its engine worker, spill
// reader worker and trace reader worker (node/cjs, loaded by src/app/workerSession.ts and
// src/app/traceRead.ts from beside the bundle), the webview (browser/iife) and the CLI (node/cjs).
// `--watch` rebuilds on change, `--production` minifies.
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints errors in the shape VS Code's $esbuild-watch problem matcher reads. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

/**
 * The trace schema's checks generated ahead of time (scripts/traceValidators.cjs) in place of
 * src/trace/schema/validators.ts, which compiles them at run time: a bundle compiles no schema
 * when a trace is opened.
 */
const require = createRequire(import.meta.url);
const traceValidators = {
  name: 'trace-validators',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]trace[\\/]schema[\\/]validators\.ts$/ }, () => {
      const generator = require('./scripts/traceValidators.cjs');
      return { contents: generator.generate(), loader: 'js', resolveDir: dirname(fileURLToPath(import.meta.url)) };
    });
  },
};

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', plugins: [problemMatcher, traceValidators] };

const targets = [
  { entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { entryPoints: ['src/app/engineWorker.ts'], outfile: 'dist/engineWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  { entryPoints: ['src/app/spillReaderWorker.ts'], outfile: 'dist/spillReaderWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  { entryPoints: ['src/app/traceReadWorker.ts'], outfile: 'dist/traceReadWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['webview/main.ts'], outfile: 'media/webview/main.js', platform: 'browser', format: 'iife', target: 'es2022' },
].filter((t) => existsSync(t.entryPoints[0]));

const contexts = await Promise.all(targets.map((t) => esbuild.context({ ...common, ...t })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
