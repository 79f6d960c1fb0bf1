/**
 * End-to-end in real VS Code (code-server) in a real browser (Debian chromium via playwright-core),
 * all from the command palette:
 *   - "Inspect informer" against the REAL kube-apiserver 1.36 of the e2e suite (test/e2e/cluster.ts;
 *     code-server gets its kubeconfig through KUBECONFIG): list, watch and synced on the timeline;
 *   - against the SIMULATED sandbox (watch-expiry): a relist with its reason, keyboard details,
 *     light/dark/high-contrast screenshots, export + importTrace, the trace editor;
 *   - "Fault: refuse connections" on a v1.15 informer → a relist (connection refused) with
 *     identical updates in the header; the same on v1.36 → no relist;
 *   - Add handler (a new lane), Check cache consistency (its message and mark), the bottom-panel
 *     view on the same session, Replay scenario on a conformance scenario file, and a window
 *     reload restoring the panel;
 *   - autostart as `npm start` does it (INFORMER_INSPECTOR_AUTOSTART=sandbox:calm, a second code-server).
 * Screenshots go to test-results/screenshots/. Prints `N passed, M failed` (scripts/test.sh reads it).
 * Run: npx tsx test/e2e/vscode/timeline.e2e.ts
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { importTrace } from '../../../src/trace/traceFile';
import { E2ECluster } from '../cluster';
import { REPO, ensureCodeServer, packageExtension, startCodeServer } from './codeServer';
import {
  SHOTS,
  answer,
  check,
  chipValue,
  findFiles,
  notificationsText,
  results,
  runCommand,
  sessionTitle,
  setTheme,
  shot,
  step,
  typePath,
  openWorkbench,
  usePage,
  visibleTimeline,
  waitUntil,
  waitForExtension,
} from './workbench';

const SANDBOX_ITEM = 'Built-in sandbox cluster';
const TRACE_FILE = /\.informer-trace\.json$/;

/** Inspect informer on the sandbox with the given storyline and profile (configmaps, all namespaces). */
async function inspectSandbox(page: Page, storyline: string, profile: string): Promise<void> {
  await runCommand(page, 'Informer Inspector: Inspect informer');
  await answer(page, 'Kubernetes context', SANDBOX_ITEM);
  await answer(page, 'Sandbox storyline', storyline);
  await answer(page, 'Resource to inform on', 'configmaps');
  await answer(page, 'Namespace', 'All namespaces');
  await answer(page, 'Selectors');
  await answer(page, 'behaviour profile', profile);
}

const titled = (text: string) => async (f: FrameLocator) => (await sessionTitle(f)).includes(text);

