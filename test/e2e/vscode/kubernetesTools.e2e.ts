/**
 * Informer Inspector next to the Kubernetes extension, in code-server: a stand-in extension
 * (test/e2e/vscode/k8s-stand-in) implements the documented API with its own kubeconfig (code-server's
 * KUBECONFIG points at nothing). Checks: "Inspect informer" on the stand-in's cluster-explorer
 * resource folder starts the flow with that resource; the contexts are the stand-in's kubeconfig's,
 * the context it switched to first; the informer syncs against the SIMULATED sandbox behind it.
 * Run: npx tsx test/e2e/vscode/kubernetesTools.e2e.ts   (prints `N passed, M failed`)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../../src/sources/sandbox';
import { ensureCodeServer, packageExtension, packageKubernetesStandIn, startCodeServer } from './codeServer';
import { answer, check, chipValue, results, runCommand, shot, openWorkbench, step, visibleTimeline, waitUntil } from './workbench';

async function main(): Promise<void> {
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const standIn = packageKubernetesStandIn();
  const sandbox = await startSandbox({ scenario: 'calm' });
  const dir = mkdtempSync(join(tmpdir(), 'ii-k8s-tools-'));
  const kc = join(dir, 'kubeconfig-of-the-kubernetes-extension');
  writeFileSync(kc, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: sb, cluster: {server: "${sandbox.url}"}}]`,
    'users: [{name: u, user: {token: sandbox}}]',
    'contexts: [{name: kubectl-current, context: {cluster: sb, user: u}}, {name: k8s-ext-choice, context: {cluster: sb, user: u, namespace: team-a}}]',
    'current-context: kubectl-current',
  ].join('\n'));
  const cs = await startCodeServer(launcher, vsix, 'Default Light Modern', undefined, undefined, { vsix: [standIn], env: { STANDIN_KUBECONFIG: kc } });
  const { browser, page } = await openWorkbench(cs.url, { width: 1500, height: 1000 });
  try {

    await step('the Kubernetes extension switches context; its cluster explorer offers "Inspect informer" on a resource kind', async () => {
      await runCommand(page, 'Stand-in Kubernetes: use context k8s-ext-choice');
      await page.waitForTimeout(500);
      // The stand-in's view starts collapsed at the bottom of the Explorer.
      await page.locator('.pane-header', { hasText: 'Clusters (stand-in)' }).first().click();
      const node = page.locator('.monaco-list-row', { hasText: 'Config Maps' }).first();
      await node.waitFor({ timeout: 20_000 });
      await node.click({ button: 'right' });
      const item = page.locator('.monaco-menu .action-label', { hasText: 'Inspect informer' }).first();
      await item.waitFor({ timeout: 10_000 });
      await shot(page, 'k8s-tools-explorer-menu.png');
      await item.click();
    });

    await step("the flow lists the Kubernetes extension's contexts, its current one first, and skips the resource step", async () => {
      await page.waitForFunction(`(document.querySelector('.quick-input-widget .quick-input-box input')?.placeholder || '').includes('Kubernetes context')`, undefined, { timeout: 30_000 });
      await page.waitForTimeout(500);
      await shot(page, 'k8s-tools-context-step.png');
      const rows = await page.locator('.quick-input-widget .monaco-list-row').allTextContents();
      check(rows.length >= 2 && rows[0].includes('k8s-ext-choice') && rows[0].includes('(current)'), `context rows: ${JSON.stringify(rows)}`);
      check(rows.some((r) => r.includes('kubectl-current')), 'the other context of that kubeconfig is listed');
      await answer(page, 'Kubernetes context', 'k8s-ext-choice');
      await answer(page, 'Namespace', 'All namespaces');
      await answer(page, 'behaviour profile', 'v1.36');
    });

    await step('the informer on configmaps syncs', async () => {
      const f = await visibleTimeline(page, { area: 'editor' }, 45_000);
      check(await waitUntil(page, 30_000, async () => (await chipValue(f, 'synced')) === 'yes'), 'did not sync');
      await shot(page, 'k8s-tools-timeline.png');
    });
  } finally {
    await browser.close();
    cs.stop();
    await sandbox.stop();
  }
  const passed = results.filter((r) => r.ok).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  process.exit(results.length === passed ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
