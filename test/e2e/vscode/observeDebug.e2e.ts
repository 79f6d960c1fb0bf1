/**
 * Observe your own controller under the debugger, in real VS Code (code-server + chromium):
 * a workspace with a launch configuration (type node, code-server's built-in JavaScript debugger
 * ms-vscode.js-debug) whose program starts the real Go controller (test/e2e/observe/bin, client-go
 * v0.36, ConfigMap and Secret informers) and says `"informerInspector": {"observe": true}`.
 * Against the real kube-apiserver of the e2e suite (test/e2e/cluster.ts) it starts the session
 * from the command palette (Debug: Start Debugging), then checks:
 *   - the timeline for the debug session appears and shows both reflectors of the controller
 *     (one session per reflector in the session picker), each with at least one list and one watch;
 *   - after the test writes ConfigMaps and Secrets, the exported trace of each reflector has as
 *     many notifications as the controller's own handlers logged, key by key;
 *   - no Secret payload in the webview, the exported traces or the workbench page;
 *   - light, dark and high-contrast screenshots at 1400x900;
 *   - stopping the debug session (Debug: Stop) stops the proxy (its port refuses connections)
 *     and the sessions show ended.
 * Prints `N passed, M failed` (scripts/test.sh reads it). Bounded: about 2 minutes warm.
 * Run: npx tsx test/e2e/vscode/observeDebug.e2e.ts
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { importTrace } from '../../../src/trace/traceFile';
import { E2ECluster } from '../cluster';
import { cmBody, createNamespace, readNdjsonLines } from '../helpers';
import { REPO, ensureCodeServer, packageExtension, startCodeServer, type CodeServer } from './codeServer';
import { SHOTS, answer, check, chipValue, findFiles, results, runCommand, sessionTitle, setTheme, shot, step, openWorkbench, visibleTimeline, waitUntil } from './workbench';

const CONTROLLER_DIR = join(REPO, 'test', 'e2e', 'observe');
const CONTROLLER = join(CONTROLLER_DIR, 'bin', 'v1.36', 'controller');
const NS = 'debugged';
const LAUNCH_NAME = 'controller under debug';
/** Secret payloads the test writes; none may appear in the webview, a trace or the page. */
const SECRET_VALUES = ['observe-debug-secret-payload-7e1a', 'observe-debug-second-secret-3b9f'];
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/**
 * The program the debugger runs: it starts the Go controller with the environment the debug
 * configuration got (KUBECONFIG = the observing proxy's kubeconfig), records the proxy address
 * and the controller's pid for the test, and stops the controller when it is stopped.
 */
const RUN_CONTROLLER = `const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const [bin, ns, log] = process.argv.slice(2);
const server = /server:\\s*(\\S+)/.exec(fs.readFileSync(process.env.KUBECONFIG, 'utf8'));
fs.writeFileSync(path.join(__dirname, 'proxy-server.txt'), server ? server[1] : '');
const token = /token:\\s*(\\S+)/.exec(fs.readFileSync(process.env.KUBECONFIG, 'utf8'));
fs.writeFileSync(path.join(__dirname, 'proxy-token.txt'), token ? token[1] : '', { mode: 0o600 });
const child = spawn(bin, ['--namespace', ns, '--log', log], { stdio: 'inherit' });
fs.writeFileSync(path.join(__dirname, 'controller.pid'), String(child.pid));
fs.writeFileSync(path.join(__dirname, 'runner.pid'), String(process.pid));
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill('SIGTERM'));
child.on('exit', (code) => process.exit(code ?? 0));
`;

interface LogLine {
  kind: string;
  informer?: string;
  key?: string;
  op?: string;
}

const readNdjson = (file: string): LogLine[] => readNdjsonLines<LogLine>(file);

/** Notifications per key, "op" in order: the shape both the controller's log and a trace give. */
function perKey(lines: { key?: string; op?: string }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const l of lines) (out[l.key ?? ''] ??= []).push(l.op ?? '');
  return Object.fromEntries(Object.entries(out).sort());
}

/** Whether a TCP connect to 127.0.0.1:port is refused (true) or accepted (false). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
    s.setTimeout(3000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

/** Stops the Go controller and the debugged program that started it, if they still run. */
function stopController(workspace: string): void {
  for (const name of ['controller.pid', 'runner.pid']) {
    const pidFile = join(workspace, name);
    if (!existsSync(pidFile)) continue;
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a palette action, again after Escape when it failed: on a loaded machine the palette can
 * open before the debug contribution has registered its commands. At most 4 tries.
 */
async function retried(page: Page, action: () => Promise<void>, done: () => Promise<boolean> = async () => false): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await action();
      return;
    } catch (e) {
      // The action may have run although the palette step failed (say the row moved as it was clicked).
      if (await done().catch(() => false)) return;
      if (attempt >= 4) throw e;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(3000);
    }
  }
}

