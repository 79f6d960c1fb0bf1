/**
 * Shows a trace of an observed process (docs/observe.md: `observe --trace`, or the traces the
 * observe e2e test keeps with KEEP_E2E_CLUSTER=1) in real VS Code (code-server + chromium), checks
 * that the trace editor shows the file's lists and relists, and takes a screenshot:
 *   npx tsx test/e2e/vscode/observedTrace.ts TRACE.json [SHOT.png]
 * (default test-results/screenshots/observed-trace.png). Prints `N passed, M failed`.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importTrace } from '../../../src/trace/traceFile';
import { ensureCodeServer, packageExtension, startCodeServer } from './codeServer';
import { SHOTS, check, chipValue, results, runCommand, shot, step, openWorkbench, typePath, visibleTimeline } from './workbench';

async function main(): Promise<void> {
  const [tracePath, shotName = 'observed-trace.png'] = process.argv.slice(2);
  if (!tracePath) throw new Error('usage: observedTrace.ts TRACE.json [SHOT.png]');
  mkdirSync(SHOTS, { recursive: true });
  const cs = await startCodeServer(ensureCodeServer(), packageExtension(), 'Default Light Modern');
  const { browser, page } = await openWorkbench(cs.url, { width: 1500, height: 1000 });
  try {
    await step('the observed trace opens in the trace editor with its lists and relists', async () => {
      const file = join(cs.workspace, 'observed.informer-trace.json');
      copyFileSync(tracePath, file);
      const trace = importTrace(readFileSync(file, 'utf8'));
      const relists = trace.events.filter((e) => e.type === 'relist').length;
      await runCommand(page, 'Informer Inspector: Open trace');
      await typePath(page, file);
      const f = await visibleTimeline(page, { area: 'editor', until: async (x) => (await chipValue(x, 'state')).includes('(ended)') });
      await page.waitForTimeout(1500);
      await shot(page, shotName);
      const shown = await chipValue(f, 'relists');
      check(shown.startsWith(`${relists} `) || shown === String(relists), `trace editor relists "${shown}", file has ${relists}`);
    });
  } finally {
    await browser.close();
    cs.stop();
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

void main();
