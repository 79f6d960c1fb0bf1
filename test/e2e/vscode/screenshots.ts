/**
 * Screenshots for the README and the issue-10 proof, from the .vsix a plain `vsce package` makes,
 * installed into code-server: the palette before and after an informer starts, the Inspect flow
 * (steps, Back, a typed namespace), the timeline of the SIMULATED restart storm, the walkthrough.
 * Run: npx tsx test/e2e/vscode/screenshots.ts   (writes test-results/screenshots/ and media/screenshots/)
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO, ensureCodeServer, packageExtension, startCodeServer } from './codeServer';
import { answer, runCommand, SHOTS, openWorkbench, shot, visibleTimeline, waitUntil, chipValue } from './workbench';

const SANDBOX_ITEM = 'Built-in sandbox cluster (SIMULATED)';

/**
 * Two contexts on loopback ports nothing listens on (only listed, never dialled) and one on a
 * loopback API server that serves discovery but answers every configmaps LIST/WATCH with 403.
 */
const kubeconfig = (forbiddenPort: number) => `apiVersion: v1
kind: Config
clusters:
- {name: dev, cluster: {server: "https://127.0.0.1:16443"}}
- {name: prod, cluster: {server: "https://127.0.0.1:26443"}}
- {name: rbac, cluster: {server: "http://127.0.0.1:${forbiddenPort}"}}
users:
- {name: me, user: {token: not-a-real-token}}
contexts:
- {name: prod-admin, context: {cluster: prod, user: me}}
- {name: dev, context: {cluster: dev, user: me, namespace: team-a}}
- {name: no-rbac, context: {cluster: rbac, user: me, namespace: demo}}
current-context: dev
`;

function forbiddenServer(): Promise<Server> {
  const status = (code: number, reason: string, message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  const srv = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (code: number, body: string) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (path === '/api') return json(200, JSON.stringify({ kind: 'APIVersions', versions: ['v1'] }));
    if (path === '/apis') return json(200, JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
    if (path === '/api/v1') {
      return json(200, JSON.stringify({ kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list', 'watch'], shortNames: ['cm'] }] }));
    }
    json(403, status(403, 'Forbidden', 'configmaps is forbidden: User "system:serviceaccount:demo:my-controller" cannot list resource "configmaps" in API group "" in the namespace "demo"'));
  });
  return new Promise((r) => srv.listen(0, '127.0.0.1', () => r(srv)));
}

async function palette(page: Page, text: string, name: string): Promise<void> {
  await page.locator('.monaco-workbench').click({ position: { x: 600, y: 10 } }).catch(() => undefined);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(text);
  await page.waitForTimeout(800);
  await shot(page, name);
  await page.keyboard.press('Escape');
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const forbidden = await forbiddenServer();
  const kc = join(tmpdir(), `ii-shots-kubeconfig-${process.pid}`);
  writeFileSync(kc, kubeconfig((forbidden.address() as AddressInfo).port));
  const cs = await startCodeServer(launcher, vsix, 'Default Dark Modern', kc);
  const { browser, page } = await openWorkbench(cs.url, { width: 1500, height: 1000 }, 4000);
  try {

    await palette(page, '>Informer Inspector', 'palette-before.png');

    await runCommand(page, 'Informer Inspector: Inspect informer');
    await page.waitForTimeout(1500);
    await shot(page, 'inspect-step1-context.png');
    await answer(page, 'Kubernetes context', SANDBOX_ITEM);
    await page.waitForTimeout(800);
    await shot(page, 'inspect-step2-storyline.png');
    await answer(page, 'Sandbox storyline', 'restart-storm');
    await answer(page, 'Resource to inform on', 'configmaps');
    // Type a namespace: it is offered as typed, first; then go Back and forth once.
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await page.waitForFunction(`(document.querySelector('.quick-input-widget .quick-input-box input')?.placeholder || '').includes('Namespace')`, undefined, { timeout: 30_000 });
    await input.fill('team-b');
    await page.waitForTimeout(800);
    await shot(page, 'inspect-step4-namespace-typed.png');
    await input.fill('All namespaces');
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(500);
    await shot(page, 'inspect-step5-selectors.png');
    await answer(page, 'Selectors');
    await answer(page, 'behaviour profile', 'v1.15');

    const f = await visibleTimeline(page, { area: 'editor' }, 45_000);
    await waitUntil(page, 60_000, async () => Number(await chipValue(f, 'relists')) >= 2);
    await shot(page, 'timeline.png');

    await palette(page, '>Informer Inspector', 'palette-after.png');

    // 403 on LIST: the error notification with the fix and Show Log, the reflector lane red (denied).
    await runCommand(page, 'Informer Inspector: Stop informer');
    await page.waitForTimeout(1000);
    await page.keyboard.press('Escape');
    await runCommand(page, 'Informer Inspector: Inspect informer');
    await answer(page, 'Kubernetes context', 'no-rbac');
    await answer(page, 'Resource to inform on', 'configmaps');
    await answer(page, 'Namespace', 'demo');
    await answer(page, 'Selectors');
    await answer(page, 'behaviour profile', 'v1.36');
    await page.waitForTimeout(6000);
    await shot(page, 'access-denied.png');

    await runCommand(page, 'Welcome: Open Walkthrough...');
    await page.waitForTimeout(800);
    const wInput = page.locator('.quick-input-widget .quick-input-box input');
    await wInput.fill('Inspect an informer');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(3000);
    await shot(page, 'walkthrough.png');
  } finally {
    await browser.close();
    cs.stop();
    forbidden.closeAllConnections();
    forbidden.close();
  }
  mkdirSync(join(REPO, 'media', 'screenshots'), { recursive: true });
  copyFileSync(join(SHOTS, 'timeline.png'), join(REPO, 'media', 'screenshots', 'timeline.png'));
  copyFileSync(join(SHOTS, 'inspect-step1-context.png'), join(REPO, 'media', 'screenshots', 'inspect-flow.png'));
  copyFileSync(join(SHOTS, 'access-denied.png'), join(REPO, 'media', 'screenshots', 'access-denied.png'));
  console.log(`screenshots in ${SHOTS}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
