/**
 * What a user sees of the sandbox storylines at 1400×900 in code-server (real VS Code, Debian
 * chromium): the numbers on screen agree with each other (header chips, the Findings tab, the
 * status bar), the stale-cache row of the etcd-lost-delete story, one-line findings that expand,
 * light / dark / high contrast, the bottom panel in its compact layout (no dropdown text cut, also
 * at 800×600), find and filter, the compare view (restart-storm as v1.15 and v1.36 on one time
 * axis) and the compare views after a window reload.
 * Screenshots go to test-results/screenshots/storyline-*.png. Prints `N passed, M failed`.
 * Run: npx tsx test/e2e/vscode/storylines.e2e.ts
 */
import { mkdirSync } from 'node:fs';
import type { FrameLocator, Page } from 'playwright-core';
import { ensureCodeServer, packageExtension, startCodeServer } from './codeServer';
import { clearFilterByKeyboard, compareAcrossReload, findAndFilter, groupChip, groupTicks, startCompare } from './compareSteps';
import { clippedSelects } from './layoutChecks';
import { SHOTS, answer, check, chipValue, results, runCommand, sessionTitle, setTheme, shot, openWorkbench, step, visibleTimeline, waitForExtension, waitUntil } from './workbench';

async function inspectSandbox(page: Page, storyline: string, profile: string): Promise<void> {
  await runCommand(page, 'Informer Inspector: Inspect informer');
  // Without a kubeconfig the first question is "… Use the built-in sandbox?"; with one it lists contexts and the sandbox.
  await answer(page, 'sandbox', 'Built-in sandbox cluster');
  await answer(page, 'Sandbox storyline', storyline);
  await answer(page, 'Resource to inform on', 'configmaps');
  await answer(page, 'Namespace', 'All namespaces');
  await answer(page, 'Selectors');
  await answer(page, 'behaviour profile', profile);
}

/** The little of the DOM a check in the page uses (the e2e code compiles without the DOM library). */
interface DomBox {
  getBoundingClientRect(): { right: number; bottom: number };
  ownerDocument: { documentElement: { clientWidth: number } };
  querySelectorAll(selector: string): Iterable<DomBox & { textContent: string | null }>;
}

const THEMES = [
  ['Default Light Modern', 'light'],
  ['Default Dark Modern', 'dark'],
  ['Default High Contrast', 'hc'],
] as const;

const titled = (text: string) => async (f: FrameLocator) => (await sessionTitle(f)).includes(text);

/**
 * The Findings tab says "Findings (N)": the same N as the header chip and the number of headlines.
 * A live session's findings change while the three are read one after the other, so they must
 * agree within a few seconds (a lasting disagreement fails).
 */
