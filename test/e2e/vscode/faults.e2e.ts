/**
 * The extension under faults, in real VS Code (code-server) in a real browser:
 *   - the cluster unreachable while the panel is open (a real kube-apiserver behind the TCP fault
 *     proxy, which stops listening and resets every connection for OUTAGE_S — "minutes" compressed
 *     to one): a warning names the session and the error, one message when it is back;
 *   - a webview reload ("Developer: Reload Webviews") in the middle of a burst of 10,000 trace
 *     events (ConfigMaps created on the real cluster): the reloaded view holds the same events as
 *     the session's trace;
 *   - the SIMULATED sandbox (`informer-inspector sandbox`, its own process) killed with SIGKILL
 *     while the informer's initial LIST is in flight (the process is stopped with SIGSTOP first,
 *     so the LIST is certainly waiting on it);
 *   - an export into a read-only folder (a read-only tmpfs when run as root, a 0555 folder
 *     otherwise): one clear error, and the next export elsewhere works;
 *   - the trace file under an open trace editor overwritten on disk (with garbage, then with
 *     another trace): a message each time, and the editor keeps what it showed.
 * After each: the extension host still answers a command within RESPONSIVE_MS, and the view holds
 * exactly the events of the session's trace (exported and compared by count and last seq).
 * Screenshots go to test-results/screenshots/faults-*.png. Prints `N passed, M failed`.
 * Run: npx tsx test/e2e/vscode/faults.e2e.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { RecordedEvent } from '../../../src/format/events';
import { importTrace } from '../../../src/trace/traceFile';
import { E2ECluster } from '../cluster';
import { FaultProxy } from '../faultProxy';
import { REPO, ensureCodeServer, packageExtension, startCodeServer } from './codeServer';
import { SHOTS, answer, check, chipValue, notificationsText, openWorkbench, results, runCommand, sessionTitle, shot, step, typePath, visibleTimeline, waitForExtension, waitUntil } from './workbench';

const OUTAGE_S = Number(process.env.FAULTS_OUTAGE_S ?? 60);
const RESPONSIVE_MS = 2000;
const BURST_EVENTS = 10_000;
const SANDBOX_CONTEXT = 'informer-inspector-sandbox';
/** FAULTS_STEPS=burst,sandbox,readonly,changed runs only those after the outage (for working on one; FAULTS_OUTAGE_S shortens the outage). */
const STEPS = new Set((process.env.FAULTS_STEPS ?? 'burst,sandbox,readonly,changed').split(','));

/** The trace files exported so far, in order. */
const exported: string[] = [];

const titled = (text: string) => async (f: FrameLocator) => (await sessionTitle(f)).includes(text);

/** Runs "Inspect informer" and measures how long the host takes to show its first question; cancels it. */
async function responsiveMs(page: Page): Promise<number> {
  await page.locator('.monaco-workbench').click({ position: { x: 600, y: 10 } }).catch(() => undefined);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill('>Informer Inspector: Inspect informer');
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Informer Inspector: Inspect informer' }).first();
  await row.waitFor({ timeout: 15_000 });
  const t0 = Date.now();
  await row.click();
  await page.waitForFunction(
    `(() => { const i = document.querySelector('.quick-input-widget .quick-input-box input'); return !!i && (i.placeholder || '').includes('Kubernetes context'); })()`,
    undefined,
    { timeout: 20_000 },
  );
  const ms = Date.now() - t0;
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  return ms;
}

/** Never one answer slower than this, even among several samples. */
const RESPONSIVE_HARD_MS = 5000;

/**
 * The host answers "Inspect informer" within RESPONSIVE_MS. With `samples` > 1 (under load: a
 * burst on two shared cores, the browser and the cluster on the same machine, where one answer can
 * catch a pause that is not the extension's; CI saw 2,796 ms once where five local runs, one of
 * them on a single core, saw 125-380 ms): that many samples a second apart, the median within
 * RESPONSIVE_MS and none beyond RESPONSIVE_HARD_MS. A host held up by its own work fails both.
 */
