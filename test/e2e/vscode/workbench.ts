/**
 * Driving the code-server workbench from playwright: the command palette, quick inputs, the
 * timeline webviews (outer iframe.webview → inner #active-frame), themes, screenshots and the
 * step bookkeeping behind the runner's `N passed, M failed` line. Every wait is bounded.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { REPO } from './codeServer';

export const SHOTS = join(REPO, 'test-results', 'screenshots');

export const results: { name: string; ok: boolean; error?: string }[] = [];
let currentPage: Page | undefined;

export function usePage(page: Page): void {
  currentPage = page;
}

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Debian's Chromium on a code-server URL: the page is in use for failure screenshots, the
 * workbench has loaded and `settleMs` has passed. The caller closes the browser.
 */
export async function openWorkbench(url: string, viewport: { width: number; height: number }, settleMs = 3000): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport });
    usePage(page);
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(settleMs);
    return { browser, page };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** Runs one step; a failure is recorded with a screenshot and the remaining steps still run. */
export async function step(name: string, fn: () => Promise<void>): Promise<boolean> {
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`  ✔ ${name}`);
    return true;
  } catch (e) {
    results.push({ name, ok: false, error: (e as Error).message });
    console.log(`  ✗ ${name}: ${(e as Error).message.split('\n')[0]}`);
    await currentPage?.screenshot({ path: join(SHOTS, `failure-${results.length}.png`) }).catch(() => undefined);
    await currentPage?.keyboard.press('Escape').catch(() => undefined);
    return false;
  }
}

export function check(cond: boolean, message: string): void {
  if (!cond) throw new Error(message);
}

/** Files under `dir` whose name matches, newest first. */
export function findFiles(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isFile() && pattern.test(entry.name)) out.push(p);
      else if (entry.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

export async function runCommand(page: Page, title: string): Promise<void> {
  await page.locator('.monaco-workbench').click({ position: { x: 600, y: 10 } }).catch(() => undefined);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  // Click the command's own row: the top row (what Enter picks) can be a near match.
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().click({ timeout: 15_000 });
}

/** Waits for the quick input whose placeholder (or prompt) contains `hint`, types `text`, accepts. */
export async function answer(page: Page, hint: string, text?: string): Promise<void> {
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
  const input = page.locator('.quick-input-widget .quick-input-box input');
  if (text !== undefined) {
    await input.fill(text);
    await page.waitForTimeout(300);
  }
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

/**
 * The inner frame of the visible timeline webview that satisfies `where` (a panel in the editor
 * area, the bottom view or the trace editor): hidden webviews keep an iframe, so look at all.
 */
export async function visibleTimeline(
  page: Page,
  where: { area?: 'editor' | 'bottom'; until?: (f: FrameLocator) => Promise<boolean>; /** An element only that webview has (default: the timeline's header). */ marker?: string } = {},
  timeoutMs = 30_000,
): Promise<FrameLocator> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outer = page.locator('iframe.webview');
    const count = await outer.count();
    for (let i = 0; i < count; i++) {
      const box = await outer.nth(i).boundingBox().catch(() => null);
      if (!box || box.width < 50 || box.height < 50 || !(await outer.nth(i).isVisible())) continue;
      // The bottom panel sits in the lower part of the 1000 px high window.
      if (where.area === 'bottom' && box.y < 450) continue;
      if (where.area === 'editor' && box.y >= 450) continue;
      const f = outer.nth(i).contentFrame().frameLocator('#active-frame');
      if (!(await f.locator(where.marker ?? 'header.summary').count().catch(() => 0))) continue;
      if (where.until && !(await where.until(f).catch(() => false))) continue;
      return f;
    }
    if (Date.now() > deadline) throw new Error(`no visible timeline webview${where.area ? ` in the ${where.area} area` : ''} matched in ${timeoutMs / 1000} s`);
    await page.waitForTimeout(500);
  }
}

export async function chipValue(frame: FrameLocator, key: string): Promise<string> {
  return (await frame.locator(`.chip[data-k="${key}"] .chip-value`).textContent({ timeout: 5000 })) ?? '';
}

/** The title of the session the webview shows (its session picker). */
export async function sessionTitle(frame: FrameLocator): Promise<string> {
  return (await frame.locator('.session-select').getAttribute('title', { timeout: 5000 })) ?? '';
}

/** Polls `cond` every 500 ms until it holds or `ms` pass; returns whether it held. */
export async function waitUntil(page: Page, ms: number, cond: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await cond().catch(() => false)) return true;
    await page.waitForTimeout(500);
  }
  return cond().catch(() => false);
}

/**
 * Waits until the extension is there: on a busy machine code-server scans extensions and starts
 * the extension host late, and a palette command run before that is not found. "Stop informer"
 * with none running only says so (and opens nothing); Escape closes what it showed.
 */
export async function waitForExtension(page: Page): Promise<void> {
  await waitUntil(page, 120_000, async () => !((await page.locator('.statusbar').textContent()) ?? '').includes('Activating'));
  await waitUntil(page, 120_000, async () => {
    await runCommand(page, 'Informer Inspector: Stop informer');
    return true;
  });
  await page.keyboard.press('Escape');
}

export async function setTheme(page: Page, theme: string): Promise<void> {
  await runCommand(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(theme);
  // Click the theme's own row: Enter could land on "Browse Additional Color Themes…".
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: theme }).first().click();
  await page.waitForTimeout(1500);
  await page.mouse.move(1480, 980);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.mouse.move(1480, 980);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS, name) });
}

/** The text of the notification toasts currently shown ('' when none are), read without waiting (a locator would wait up to 30 s for toasts that are not there). */
export async function notificationsText(page: Page): Promise<string> {
  return (await page.evaluate('document.querySelector(".notifications-toasts")?.textContent ?? ""').catch(() => '')) as string;
}

/** Types a path into code-server's simple file dialog and accepts it (a second Enter when it only completed the path). */
export async function typePath(page: Page, path: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  // The dialog fills in its start folder right after it shows: type after that.
  await page.waitForTimeout(1000);
  await input.fill(path);
  await page.waitForTimeout(400);
  await page.keyboard.press('Enter');
  await waitUntil(page, 4000, async () => {
    if (!(await input.isVisible())) return true;
    await page.keyboard.press('Enter');
    return false;
  });
}