async function findingsAgree(page: Page, f: FrameLocator): Promise<void> {
  const read = async () => [await chipValue(f, 'findings'), (await f.locator('#tab-findings').textContent()) ?? '', String(await f.locator('.finding-head').count())];
  await waitUntil(page, 5000, async () => {
    const [c, t, h] = await read();
    return t === `Findings (${c})` && h === c;
  });
  const chip = await chipValue(f, 'findings');
  const tab = (await f.locator('#tab-findings').textContent()) ?? '';
  check(tab === `Findings (${chip})`, `findings chip "${chip}" vs tab "${tab}"`);
  const headlines = await f.locator('.finding-head').count();
  check(String(headlines) === chip, `findings chip "${chip}" vs ${headlines} headlines`);
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const cs = await startCodeServer(launcher, vsix, 'Default Light Modern');
  const { browser, page } = await openWorkbench(cs.url, { width: 1400, height: 900 });
  try {
    // The storylines are shot in the editor area: the wait leaves the bottom panel closed.
    await waitForExtension(page);

    let lost: FrameLocator | undefined;
    await step('etcd-lost-delete, v1.36: tombstone counted, the stale-cache window on the object\'s row and in the header', async () => {
      await inspectSandbox(page, 'etcd-lost-delete', 'v1.36');
      lost = await visibleTimeline(page, { area: 'editor', until: titled('v1.36') });
      const f = lost;
      const ok = await waitUntil(page, 45_000, async () => (await chipValue(f, 'tombstones')) !== '0' && (await f.locator('.chip[data-k="stale"]').count()) > 0);
      await page.waitForTimeout(1500);
      await shot(page, 'storyline-etcd-lost-delete-v136-light.png');
      check(ok, `tombstones "${await chipValue(f, 'tombstones')}", stale chip ${await f.locator('.chip[data-k="stale"]').count()}`);
      check((await chipValue(f, 'tombstones')) === '1', `tombstones chip "${await chipValue(f, 'tombstones')}" (RealFIFO makes its tombstone at distribution)`);
      check(/^1 object, up to \d+\.\d s$/.test(await chipValue(f, 'stale')), `stale chip "${await chipValue(f, 'stale')}"`);
      const lanes = (await f.locator('.lane-labels').textContent()) ?? '';
      check(lanes.includes('Stale team-a/doomed-config-1'), `lane labels: "${lanes}"`);
      await findingsAgree(page, f);
      const tomb = (await f.locator('.finding-head', { hasText: 'tombstone' }).first().textContent()) ?? '';
      check(tomb.includes('1 delete delivered'), `the tombstone finding says "${tomb}"`);
    });

    await step('findings: one-line headlines; one expands; evidence opens the Details tab with the chart in view', async () => {
      const f = lost!;
      await f.locator('.finding-head').first().click();
      await page.waitForTimeout(300);
      await shot(page, 'storyline-findings-expanded-light.png');
      const evidence = f.locator('.finding-item[open] .link-button', { hasText: 'Show evidence' }).first();
      check((await evidence.count()) === 1, 'an expanded finding shows its evidence button');
      await evidence.click();
      await page.waitForTimeout(500);
      check((await f.locator('#tab-details').getAttribute('aria-selected')) === 'true', 'evidence opens the Details tab');
      const chartBox = await f.locator('.chart').boundingBox();
      check(!!chartBox && chartBox.y >= 0 && chartBox.y < 300, `the chart stays in view (top ${chartBox?.y})`);
      await shot(page, 'storyline-details-light.png');
    });

    await step('an object\'s history: the tombstone\'s evidence shows every event of the lost object', async () => {
      const f = lost!;
      await f.locator('#tab-findings').click();
      const tomb = f.locator('.finding-item', { hasText: 'tombstone' }).first();
      await tomb.locator('.finding-head').click();
      await tomb.locator('.link-button', { hasText: 'Show evidence' }).click();
      await page.waitForTimeout(500);
      const head = (await f.locator('.history h4').textContent({ timeout: 5000 })) ?? '';
      await shot(page, 'storyline-object-history-light.png');
      check(head.startsWith('History of team-a/doomed-config-1'), `history heading "${head}"`);
      const rows = ((await f.locator('.history-rows').textContent()) ?? '').toLowerCase();
      check(rows.includes('added') && rows.includes('tombstone'), `the history shows the ADDED and the tombstone: "${rows.slice(0, 400)}"`);
    });

    await step('find and filter: the search box finds the lost object, a key filter shows a chip that clears by keyboard', async () => {
      const f = lost!;
      await findAndFilter(page, f, 'doomed', 'team-a/doomed-config-1');
      await shot(page, 'storyline-filter-light.png');
      await clearFilterByKeyboard(page, f);
    });

    for (const [theme, name] of [
      ['Default Dark Modern', 'dark'],
      ['Default High Contrast', 'hc'],
      ['Default High Contrast Light', 'hc-light'],
    ] as const) {
      await step(`etcd-lost-delete in ${theme}`, async () => {
        await setTheme(page, theme);
        await shot(page, `storyline-etcd-lost-delete-v136-${name}.png`);
      });
    }
    await setTheme(page, 'Default Light Modern').catch(() => undefined);

    await step('restart-storm, v1.15: relists, with those whose LIST was refused named; the status bar agrees', async () => {
      await inspectSandbox(page, 'restart-storm', 'v1.15');
      const f = await visibleTimeline(page, { area: 'editor', until: titled('v1.15') });
      const ok = await waitUntil(page, 45_000, async () => Number((await chipValue(f, 'relists')).split(' ')[0]) >= 2);
      await page.waitForTimeout(2500);
      await shot(page, 'storyline-restart-storm-v115-light.png');
      const relists = await chipValue(f, 'relists');
      check(ok, `relists chip "${relists}"`);
      await findingsAgree(page, f);
      const bar = (await page.locator('.statusbar-item', { hasText: 'informer' }).first().getAttribute('aria-label').catch(() => '')) ?? '';
      check(bar !== '', 'no status bar item');
      for (const [theme, name] of THEMES.slice(1)) {
        await setTheme(page, theme);
        await shot(page, `storyline-restart-storm-v115-${name}.png`);
      }
    });

    for (const [story, profile] of [
      ['watch-expiry', 'v1.36'],
      ['calm', 'v1.36'],
    ] as const) {
      await step(`${story}, ${profile}: the timeline in light, dark and high contrast`, async () => {
        await inspectSandbox(page, story, profile);
        const f = await visibleTimeline(page, { area: 'editor', until: titled(profile) });
        const synced = await waitUntil(page, 45_000, async () => (await chipValue(f, 'synced')) === 'yes');
        await page.waitForTimeout(story === 'watch-expiry' ? 12_000 : 4000);
        check(synced, `${story} did not sync`);
        await findingsAgree(page, f);
        for (const [theme, name] of THEMES) {
          await setTheme(page, theme);
          await shot(page, `storyline-${story}-${profile.replace('.', '')}-${name}.png`);
        }
      });
    }

    await step('compare: restart-storm as v1.15 and v1.36, started together, on one time axis with one zoom', async () => {
      const f = await startCompare(page, 'restart-storm');
      check(await waitUntil(page, 30_000, async () => (await f.locator('.compare-group').count()) === 2), `groups: ${await f.locator('.compare-group').count()}`);
      const title = (await f.locator('.compare-title').textContent()) ?? '';
      check(title.includes('2 informers on one time axis · aligned on wall-clock time'), `compare title "${title}"`);
      const stormy = await waitUntil(page, 45_000, async () => Number((await groupChip(f, 'v1.15', 'relists')).split(' ')[0]) >= 2);
      await page.waitForTimeout(2000);
      check(stormy, `v1.15 relists "${await groupChip(f, 'v1.15', 'relists')}"`);
      // Two sessions on screen, none of them "the" one: the status bar says its count is a sum.
      const bar = await waitUntil(page, 5000, async () => ((await page.locator('.statusbar-item', { hasText: 'informers' }).first().textContent()) ?? '').includes('in all'));
      check(bar, `status bar with the compare view on screen: "${await page.locator('.statusbar-item', { hasText: 'informers' }).first().textContent()}"`);
      // Live groups redraw as their batches arrive and the ticks are read one group after the
      // other, so a read can straddle a redraw: the axes must agree within a few reads.
      let [a, b] = await groupTicks(f);
      await waitUntil(page, 5000, async () => {
        [a, b] = await groupTicks(f);
        return a.length > 1 && JSON.stringify(a) === JSON.stringify(b);
      });
      check(a.length > 1 && JSON.stringify(a) === JSON.stringify(b), `the two groups share one axis: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      for (const [theme, name] of THEMES) {
        await setTheme(page, theme);
        await shot(page, `compare-restart-storm-${name}.png`);
      }
      await setTheme(page, 'Default Light Modern');
      // Zoom in on the first group with the wheel: the second group shows the same window.
      await f.locator('.compare-group').first().locator('.plot').hover();
      await page.mouse.wheel(0, -400);
      await page.waitForTimeout(800);
      // The groups draw one window held once by the view (webview/model/sharedWindow.ts), and the
      // wheel stopped following, so it no longer moves: the first read agrees. One re-read allows
      // for a read that straddles the redraw that puts the zoom on screen.
      let [za, zb] = await groupTicks(f);
      if (JSON.stringify(za) !== JSON.stringify(zb)) {
        console.log(`    (the first read after the zoom straddled a redraw: ${JSON.stringify(za)} vs ${JSON.stringify(zb)}; reading again)`);
        await page.waitForTimeout(250);
        [za, zb] = await groupTicks(f);
      }
      check(JSON.stringify(za) !== JSON.stringify(a), `the wheel zoomed: ${JSON.stringify(za)}`);
      check(JSON.stringify(za) === JSON.stringify(zb), `zoom is shared: ${JSON.stringify(za)} vs ${JSON.stringify(zb)}`);
      // The informers go on (batches, clock ticks): the window the wheel chose stays, in both groups.
      await page.waitForTimeout(2000);
      const [la, lb] = await groupTicks(f);
      check(JSON.stringify(la) === JSON.stringify(za) && JSON.stringify(lb) === JSON.stringify(za), `the zoomed window stays while live: ${JSON.stringify(za)}, 2 s later ${JSON.stringify(la)} vs ${JSON.stringify(lb)}`);
      await shot(page, 'compare-restart-storm-zoomed-light.png');
      // The numbers in a group's heading are its session's: the bottom view shows the v1.36 session (started last).
      await runCommand(page, 'Informer Inspector: Show timeline');
      const bottom = await visibleTimeline(page, { area: 'bottom', until: titled('v1.36') });
      const agree = await waitUntil(page, 10_000, async () => (await chipValue(bottom, 'relists')) === (await groupChip(f, 'v1.36', 'relists')) && (await chipValue(bottom, 'lists')) === (await groupChip(f, 'v1.36', 'lists')));
      await shot(page, 'compare-and-bottom-panel-light.png');
      check(agree, `v1.36 relists: bottom view "${await chipValue(bottom, 'relists')}", compare "${await groupChip(f, 'v1.36', 'relists')}"`);
    });

    await step('the bottom panel at its default height uses the compact layout', async () => {
      await runCommand(page, 'Informer Inspector: Show timeline');
      const f = await visibleTimeline(page, { area: 'bottom' });
      await page.waitForTimeout(1500);
      const compact = await f.locator('main#app.compact').count();
      await shot(page, 'storyline-bottom-panel-light.png');
      check(compact === 1, 'the bottom panel is not in the compact layout');
      // Every chip lies wholly inside the header (a one-line row that scrolled sideways clipped the last chips).
      const clipped = await f.locator('header.summary').evaluate((h: DomBox) => {
        const box = h.getBoundingClientRect();
        const right = Math.min(box.right, h.ownerDocument.documentElement.clientWidth);
        return [...h.querySelectorAll('.chip')].filter((c) => {
          const r = c.getBoundingClientRect();
          return r.right > right + 0.5 || r.bottom > box.bottom + 0.5;
        }).map((c) => c.textContent ?? '');
      });
      check(clipped.length === 0, `chips cut off on the right in the bottom panel: ${JSON.stringify(clipped)}`);
      const tabs = await f.locator('#tab-findings').boundingBox();
      check(!!tabs && tabs.y < 900 - 60, `the findings tab is in view in the bottom panel (top ${tabs?.y} of 900)`);
      const lanes = (await f.locator('.lane-labels').textContent()) ?? '';
      check(lanes.includes('Handler main'), `the handler lane is there in the bottom panel: "${lanes}"`);
      // A select cuts its text without a sign ("any opera"): each one must be as wide as its text needs.
      const cut = await clippedSelects(f);
      check(cut.length === 0, `dropdown text cut off in the bottom panel: ${JSON.stringify(cut)}`);
      await setTheme(page, 'Default Dark Modern');
      await shot(page, 'storyline-bottom-panel-dark.png');
      await setTheme(page, 'Default High Contrast');
      await shot(page, 'storyline-bottom-panel-hc.png');
      await setTheme(page, 'Default Light Modern');
      // A narrow, short window: the filter bar wraps, and no dropdown is cut.
      await page.setViewportSize({ width: 800, height: 600 });
      await page.waitForTimeout(1500);
      await shot(page, 'storyline-bottom-panel-narrow-light.png');
      const narrowCut = await clippedSelects(f);
      check(narrowCut.length === 0, `dropdown text cut off in the bottom panel at 800×600: ${JSON.stringify(narrowCut)}`);
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.waitForTimeout(1000);
    });

    await step('compare after a window reload: compared traces come back with the same groups; sandbox informers are named as gone', () => compareAcrossReload(page, cs.workspace));
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