async function assertResponsive(page: Page, what: string, samples = 1): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (i > 0) await page.waitForTimeout(1000);
    ms.push(await responsiveMs(page));
  }
  const median = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
  const all = ms.join(', ');
  if (ms.length === 1) {
    console.log(`    host answered "Inspect informer" in ${median} ms (${what})`);
    check(median <= RESPONSIVE_MS, `the extension host took ${median} ms to answer a command (${what}); bound ${RESPONSIVE_MS} ms`);
    return median;
  }
  console.log(`    host answered "Inspect informer" in ${all} ms, median ${median} ms (${what})`);
  check(median <= RESPONSIVE_MS, `the extension host took a median ${median} ms (${all}) to answer a command (${what}); bound ${RESPONSIVE_MS} ms`);
  check(Math.max(...ms) <= RESPONSIVE_HARD_MS, `the extension host took ${Math.max(...ms)} ms to answer a command once (${what}); bound ${RESPONSIVE_HARD_MS} ms`);
  return median;
}

/** What the view holds: its event count and last seq (header.summary data attributes). */
async function viewHolds(f: FrameLocator): Promise<{ events: number; lastSeq: number }> {
  const h = f.locator('header.summary');
  return { events: Number(await h.getAttribute('data-events', { timeout: 5000 })), lastSeq: Number(await h.getAttribute('data-last-seq', { timeout: 5000 })) };
}

/** Export trace (picking the session whose title contains `sessionHint` when there are several) into `target`. */
async function exportTo(page: Page, sessionHint: string, target: string): Promise<void> {
  await runCommand(page, 'Informer Inspector: Export trace');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // First the session pick (with several sessions) or at once the save dialog (its input holds the proposed path).
  const deadline = Date.now() + 15_000;
  for (;;) {
    const placeholder = (await input.getAttribute('placeholder', { timeout: 1000 }).catch(() => '')) ?? '';
    if (placeholder.includes('which session')) {
      // Filter the pick down to the session and take it.
      await input.fill(sessionHint);
      await page.waitForTimeout(400);
      await page.keyboard.press('Enter');
      break;
    }
    if ((await input.inputValue({ timeout: 1000 }).catch(() => '')).startsWith('/')) break;
    if (Date.now() > deadline) throw new Error(`Export trace showed neither the session pick nor the save dialog (placeholder "${placeholder}")`);
    await page.waitForTimeout(200);
  }
  await typePath(page, target);
}

/**
 * What the view holds equals the session's trace: the view is read (after a moment for the last
 * delta), then the session exported; every event of the trace up to the view's last seq must be
 * in the view and nothing else (a live session may add events after the read). Returns the trace's events.
 */
async function viewEqualsTrace(page: Page, f: FrameLocator, sessionHint: string, dir: string): Promise<RecordedEvent[]> {
  await page.waitForTimeout(1000);
  const held = await viewHolds(f);
  const file = join(dir, `export-${Date.now()}.informer-trace.json`);
  exported.push(file);
  await exportTo(page, sessionHint, file);
  let events: RecordedEvent[] = [];
  const written = await waitUntil(page, 15_000, async () => (events = importTrace(readFileSync(file, 'utf8')).events).length >= 0);
  check(written, `the export to ${file} did not happen`);
  const upTo = events.filter((e) => e.seq <= held.lastSeq);
  check(upTo.length > 0 && upTo[upTo.length - 1].seq === held.lastSeq, `the view's last event (seq ${held.lastSeq}) is not in the trace`);
  check(held.events === upTo.length, `the view holds ${held.events} events up to seq ${held.lastSeq}; the trace has ${upTo.length} up to there`);
  console.log(`    view holds ${held.events} events up to seq ${held.lastSeq}, as the trace does (${events.length - upTo.length} more recorded since)`);
  return events;
}

/** The messages of the notification toasts shown now, one per line. */
async function toastMessages(page: Page): Promise<string> {
  return (await page.locator('.notifications-toasts .notification-list-item-message').allTextContents().catch(() => [] as string[])).join('\n');
}

async function sawNotification(page: Page, text: string | RegExp, ms: number): Promise<string> {
  let seen = '';
  await waitUntil(page, ms, async () => {
    const t = await toastMessages(page);
    const hit = typeof text === 'string' ? t.includes(text) : text.test(t);
    if (hit) seen = t;
    return hit;
  });
  return seen;
}

async function clearNotifications(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  await page.waitForTimeout(300);
}