async function refuseConnections(page: Page, sessionHint: string, seconds: number): Promise<void> {
  await runCommand(page, 'Informer Inspector: Fault: refuse connections for N seconds');
  await answer(page, 'Inject the fault into which informer', sessionHint);
  await answer(page, 'Refuse connections for how many seconds', String(seconds));
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  // The real cluster starts while the extension is packaged (both take a while).
  const clusterStarting = E2ECluster.start();
  clusterStarting.catch(() => undefined);
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  let cluster: E2ECluster | undefined;
  try {
    cluster = await clusterStarting;
  } catch (e) {
    console.log(`  (the real cluster did not start: ${(e as Error).message.split('\n')[0]})`);
  }
  const cs = await startCodeServer(launcher, vsix, 'Default Light Modern', cluster?.kubeconfigPath);
  const { browser, page } = await openWorkbench(cs.url, { width: 1500, height: 1000 });
  try {
    await waitForExtension(page);

    await step('Inspect informer against the REAL kube-apiserver: list, watch, synced', async () => {
      check(cluster !== undefined, 'the e2e cluster (scripts/cluster.sh) did not start');
      await runCommand(page, 'Informer Inspector: Inspect informer');
      await answer(page, 'Kubernetes context', 'e2e-inspector');
      await answer(page, 'Resource to inform on', 'configmaps');
      await answer(page, 'Namespace', 'All namespaces');
      await answer(page, 'Selectors');
      await answer(page, 'behaviour profile', 'v1.36');
      const f = await visibleTimeline(page, { area: 'editor' });
      check(!(await chipValue(f, 'simulated').catch(() => '')).includes('SIMULATED'), 'a real cluster session must not be labelled SIMULATED');
      const synced = await waitUntil(page, 30_000, async () => (await chipValue(f, 'synced')) === 'yes' && Number(await chipValue(f, 'watches')) >= 1);
      await shot(page, 'real-cluster-light.png');
      check(synced, `synced "${await chipValue(f, 'synced')}", watches "${await chipValue(f, 'watches')}"`);
      check(Number(await chipValue(f, 'lists')) >= 1, `lists chip "${await chipValue(f, 'lists')}" (v1.36 syncs by watch-list; it counts as a list)`);
      check((await chipValue(f, 'relists')) === '0', `no relist expected on a healthy cluster: "${await chipValue(f, 'relists')}"`);
    });

    let live: FrameLocator | undefined;
    await step('Inspect informer from the palette against the SIMULATED sandbox', async () => {
      // v1.34: WatchListClient is off, so the initial sync is a real paginated LIST.
      await inspectSandbox(page, 'watch-expiry', 'v1.34');
      live = await visibleTimeline(page, { area: 'editor', until: titled('v1.34') });
      check((await chipValue(live, 'simulated')).includes('SIMULATED'), 'the SIMULATED label is missing');
    });

    await step('timeline shows a list, a watch and a relist with its reason', async () => {
      check(live !== undefined, 'no sandbox timeline');
      const f = live!;
      await waitUntil(page, 60_000, async () => (await chipValue(f, 'relists')) !== '0' && Number(await chipValue(f, 'lists')) >= 2);
      await page.waitForTimeout(1500);
      await shot(page, 'timeline-light.png');
      const relists = await chipValue(f, 'relists');
      check(/^\d+ \(.+\)$/.test(relists) && !relists.startsWith('0'), `relists chip: "${relists}"`);
      check(relists.includes('Expired'), `relist reason should be Expired (watch-expiry storyline): "${relists}"`);
      check(Number(await chipValue(f, 'lists')) >= 2, 'expected the initial list and the relist');
      check(Number(await chipValue(f, 'watches')) >= 1, 'expected a watch');
      const label = await f.locator('g.relist text').first().textContent();
      check((label ?? '').startsWith('RELIST '), `relist label on the chart: "${label}"`);
    });

    await step("keyboard: arrow keys reach the relist and the details show client-go's reason text", async () => {
      check(live !== undefined, 'no sandbox timeline');
      const f = live!;
      await f.locator('.timeline').focus();
      await page.keyboard.press('Home');
      let title = '';
      for (let i = 0; i < 60 && !title.startsWith('RELIST'); i++) {
        await page.keyboard.press('ArrowRight');
        title = (await f.locator('.details-title').textContent().catch(() => '')) ?? '';
      }
      check(title.startsWith('RELIST'), `no relist reached by keyboard, last: "${title}"`);
      const reason = (await f.locator('.reason-text').textContent()) ?? '';
      check(reason.length > 10, `reason text missing: "${reason}"`);
      const request = (await f.locator('.request-text').textContent()) ?? '';
      check(request.startsWith('GET list'), `request missing: "${request}"`);
      check(await f.locator('.tooltip').isVisible(), 'tooltip should show on keyboard focus');
      await shot(page, 'timeline-light-selected.png');
      await page.keyboard.press('Escape');
      check(!(await f.locator('.tooltip').isVisible()), 'Escape should close the tooltip');
    });

    let savedPath = '';
    await step('export the trace; importTrace accepts it', async () => {
      const before = new Set(findFiles(cs.workspace, TRACE_FILE));
      await runCommand(page, 'Informer Inspector: Export trace');
      await answer(page, 'Export the trace of which session', 'v1.34');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible' });
      // The save dialog proposes <session title>-<time>.informer-trace.json in the workspace: accept it.
      await page.keyboard.press('Enter');
      await waitUntil(page, 15_000, async () => {
        const fresh = findFiles(cs.workspace, TRACE_FILE).filter((p) => !before.has(p));
        if (fresh.length > 0) return true;
        // The simple file dialog may first complete the path; a second Enter accepts it.
        if (await input.isVisible()) await page.keyboard.press('Enter');
        return false;
      });
      savedPath = findFiles(cs.workspace, TRACE_FILE).find((p) => !before.has(p)) ?? '';
      await shot(page, 'after-export.png');
      check(savedPath !== '', 'no trace file written');
      const trace = importTrace(readFileSync(savedPath, 'utf8'));
      check(trace.header.source === 'sandbox', `header.source = ${trace.header.source}`);
      check(trace.events.some((e) => e.type === 'relist'), 'exported trace has no relist');
    });

    await step('open the exported trace again: the trace editor shows the same timeline', async () => {
      check(savedPath !== '', 'nothing was exported');
      const trace = importTrace(readFileSync(savedPath, 'utf8'));
      const relists = trace.events.filter((e) => e.type === 'relist').length;
      const lists = trace.events.filter((e) => e.type === 'list.done').length;
      await runCommand(page, 'Informer Inspector: Open trace');
      await typePath(page, savedPath);
      const f = await visibleTimeline(page, { area: 'editor', until: async (x) => (await chipValue(x, 'state')).includes('(ended)') });
      const shown = await chipValue(f, 'relists');
      check(shown.startsWith(`${relists} `), `trace editor relists "${shown}", file has ${relists}`);
      check((await chipValue(f, 'lists')) === String(lists), 'trace editor list count differs from the file');
      check((await f.locator('g.relist').count()) > 0, 'trace editor shows no relist mark');
      await shot(page, 'trace-editor-light.png');
    });

    await step('fault "refuse connections" on v1.15: a relist (connection refused) and identical updates in the header', async () => {
      await inspectSandbox(page, 'calm', 'v1.15');
      const f = await visibleTimeline(page, { area: 'editor', until: titled('v1.15') });
      check(await waitUntil(page, 30_000, async () => (await chipValue(f, 'synced')) === 'yes'), 'the v1.15 informer did not sync');
      await refuseConnections(page, 'v1.15', 3);
      const relisted = await waitUntil(page, 30_000, async () => (await chipValue(f, 'relists')) !== '0' && !(await chipValue(f, 'identical')).startsWith('0'));
      await page.waitForTimeout(1000);
      await shot(page, 'fault-v115-light.png');
      const relists = await chipValue(f, 'relists');
      check(relisted, `relists "${relists}", identical updates "${await chipValue(f, 'identical')}"`);
      check(/refused/i.test(relists), `relist reason should name the refused connection: "${relists}"`);
      const label = (await f.locator('g.relist text').first().textContent()) ?? '';
      check(/refused/i.test(label), `relist label on the chart: "${label}"`);
    });

    await step('themes: dark and high contrast (v1.15 relist after the fault)', async () => {
      await setTheme(page, 'Dark Modern');
      await shot(page, 'timeline-dark.png');
      await setTheme(page, 'Dark High Contrast');
      await shot(page, 'timeline-high-contrast.png');
      await setTheme(page, 'Light High Contrast');
      await shot(page, 'timeline-high-contrast-light.png');
      await setTheme(page, 'Light Modern');
    });

    let v136: FrameLocator | undefined;
    await step('the same fault on v1.36: the watch is re-established, no relist', async () => {
      await inspectSandbox(page, 'calm', 'v1.36');
      const f = await visibleTimeline(page, { area: 'editor', until: titled('v1.36) SIMULATED') });
      v136 = f;
      check(await waitUntil(page, 30_000, async () => (await chipValue(f, 'synced')) === 'yes'), 'the v1.36 informer did not sync');
      const watchesBefore = Number(await chipValue(f, 'watches'));
      await refuseConnections(page, 'v1.36) SIMULATED', 3);
      const rewatched = await waitUntil(page, 30_000, async () => Number(await chipValue(f, 'watches')) > watchesBefore);
      await page.waitForTimeout(2000);
      await shot(page, 'fault-v136-light.png');
      check(rewatched, `no new watch after the fault (watches ${await chipValue(f, 'watches')})`);
      check((await chipValue(f, 'relists')) === '0', `v1.36 should not relist: "${await chipValue(f, 'relists')}"`);
    });

    await step('Add handler: a new handler lane appears', async () => {
      check(v136 !== undefined, 'no v1.36 timeline');
      await runCommand(page, 'Informer Inspector: Add handler');
      await answer(page, 'Add a handler to which informer', 'v1.36) SIMULATED');
      await answer(page, 'Handler name', 'e2e-late');
      await answer(page, 'Resync period in seconds', '0');
      const lanes = v136!.locator('.lane-labels');
      check(await waitUntil(page, 15_000, async () => ((await lanes.textContent()) ?? '').includes('Handler e2e-late')), `lanes: "${await lanes.textContent()}"`);
    });

    await step('Check cache consistency: its message and its mark on the timeline', async () => {
      check(v136 !== undefined, 'no v1.36 timeline');
      await runCommand(page, 'Informer Inspector: Check cache consistency');
      await answer(page, 'Check the cache of which informer', 'v1.36) SIMULATED');
      check(await waitUntil(page, 20_000, async () => (await notificationsText(page)).includes('Cache check at RV')), `no cache-check message: "${await notificationsText(page)}"`);
      const text = await notificationsText(page);
      check(/0 missing, 0 extra, 0 stale/.test(text), `a calm sandbox cache should be consistent: "${text}"`);
      const mark = v136!.locator('g.check text').first();
      check(await waitUntil(page, 10_000, async () => ((await mark.textContent()) ?? '').startsWith('CACHE OK')), `no cache-check mark on the chart: "${await mark.textContent().catch(() => '')}"`);
      await shot(page, 'cache-check-light.png');
    });

    await step('the bottom-panel view shows the same session', async () => {
      await runCommand(page, 'Informer Inspector: Show timeline');
      const f = await visibleTimeline(page, { area: 'bottom', until: titled('v1.36) SIMULATED') });
      check((await chipValue(f, 'relists')) === '0', 'bottom view relists differ');
      check(((await f.locator('.lane-labels').textContent()) ?? '').includes('Handler e2e-late'), 'bottom view lacks the added handler lane');
      await shot(page, 'bottom-view-light.png');
      await page.keyboard.press('Control+J'); // close the panel again
    });

    await step('Replay scenario on a conformance scenario file', async () => {
      const file = join(REPO, 'test/conformance/scenarios/apiserver-restart-v115.json');
      await runCommand(page, 'Informer Inspector: Replay scenario');
      await typePath(page, file);
      const f = await visibleTimeline(page, { area: 'editor', until: titled('apiserver-restart-v115') });
      check(await waitUntil(page, 20_000, async () => Number(await chipValue(f, 'lists')) >= 1), 'the replay shows no list');
      check((await chipValue(f, 'relists')) !== '0', `apiserver-restart-v115 relists on v1.15: "${await chipValue(f, 'relists')}"`);
      await shot(page, 'replay-light.png');
    });

    await step('reload the window: the timeline panel is restored', async () => {
      await runCommand(page, 'Developer: Reload Window');
      await page.waitForTimeout(2000);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      const tab = page.locator('.tabs-container .tab', { hasText: 'Timeline:' });
      check(await waitUntil(page, 30_000, async () => (await tab.count()) > 0), 'no timeline tab after the reload');
      const f = await visibleTimeline(page, { area: 'editor' }, 30_000);
      const empty = f.locator('p.empty');
      check(await waitUntil(page, 10_000, async () => ((await empty.textContent()) ?? '').includes('reloaded')), `restored panel text: "${await empty.textContent()}"`);
      await shot(page, 'restored-light.png');
    });
    await step('autostart (npm start): INFORMER_INSPECTOR_AUTOSTART=sandbox:calm opens the sandbox timeline by itself', async () => {
      const auto = await startCodeServer(launcher, vsix, 'Default Light Modern', undefined, 'sandbox:calm');
      const autoPage = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
      usePage(autoPage);
      try {
        await autoPage.goto(auto.url);
        await autoPage.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        const f = await visibleTimeline(autoPage, { area: 'editor', until: titled('configmaps (all namespaces, v1.36) SIMULATED') }, 45_000);
        check(await waitUntil(autoPage, 30_000, async () => (await chipValue(f, 'synced')) === 'yes'), 'the autostarted informer did not sync');
        check((await chipValue(f, 'simulated')).includes('SIMULATED'), 'the autostarted sandbox is not labelled SIMULATED');
        await shot(autoPage, 'autostart-light.png');
      } finally {
        usePage(page);
        await autoPage.close();
        auto.stop();
      }
    });
  } finally {
    await browser.close();
    cs.stop();
    await cluster?.stop().catch(() => undefined);
    const passed = results.filter((r) => r.ok).length;
    console.log(`${passed} passed, ${results.length - passed} failed`);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
