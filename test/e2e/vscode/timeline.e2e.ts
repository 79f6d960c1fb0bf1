/**
 * End-to-end in real VS Code (code-server) in a real browser (Debian chromium via playwright-core):
 * "Inspect informer" from the palette against the SIMULATED sandbox (watch-expiry storyline),
 * the timeline shows a list, a watch and a relist with its reason; keyboard selection shows the
 * reason text; the trace is exported and checked with importTrace, opened again in the trace
 * editor and shows the same numbers. Screenshots in light, dark and high-contrast themes go to
 * test-results/screenshots/. Run: npx tsx test/e2e/vscode/timeline.e2e.ts
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type FrameLocator, type Page } from 'playwright-core';
import { importTrace } from '../../../src/trace/traceFile';
import { REPO, ensureCodeServer, packageExtension, startCodeServer } from './codeServer';

const SHOTS = join(REPO, 'test-results', 'screenshots');
const results: { name: string; ok: boolean; error?: string }[] = [];
let currentPage: Page | undefined;

async function step(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`  ✔ ${name}`);
  } catch (e) {
    results.push({ name, ok: false, error: (e as Error).message });
    console.log(`  ✗ ${name}: ${(e as Error).message.split('\n')[0]}`);
    await currentPage?.screenshot({ path: join(SHOTS, `failure-${results.length}.png`) }).catch(() => undefined);
    throw e;
  }
}

function findFile(dir: string, name: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return p;
    if (entry.isDirectory()) {
      const found = findFile(p, name);
      if (found) return found;
    }
  }
  return undefined;
}

function check(cond: boolean, message: string): void {
  if (!cond) throw new Error(message);
}

async function runCommand(page: Page, title: string): Promise<void> {
  await page.locator('.monaco-workbench').click({ position: { x: 600, y: 10 } }).catch(() => undefined);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  // Click the command's own row: the top row (what Enter picks) can be a near match.
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().click();
}

/** Waits for the quick input whose placeholder (or prompt) contains `hint`, types `text`, accepts. */
async function answer(page: Page, hint: string, text?: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  // A string expression: this file is compiled without the DOM lib (it runs in Node).
  await page.waitForFunction(
    `(() => {
      const w = document.querySelector('.quick-input-widget');
      if (!w || w.style.display === 'none') return false;
      const input = w.querySelector('.quick-input-box input');
      return ((input && input.placeholder) || '').includes(${JSON.stringify(hint)}) || (w.textContent || '').includes(${JSON.stringify(hint)});
    })()`,
    undefined,
    { timeout: 30_000 },
  );
  const input = widget.locator('.quick-input-box input');
  if (text !== undefined) {
    await input.fill(text);
    await page.waitForTimeout(300);
  }
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

/** The inner frame of the webview whose document contains `selector` text. */
async function timelineFrame(page: Page, index: number): Promise<FrameLocator> {
  const outer = page.locator('iframe.webview');
  await page.waitForFunction(`document.querySelectorAll('iframe.webview').length >= ${index + 1}`, undefined, { timeout: 30_000 });
  const frame = page.frameLocator('iframe.webview').nth(index).frameLocator('#active-frame');
  await frame.locator('header.summary').waitFor({ timeout: 30_000 });
  void outer;
  return frame;
}

async function chipValue(frame: FrameLocator, key: string): Promise<string> {
  return (await frame.locator(`.chip[data-k="${key}"] .chip-value`).textContent()) ?? '';
}

async function setTheme(page: Page, theme: string): Promise<void> {
  await runCommand(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(theme);
  // Click the theme's own row: Enter could land on "Browse Additional Color Themes…".
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: theme }).first().click();
  await page.waitForTimeout(1500);
  await page.mouse.move(1480, 980);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.mouse.move(1480, 980);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS, name) });
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const cs = await startCodeServer(launcher, vsix, 'Default Light Modern');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
    currentPage = page;
    await page.goto(cs.url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(3000);

    let live!: FrameLocator;
    await step('Inspect informer from the palette against the SIMULATED sandbox', async () => {
      await runCommand(page, 'Informer Inspector: Inspect informer');
      await answer(page, 'Use the built-in sandbox');
      await answer(page, 'Sandbox storyline', 'watch-expiry');
      await answer(page, 'Resource to inform on', 'configmaps');
      await answer(page, 'Namespace');
      await answer(page, 'Label selector');
      await answer(page, 'Field selector');
      // v1.34: WatchListClient is off, so the initial sync is a real paginated LIST.
      await answer(page, 'behaviour profile', 'v1.34');
      live = await timelineFrame(page, 0);
      check((await chipValue(live, 'simulated')).includes('SIMULATED'), 'the SIMULATED label is missing');
    });

    await step('timeline shows a list, a watch and a relist with its reason', async () => {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && ((await chipValue(live, 'relists')) === '0' || Number(await chipValue(live, 'lists')) < 2)) {
        await page.waitForTimeout(1000);
      }
      await page.waitForTimeout(1500);
      await shot(page, 'timeline-light.png');
      const relists = await chipValue(live, 'relists');
      check(/^\d+ \(.+\)$/.test(relists) && !relists.startsWith('0'), `relists chip: "${relists}"`);
      check(relists.includes('Expired'), `relist reason should be Expired (watch-expiry storyline): "${relists}"`);
      check(Number(await chipValue(live, 'lists')) >= 2, 'expected the initial list and the relist');
      check(Number(await chipValue(live, 'watches')) >= 1, 'expected a watch');
      const label = await live.locator('g.relist text').first().textContent();
      check((label ?? '').startsWith('RELIST '), `relist label on the chart: "${label}"`);
    });

    await step('keyboard: arrow keys reach the relist and the details show client-go\'s reason text', async () => {
      await live.locator('.timeline').focus();
      await page.keyboard.press('Home');
      let title = '';
      for (let i = 0; i < 60 && !title.startsWith('RELIST'); i++) {
        await page.keyboard.press('ArrowRight');
        title = (await live.locator('.details-title').textContent().catch(() => '')) ?? '';
      }
      check(title.startsWith('RELIST'), `no relist reached by keyboard, last: "${title}"`);
      const reason = (await live.locator('.reason-text').textContent()) ?? '';
      check(reason.length > 10, `reason text missing: "${reason}"`);
      const request = (await live.locator('.request-text').textContent()) ?? '';
      check(request.startsWith('GET list'), `request missing: "${request}"`);
      check(await live.locator('.tooltip').isVisible(), 'tooltip should show on keyboard focus');
      await shot(page, 'timeline-light-selected.png');
      await page.keyboard.press('Escape');
      check(!(await live.locator('.tooltip').isVisible()), 'Escape should close the tooltip');
    });

    await step('themes: dark and high contrast', async () => {
      await setTheme(page, 'Dark Modern');
      await shot(page, 'timeline-dark.png');
      await setTheme(page, 'Dark High Contrast');
      await shot(page, 'timeline-high-contrast.png');
      await setTheme(page, 'Light High Contrast');
      await shot(page, 'timeline-high-contrast-light.png');
      await setTheme(page, 'Light Modern');
    });

    const tracePath = join(cs.workspace, 'sandbox.informer-trace.json');
    // code-server's simple file dialog may resolve the typed path under the workspace: find it.
    let savedPath = tracePath;
    await step('export the trace; importTrace accepts it', async () => {
      await runCommand(page, 'Informer Inspector: Export trace');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible' });
      await input.fill(tracePath);
      await page.waitForTimeout(300);
      await page.keyboard.press('Enter');
      const deadline = Date.now() + 15_000;
      let text = '';
      while (Date.now() < deadline) {
        const found = findFile(cs.workspace, 'sandbox.informer-trace.json');
        if (found) {
          savedPath = found;
          text = readFileSync(found, 'utf8');
          break;
        } else {
          await page.waitForTimeout(1000);
          // The simple file dialog may first complete the path; a second Enter accepts it.
          if (await input.isVisible()) await page.keyboard.press('Enter');
        }
      }
      await shot(page, 'after-export.png');
      check(text.length > 0, 'no trace file written');
      const trace = importTrace(text);
      check(trace.header.source === 'sandbox', `header.source = ${trace.header.source}`);
      check(trace.events.some((e) => e.type === 'relist'), 'exported trace has no relist');
    });

    await step('open the exported trace again: the trace editor shows the same timeline', async () => {
      const trace = importTrace(readFileSync(savedPath, 'utf8'));
      const relists = trace.events.filter((e) => e.type === 'relist').length;
      const lists = trace.events.filter((e) => e.type === 'list.done').length;
      await runCommand(page, 'Informer Inspector: Open trace');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible' });
      await input.fill(tracePath);
      await page.waitForTimeout(300);
      await page.keyboard.press('Enter');
      // The live panel's tab is now hidden (its iframe is gone): the editor's is the one showing.
      await page.waitForTimeout(3000);
      const frames = page.frameLocator('iframe.webview');
      let found = false;
      const count = await page.locator('iframe.webview').count();
      for (let i = 0; i < count && !found; i++) {
        const f = frames.nth(i).frameLocator('#active-frame');
        const state = await f.locator('.chip[data-k="state"] .chip-value').textContent({ timeout: 5000 }).catch(() => '');
        if (!state?.includes('(ended)')) continue;
        found = true;
        const shown = await chipValue(f, 'relists');
        check(shown.startsWith(`${relists} `), `trace editor relists "${shown}", file has ${relists}`);
        check((await chipValue(f, 'lists')) === String(lists), 'trace editor list count differs from the file');
        check((await f.locator('g.relist').count()) > 0, 'trace editor shows no relist mark');
      }
      check(found, 'no trace editor webview found');
      await shot(page, 'trace-editor-light.png');
    });
  } finally {
    await browser.close();
    cs.stop();
    const passed = results.filter((r) => r.ok).length;
    console.log(`${passed} passed, ${results.length - passed} failed`);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