async function inspect(page: Page, context: string, profile: string, before?: () => void): Promise<void> {
  await runCommand(page, 'Informer Inspector: Inspect informer');
  await answer(page, 'Kubernetes context', context);
  await answer(page, 'Resource to inform on', 'configmaps');
  await answer(page, 'Namespace', 'All namespaces');
  await answer(page, 'Selectors');
  before?.();
  await answer(page, 'behaviour profile', profile);
}

/** The `informer-inspector sandbox` command in its own process; resolves once it printed its kubeconfig. */
async function startSandboxProcess(): Promise<{ child: ChildProcess; kubeconfig: string; ownDir: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), 'sandbox', '--scenario', 'calm', '--output', 'json'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.resume();
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const j = JSON.parse(out) as { kubeconfig: string; kubeconfigPath: string };
      return { child, kubeconfig: j.kubeconfig, ownDir: dirname(j.kubeconfigPath) };
    } catch {
      // not all printed yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the sandbox did not start: ${out.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A folder the extension host cannot write to: a read-only tmpfs as root (root ignores 0555), else a 0555 folder. */
function readOnlyFolder(parent: string): { path: string; release(): void } {
  const path = join(parent, 'read-only');
  mkdirSync(path);
  if (process.getuid?.() === 0) {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', path]);
    if (r.status === 0) return { path, release: () => void spawnSync('umount', [path]) };
    // No mount here (no CAP_SYS_ADMIN): sysfs refuses new files even to root (EACCES), which is the
    // same failure of the extension's write as a read-only folder's.
    const probe = join('/sys', `ii-probe-${process.pid}`);
    try {
      writeFileSync(probe, '');
      rmSync(probe, { force: true });
    } catch {
      console.log(`    (mount refused: ${String(r.stderr).trim()}; exporting into /sys, which root cannot write either)`);
      return { path: '/sys', release: () => undefined };
    }
    throw new Error(`cannot make a read-only folder as root: mount: ${String(r.stderr).trim()}`);
  }
  chmodSync(path, 0o555);
  return { path, release: () => chmodSync(path, 0o755) };
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'ii-faults-e2e-'));
  const clusterStarting = E2ECluster.start();
  clusterStarting.catch(() => undefined);
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const cluster = await clusterStarting;
  const proxy = new FaultProxy({ host: '127.0.0.1', port: cluster.port });
  await proxy.listen();
  const sandbox = await startSandboxProcess();
  const clusterKubeconfig = cluster.writeKubeconfig('through-proxy.kubeconfig', { server: proxy.url });
  const sandboxKubeconfig = join(work, 'sandbox.kubeconfig');
  writeFileSync(sandboxKubeconfig, sandbox.kubeconfig);
  const cs = await startCodeServer(launcher, vsix, 'Default Light Modern', `${clusterKubeconfig}:${sandboxKubeconfig}`);
  const { browser, page } = await openWorkbench(cs.url, { width: 1500, height: 1000 });
  let readOnly: { path: string; release(): void } | undefined;
  try {
    await waitForExtension(page);
    let live: FrameLocator | undefined;
    await step(`the cluster unreachable for ${OUTAGE_S} s with the panel open: a warning, the host answers, a message when it is back`, async () => {
      await inspect(page, 'e2e-inspector', 'v1.36');
      const f = await visibleTimeline(page, { area: 'editor', until: titled('v1.36') });
      live = f;
      check(await waitUntil(page, 30_000, async () => (await chipValue(f, 'synced')) === 'yes'), 'the informer did not sync');
      await clearNotifications(page);
      await proxy.stopListening();
      proxy.cutAll('reset');
      const down = Date.now();
      const warned = await sawNotification(page, 'cannot reach the cluster', 30_000);
      await shot(page, 'faults-unreachable.png');
      check(warned !== '', `no "cannot reach the cluster" warning within 30 s; notifications: "${await notificationsText(page)}"`);
      check(/connection refused|ECONNREFUSED|socket hang up|ECONNRESET/i.test(warned), `the warning does not say why: "${warned}"`);
      console.log(`    warned after ${((Date.now() - down) / 1000).toFixed(1)} s: ${warned.slice(0, 200)}`);
      while (Date.now() - down < OUTAGE_S * 1000) {
        await assertResponsive(page, `${((Date.now() - down) / 1000).toFixed(0)} s into the outage`);
        await page.waitForTimeout(Math.min(10_000, Math.max(0, OUTAGE_S * 1000 - (Date.now() - down))));
      }
      await proxy.listen();
      const back = await sawNotification(page, 'reaches the cluster again', 120_000);
      check(back !== '', 'no "reaches the cluster again" message within 120 s of the cluster coming back');
      check(await waitUntil(page, 30_000, async () => (await chipValue(f, 'state')).startsWith('watching')), `state after the outage: "${await chipValue(f, 'state')}"`);
      await shot(page, 'faults-reachable-again.png');
      await viewEqualsTrace(page, f, 'v1.36', work);
    });

    if (STEPS.has('burst'))
      await step(`a webview reload in the middle of a burst of ${BURST_EVENTS} events: the view holds the trace's events`, async () => {
      check(live !== undefined, 'no cluster session');
      let f = live!;
      await cluster.adminOk('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'burst' } });
      const start = (await viewHolds(f)).lastSeq;
      let writing = true;
      let created = 0;
      let made = 0;
      const writer = async () => {
        const until = Date.now() + 150_000;
        while (writing && Date.now() < until && created < 8000) {
          const n = created++;
          const r = await cluster.admin('POST', '/api/v1/namespaces/burst/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${n}` }, data: { n: String(n) } }).catch(() => undefined);
          if (r?.status === 201) made++;
        }
      };
      const writers = Promise.all(Array.from({ length: 8 }, writer));
      try {
        check(await waitUntil(page, 90_000, async () => (await viewHolds(f)).lastSeq - start >= 3000), 'the burst did not reach 3,000 events');
        const before = await viewHolds(f);
        await runCommand(page, 'Developer: Reload Webviews');
        f = await visibleTimeline(page, { area: 'editor', until: titled('v1.36') });
        const after = await viewHolds(f);
        console.log(`    reloaded at seq ${before.lastSeq} (${before.lastSeq - start} events into the burst); the reloaded view starts at seq ${after.lastSeq}`);
        check(after.lastSeq >= before.lastSeq, `the reloaded view is behind: seq ${after.lastSeq} < ${before.lastSeq}`);
        await assertResponsive(page, 'during the burst', 3);
        check(await waitUntil(page, 150_000, async () => (await viewHolds(f)).lastSeq - start >= BURST_EVENTS), `the burst did not reach ${BURST_EVENTS} events (${(await viewHolds(f)).lastSeq - start}, ${created} ConfigMaps)`);
      } finally {
        writing = false;
        await writers;
      }
      // Quiet: nothing new for 3 s.
      let last = -2;
      await waitUntil(page, 60_000, async () => {
        const s = (await viewHolds(f)).lastSeq;
        const still = s === last;
        last = s;
        if (!still) await page.waitForTimeout(2500);
        return still;
      });
      await shot(page, 'faults-burst-reloaded.png');
      const events = await viewEqualsTrace(page, f, 'v1.36', work);
      console.log(`    ${made} ConfigMaps made ${events[events.length - 1].seq - start} events`);
      // Every ConfigMap the burst created reached the informer once (unless the recorder had to drop events).
      const adds = events.filter((e) => e.type === 'watch.event' && e.eventType === 'ADDED' && (e.key ?? '').startsWith('burst/')).length;
      if (!events.some((e) => e.type === 'trace.dropped')) check(adds === made, `the trace has ${adds} ADDED events of the burst, ${made} ConfigMaps were created`);
    });

    if (STEPS.has('sandbox'))
      await step('the sandbox killed (SIGKILL) during the initial LIST: a warning, the host answers, the view equals the trace', async () => {
      await clearNotifications(page);
      await inspect(page, SANDBOX_CONTEXT, 'v1.15', () => sandbox.child.kill('SIGSTOP'));
      const f = await visibleTimeline(page, { area: 'editor', until: titled('v1.15') });
      const listing = await waitUntil(page, 15_000, async () => (await chipValue(f, 'state')).startsWith('listing'));
      check(listing, `the informer is not listing while the sandbox is stopped: state "${await chipValue(f, 'state')}"`);
      await page.waitForTimeout(1000);
      sandbox.child.kill('SIGKILL');
      const warned = await sawNotification(page, /v1\.15\).*cannot reach the cluster/, 30_000);
      await shot(page, 'faults-sandbox-killed.png');
      check(warned !== '', `no warning after the sandbox was killed; notifications: "${await notificationsText(page)}"`);
      check((await chipValue(f, 'synced')) === 'no', 'synced without a LIST');
      await assertResponsive(page, 'the sandbox killed');
      await viewEqualsTrace(page, f, 'v1.15', work);
    });

    if (STEPS.has('readonly'))
      await step('an export into a read-only folder: one clear error; the next export elsewhere works', async () => {
      readOnly = readOnlyFolder(work);
      await clearNotifications(page);
      const target = join(readOnly.path, 'trace.informer-trace.json');
      await exportTo(page, 'v1.36', target);
      // VS Code's save dialog may refuse the folder itself; otherwise the extension's write fails.
      const widget = page.locator('.quick-input-widget');
      let said = '';
      await waitUntil(page, 15_000, async () => {
        const toast = await toastMessages(page);
        if (toast.includes('Could not save the trace')) said = toast.split('\n').find((l) => l.includes('Could not save the trace')) ?? toast;
        else if (await widget.isVisible()) {
          const t = (await widget.textContent()) ?? '';
          if (/save destination|read-only|readonly/i.test(t)) said = t;
        }
        return said !== '';
      });
      await shot(page, 'faults-export-read-only.png');
      console.log(`    said: ${said.slice(0, 200)}`);
      check(said !== '', `no message for the read-only folder; notifications: "${await notificationsText(page)}"`);
      check(/read-only|readonly|EROFS|EACCES|permission|NoPermissions|save destination/i.test(said), `the message does not say why: "${said}"`);
      check(!/\n|    at /.test(said), 'the message carries a stack');
      if (await widget.isVisible()) await page.keyboard.press('Escape');
      check(!existsSync(target), 'the trace was written into the read-only folder');
      await assertResponsive(page, 'after the failed export');
      // Bring the cluster session's panel to the front (the sandbox's panel was opened after it).
      await page.locator('.tabs-container .tab', { hasText: 'v1.36' }).first().click();
      const f = await visibleTimeline(page, { area: 'editor', until: titled('v1.36') });
      await viewEqualsTrace(page, f, 'v1.36', work);
    });

    if (STEPS.has('changed'))
      await step('the trace file changed on disk under an open trace editor: a message, the editor keeps what it showed', async () => {
      const file = join(work, 'opened.informer-trace.json');
      await exportTo(page, 'v1.36', file);
      check(await waitUntil(page, 15_000, async () => importTrace(readFileSync(file, 'utf8')).events.length >= 0), 'no trace exported');
      const original = readFileSync(file, 'utf8');
      const n = importTrace(original).events.length;
      await runCommand(page, 'Informer Inspector: Open trace');
      await typePath(page, file);
      const f = await visibleTimeline(page, { area: 'editor', until: async (x) => (await chipValue(x, 'state')).includes('(ended)') });
      check((await viewHolds(f)).events === n, `the trace editor holds ${(await viewHolds(f)).events} events, the file ${n}`);
      await clearNotifications(page);
      writeFileSync(file, '{"this is": "not a trace"');
      const bad = await sawNotification(page, 'no longer a trace', 15_000);
      await shot(page, 'faults-trace-changed-garbage.png');
      check(bad !== '', `no message when the file became garbage; notifications: "${await notificationsText(page)}"`);
      check((await viewHolds(f)).events === n, 'the trace editor lost events when the file changed');
      await clearNotifications(page);
      // Another trace: the first one exported in this run.
      const otherText = readFileSync(exported[0], 'utf8');
      const other = importTrace(otherText);
      writeFileSync(file, otherText);
      const changed = await sawNotification(page, `changed on disk (now ${other.events.length} events)`, 15_000);
      check(changed !== '', `no message when the file was replaced by another trace of ${other.events.length} events; notifications: "${await notificationsText(page)}"`);
      check((await viewHolds(f)).events === n, 'the trace editor changed what it shows');
      await assertResponsive(page, 'after the trace file changed');
    });
  } finally {
    await browser.close();
    cs.stop();
    readOnly?.release();
    if (sandbox.child.exitCode === null) {
      sandbox.child.kill('SIGCONT');
      sandbox.child.kill('SIGKILL');
    }
    rmSync(sandbox.ownDir, { recursive: true, force: true });
    await proxy.close();
    await cluster.stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
    const passed = results.filter((r) => r.ok).length;
    console.log(`${passed} passed, ${results.length - passed} failed`);
    if (passed < results.length) process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
