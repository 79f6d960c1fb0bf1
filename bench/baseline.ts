/**
 * Before/after in one run: the code of a git revision, unpacked next to the working tree's, so a
 * benchmark can run both side by side under the same machine load (the webview bundle of (e),
 * the TraceRecorder of (a)). The baseline's recorder is assumed to keep the working tree's API. Only webview/ and src/ are unpacked; node_modules is the working
 * tree's (a bundler is pointed at it; tsx resolves it by walking up from the repository).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceRecorder } from '../src/trace/recorder';

export const REPO = join(__dirname, '..');

/** Unpacks webview/ and src/ of `revision` into a fresh directory under the repository's .cache/. */
export function unpackRevision(revision: string): { root: string; remove: () => void } {
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  const root = mkdtempSync(join(REPO, '.cache', 'bench-baseline-'));
  const tar = execFileSync('git', ['-C', REPO, 'archive', revision, 'webview', 'src'], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** The TraceRecorder class of `revision` (src/trace/recorder.ts and what it imports, loaded through tsx). */
export function baselineRecorder(revision: string): typeof TraceRecorder {
  const unpacked = unpackRevision(revision);
  try {
    const mod = require(join(unpacked.root, 'src', 'trace', 'recorder.ts')) as { TraceRecorder: typeof TraceRecorder };
    return mod.TraceRecorder;
  } finally {
    unpacked.remove();
  }
}

/** exportTrace and importTrace of `revision` (src/trace/traceFile.ts and what it imports, loaded through tsx). */
export function baselineTraceFile(revision: string): Pick<typeof import('../src/trace/traceFile'), 'exportTrace' | 'importTrace'> {
  const unpacked = unpackRevision(revision);
  try {
    return require(join(unpacked.root, 'src', 'trace', 'traceFile.ts')) as typeof import('../src/trace/traceFile');
  } finally {
    unpacked.remove();
  }
}