/** Picks the session whose title contains `text` in the webview's session picker. */
async function pickSession(f: FrameLocator, text: string): Promise<void> {
  if ((await sessionTitle(f)).includes(text)) return;
  await f.locator('.session-select').click({ timeout: 5000 });
  // The picker's list lives in its shadow root: its rows are role=option.
  await f.getByRole('option', { name: new RegExp(text.replace(/\./g, '\\.')) }).first().click({ timeout: 5000 });
}

/** Exports the trace of the session whose title contains `hint` into the workspace; returns its path. */
async function exportTrace(page: Page, workspace: string, hint: string): Promise<string> {
  const pattern = /\.informer-trace\.json$/;
  const before = new Set(findFiles(workspace, pattern));
  await runCommand(page, 'Informer Inspector: Export trace');
  await answer(page, 'Export the trace of which session', hint);
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await page.keyboard.press('Enter');
  await waitUntil(page, 15_000, async () => {
    if (findFiles(workspace, pattern).some((p) => !before.has(p))) return true;
    if (await input.isVisible()) await page.keyboard.press('Enter');
    return false;
  });
  const saved = findFiles(workspace, pattern).find((p) => !before.has(p));
  check(saved !== undefined, `no trace file written for ${hint}`);
  return saved!;
}

function writeWorkspace(workspace: string, log: string): void {
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(join(workspace, 'run-controller.js'), RUN_CONTROLLER);
  // The controller's go.mod: the profile comes from its k8s.io/client-go version (v0.36 → v1.36).
  copyFileSync(join(CONTROLLER_DIR, 'controller', 'go.mod'), join(workspace, 'go.mod'));
  const launch = {
    version: '0.2.0',
    configurations: [
      {
        name: LAUNCH_NAME,
        type: 'node',
        request: 'launch',
        program: '${workspaceFolder}/run-controller.js',
        args: [CONTROLLER, NS, log],
        console: 'internalConsole',
        informerInspector: { observe: true },
      },
    ],
  };
  writeFileSync(join(workspace, '.vscode', 'launch.json'), JSON.stringify(launch, null, 2));
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  check(existsSync(CONTROLLER), `${CONTROLLER} is missing: run bash test/e2e/observe/build.sh`);
  const clusterStarting = E2ECluster.start();
  clusterStarting.catch(() => undefined);
  let cs: CodeServer | undefined;
  // scripts/test.sh bounds the run with `timeout`: its SIGTERM still stops the cluster and code-server.
  process.once('SIGTERM', () => {
    console.log('stopped by SIGTERM (time limit)');
    if (cs) stopController(cs.workspace);
    cs?.stop();
    void clusterStarting
      .then((c) => c.stop())
      .catch(() => undefined)
      .finally(() => process.exit(1));
  });
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const cluster = await clusterStarting;
  try {
    cs = await startCodeServer(launcher, vsix, 'Default Light Modern', cluster.kubeconfigPath);
    await inWorkbench(cluster, cs);
  } finally {
    cs?.stop();
    await cluster.stop().catch(() => undefined);
    const passed = results.filter((r) => r.ok).length;
    console.log(`${passed} passed, ${results.length - passed} failed`);
    process.exitCode = passed === results.length && results.length > 0 ? 0 : 1;
  }
}

async function inWorkbench(cluster: E2ECluster, cs: CodeServer): Promise<void> {
  const log = join(cs.workspace, 'controller.ndjson');
  writeWorkspace(cs.workspace, log);
  const t0 = Date.now();
  const { browser, page } = await openWorkbench(cs.url, { width: 1400, height: 900 });
  const controllerLog = (informer: string) => readNdjson(log).filter((l) => l.kind === 'notify' && l.informer === informer);
  let proxyPort = 0;
  let timeline: FrameLocator | undefined;
  const exported: Record<string, string> = {};
  try {
    await createNamespace(cluster, NS);
    for (let i = 0; i < 3; i++) await cluster.adminOk('POST', `/api/v1/namespaces/${NS}/configmaps`, cmBody(NS, `cm-${i}`));
    await cluster.adminOk('POST', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: NS }, data: { password: b64(SECRET_VALUES[0]) } });

    await step('Debug: Start Debugging runs the launch configuration through the observing proxy; the controller syncs', async () => {
      const debugging = () => page.locator('.debug-toolbar').isVisible();
      await retried(page, () => runCommand(page, 'Debug: Start Debugging'), debugging);
      check(
        await waitUntil(page, 90_000, async () => {
          if (readNdjson(log).some((l) => l.kind === 'synced')) return true;
          // On a loaded machine js-debug can stay paused where it attached: let the program run.
          if (await page.getByText(/paused on/i).first().isVisible().catch(() => false)) await runCommand(page, 'Debug: Continue').catch(() => page.keyboard.press('Escape'));
          return false;
        }),
        `the controller did not sync (proxy address: ${existsSync(join(cs.workspace, 'proxy-server.txt')) ? readFileSync(join(cs.workspace, 'proxy-server.txt'), 'utf8') : 'none'})`,
      );
      const server = readFileSync(join(cs.workspace, 'proxy-server.txt'), 'utf8').trim();
      const m = /^https:\/\/127\.0\.0\.1:(\d+)$/.exec(server);
      check(m !== null, `the debugged process got KUBECONFIG for ${server}, not the loopback proxy`);
      proxyPort = Number(m![1]);
    });

    await step('the timeline for the debug session appears with the controller\'s two reflectors', async () => {
      timeline = await visibleTimeline(page, { area: 'editor', until: async (f) => (await sessionTitle(f)).endsWith(`observed in ${LAUNCH_NAME}`) }, 45_000);
      const options = (await timeline.locator('.session-select vscode-option').allTextContents()).join('\n');
      check(/configmaps\.v1 ns=debugged/.test(options) && /secrets\.v1 ns=debugged/.test(options), `session picker: ${options}`);
      check(/\(v1\.36\)/.test(await sessionTitle(timeline)), `profile from the workspace go.mod: ${await sessionTitle(timeline)}`);
    });

    // Writes the controller sees by watch.
    const cm0 = await cluster.adminOk<any>('GET', `/api/v1/namespaces/${NS}/configmaps/cm-0`);
    await cluster.adminOk('PUT', `/api/v1/namespaces/${NS}/configmaps/cm-0`, { ...cm0, data: { v: '1' } });
    await cluster.adminOk('DELETE', `/api/v1/namespaces/${NS}/configmaps/cm-1`);
    await cluster.adminOk('POST', `/api/v1/namespaces/${NS}/configmaps`, cmBody(NS, 'cm-new'));
    await cluster.adminOk('POST', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'api', namespace: NS }, stringData: { token: SECRET_VALUES[1] } });
    await waitUntil(page, 30_000, async () => controllerLog('configmaps').some((l) => l.key === `${NS}/cm-new`) && controllerLog('secrets').some((l) => l.key === `${NS}/api`));

    for (const [resource, hint] of [
      ['configmaps', 'configmaps.v1'],
      ['secrets', 'secrets.v1'],
    ] as const) {
      await step(`${resource}: at least one list and one watch on the timeline, notifications equal the controller's log`, async () => {
        check(timeline !== undefined, 'no timeline');
        const f = timeline!;
        await pickSession(f, hint);
        check(await waitUntil(page, 20_000, async () => (await sessionTitle(f)).includes(hint)), `the picker did not switch to ${hint}`);
        const tab = async () => (await page.locator('.tabs-container .tab.active').getAttribute('aria-label').catch(() => '')) ?? '';
        check(await waitUntil(page, 5000, async () => (await tab()).includes(hint)), `the editor tab names another session: ${await tab()}`);
        check(await waitUntil(page, 20_000, async () => Number(await chipValue(f, 'lists')) >= 1 && Number(await chipValue(f, 'watches')) >= 1), `lists ${await chipValue(f, 'lists')}, watches ${await chipValue(f, 'watches')}`);
        check((await chipValue(f, 'synced')) === 'yes', `synced: ${await chipValue(f, 'synced')}`);
        await page.waitForTimeout(1000);
        const path = await exportTrace(page, cs.workspace, hint);
        exported[resource] = readFileSync(path, 'utf8');
        const notifies = importTrace(exported[resource]).events.filter((e) => e.type === 'notify') as unknown as { key: string; op: string }[];
        const want = perKey(controllerLog(resource));
        check(notifies.length > 0, `${resource}: no notifications in the session's trace`);
        check(JSON.stringify(perKey(notifies)) === JSON.stringify(want), `${resource}: timeline ${JSON.stringify(perKey(notifies))} vs controller ${JSON.stringify(want)}`);
        console.log(`      ${resource}: lists ${await chipValue(f, 'lists')}, watches ${await chipValue(f, 'watches')}, ${notifies.length} notifications = the controller's ${controllerLog(resource).length}`);
      });
    }

    await step('no Secret payload in the webview, the exported traces or the workbench', async () => {
      check(timeline !== undefined && Object.keys(exported).length === 2, 'nothing to look at');
      const texts = [(await timeline!.locator('body').textContent()) ?? '', (await page.locator('body').textContent()) ?? '', ...Object.values(exported)].join('\n');
      for (const s of SECRET_VALUES) check(!texts.includes(s) && !texts.includes(b64(s)), 'a Secret payload is visible');
    });

    await step('screenshots at 1400x900: light, dark, high contrast', async () => {
      check(timeline !== undefined, 'no timeline');
      // The debug console took the bottom panel; without it the timeline has the editor's full height.
      await runCommand(page, 'View: Hide Panel');
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => page.keyboard.press('Escape'));
      await pickSession(timeline!, 'configmaps.v1');
      await page.waitForTimeout(1000);
      await shot(page, 'observe-debug-light.png');
      await setTheme(page, 'Default Dark Modern');
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => page.keyboard.press('Escape'));
      await pickSession(timeline!, 'secrets.v1');
      await page.waitForTimeout(1000);
      await shot(page, 'observe-debug-dark.png');
      await setTheme(page, 'Default High Contrast');
      await pickSession(timeline!, 'configmaps.v1');
      await page.waitForTimeout(1000);
      await shot(page, 'observe-debug-hc.png');
      await setTheme(page, 'Default Light Modern');
    });

    await step('Debug: Stop stops the proxy (its port refuses connections) and the sessions end', async () => {
      check(proxyPort > 0, 'no proxy port');
      check(!(await refused(proxyPort)), 'the proxy was not listening while the session ran');
      check(timeline !== undefined, 'no timeline');
      await pickSession(timeline!, 'configmaps.v1');
      const watchesBefore = await chipValue(timeline!, 'watches');
      await retried(page, () => runCommand(page, 'Debug: Stop'));
      check(await waitUntil(page, 20_000, () => refused(proxyPort)), `the proxy on port ${proxyPort} still accepts connections`);
      const f = await visibleTimeline(page, { area: 'editor' });
      check(await waitUntil(page, 10_000, async () => (await chipValue(f, 'state')).includes('(ended)')), `state: ${await chipValue(f, 'state')}`);
      // The process closed its watch as it exited and sent nothing more: no watch of the engine's own.
      check((await chipValue(f, 'watches')) === watchesBefore, `watches ${watchesBefore} before the stop, ${await chipValue(f, 'watches')} after`);
      const pid = Number(readFileSync(join(cs.workspace, 'controller.pid'), 'utf8'));
      check(await waitUntil(page, 10_000, async () => !alive(pid)), `the controller (pid ${pid}) still runs after the debug session stopped`);
      await shot(page, 'observe-debug-stopped.png');
    });

    await step('the extension\'s logs name the observation and hold no Secret payload, proxy token or upstream token', async () => {
      const logs = findFiles(join(cs.userDir, 'logs'), /\.log$/).map((p) => readFileSync(p, 'utf8'));
      const all = logs.join('\n');
      check(/observing debug session "controller under debug" through https:\/\/127\.0\.0\.1:\d+/.test(all), `the extension log does not name the observation (${logs.length} log files)`);
      const proxyToken = readFileSync(join(cs.workspace, 'proxy-token.txt'), 'utf8').trim();
      const upstreamToken = /token:\s*(\S+)/.exec(cluster.kubeconfigYaml())?.[1] ?? '';
      check(proxyToken.length > 20 && upstreamToken.length > 10, 'tokens to look for');
      for (const s of [...SECRET_VALUES, ...SECRET_VALUES.map(b64), proxyToken, upstreamToken]) check(!all.includes(s), `${s.slice(0, 10)}… is in the extension's logs`);
    });
  } finally {
    stopController(cs.workspace);
    await browser.close();
    console.log(`      (workbench part: ${Math.round((Date.now() - t0) / 1000)} s)`);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  if (results.length === 0) console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
