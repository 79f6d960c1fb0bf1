/**
 * The compare view and find-and-filter as a user drives them in code-server: the steps
 * storylines.e2e.ts runs (Compare from the palette on restart-storm, v1.15 against v1.36; two
 * trace files compared and the view after a window reload; the search box and a key filter on
 * etcd-lost-delete).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { REPO } from './codeServer';
import { answer, check, chipValue, runCommand, shot, typePath, visibleTimeline, waitUntil } from './workbench';

/** The inner frame of the visible compare view. */
export function visibleCompare(page: Page, timeoutMs = 30_000): Promise<FrameLocator> {
  return visibleTimeline(page, { marker: '.compare-groups' }, timeoutMs);
}

/** "Compare informers" from the palette: a sandbox storyline under the default profiles (v1.15 and v1.36). */
export async function startCompare(page: Page, storyline: string): Promise<FrameLocator> {
  await runCommand(page, 'Informer Inspector: Compare informers on one time axis');
  await answer(page, 'Compare informers on one time axis', 'Start a sandbox storyline');
  await answer(page, 'Sandbox storyline', storyline);
  await answer(page, 'Profiles to compare');
  return visibleCompare(page);
}

/** A group's chip value ("relists", "lists", …) in the compare view, by its profile. */
export async function groupChip(f: FrameLocator, profile: string, key: string): Promise<string> {
  const group = f.locator('.compare-group', { has: f.locator(`.compare-head[data-profile="${profile}"]`) });
  return (await group.locator(`.chip[data-k="${key}"] .chip-value`).textContent({ timeout: 5000 })) ?? '';
}

/** The axis tick labels of each group, top to bottom. */
export async function groupTicks(f: FrameLocator): Promise<string[][]> {
  const groups = f.locator('.compare-group');
  const out: string[][] = [];
  for (let i = 0; i < (await groups.count()); i++) out.push(await groups.nth(i).locator('g.axis .tick text').allTextContents());
  return out;
}

/** Search box and key filter on a timeline showing `key`: history, chip, clear. */
export async function findAndFilter(page: Page, f: FrameLocator, typed: string, key: string): Promise<void> {
  const search = f.locator('input.key-search');
  await search.click();
  await search.fill(typed);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(500);
  const head = (await f.locator('.history h4').textContent({ timeout: 5000 })) ?? '';
  check(head.startsWith(`History of ${key}`), `the search box opens the history of ${key}: "${head}"`);
  // The chart's tooltip (shown when the chart has focus) never covers the details heading.
  await f.locator('.timeline').focus();
  await page.waitForTimeout(300);
  const tip = await f.locator('.tooltip').boundingBox();
  const heading = await f.locator('.details h3').boundingBox();
  check(!!tip && !!heading, `tooltip ${JSON.stringify(tip)} and details heading ${JSON.stringify(heading)} are shown`);
  if (tip && heading) {
    const apart = tip.y + tip.height <= heading.y || heading.y + heading.height <= tip.y || tip.x + tip.width <= heading.x || heading.x + heading.width <= tip.x;
    check(apart, `the tooltip ${JSON.stringify(tip)} covers the details heading ${JSON.stringify(heading)}`);
  }
  check((await search.inputValue()) === key, `the search box completes "${typed}" to the key: "${await search.inputValue()}"`);
  await f.locator('.filterbar button', { hasText: 'Filter' }).click();
  await page.waitForTimeout(500);
  const chip = (await f.locator('.filter-chip').textContent()) ?? '';
  check(await f.locator('.filter-chip').isVisible(), 'a filter chip shows while a filter is on');
  check(chip.includes(`key ${key}`), `filter chip "${chip}"`);
  // The summary counts the whole trace whatever the filter shows.
  check((await chipValue(f, 'tombstones')) === '1', `the header still counts the whole trace under a filter: tombstones "${await chipValue(f, 'tombstones')}"`);
}

/** Clears the filter with the chip's button, by keyboard. */
export async function clearFilterByKeyboard(page: Page, f: FrameLocator): Promise<void> {
  await f.locator('.filter-chip button').focus();
  await page.keyboard.press('Enter');
  const gone = await waitUntil(page, 3000, async () => !(await f.locator('.filter-chip').isVisible()));
  check(gone, 'Enter on the chip\'s ✕ clears the filter');
}

/** Opens a trace file in its editor ("Open trace" from the palette, the path typed into the file dialog). */
export async function openTraceFile(page: Page, path: string): Promise<void> {
  await runCommand(page, 'Informer Inspector: Open trace');
  await typePath(page, path);
}

/** "Compare informers" → "Compare sessions that are open", ticking the sessions whose titles contain `titles`. */
export async function compareOpen(page: Page, titles: readonly string[]): Promise<FrameLocator> {
  await runCommand(page, 'Informer Inspector: Compare informers on one time axis');
  await answer(page, 'Compare informers on one time axis', 'Compare sessions that are open');
  await page.waitForFunction(`(document.querySelector('.quick-input-widget .quick-input-box input')?.placeholder ?? '').includes('Sessions to show')`, undefined, { timeout: 15_000 });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  for (const t of titles) {
    await input.fill(t);
    await page.waitForTimeout(300);
    // In a pick-many list a click on the row ticks it.
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: t }).first().click();
  }
  await input.fill('');
  await page.keyboard.press('Enter');
  return visibleCompare(page);
}

/** The profiles of the compare view's groups with lanes, and of the lines that say a session is gone (each sorted). */
export async function compareGroups(f: FrameLocator): Promise<{ shown: string[]; gone: string[] }> {
  const shown = await f.locator('.compare-head').evaluateAll((hs: { dataset: { profile?: string } }[]) => hs.map((h) => h.dataset.profile ?? ''));
  const gone = await f.locator('.compare-gone-item').evaluateAll((hs: { dataset: { profile?: string } }[]) => hs.map((h) => h.dataset.profile ?? ''));
  return { shown: shown.sort(), gone: gone.sort() };
}

/**
 * Two traces of one scenario (replayed as v1.15 and as v1.36 by the CLI into `workspace`) opened
 * and compared, then Developer: Reload Window: the traces' compare view is back with both groups
 * and the same numbers, and an earlier sandbox comparison (its informers ran in the old extension
 * host) names both of its sessions as gone.
 */
export async function compareAcrossReload(page: Page, workspace: string): Promise<void> {
  // Two traces of one scenario replayed as v1.15 and as v1.36, written by the CLI into the workspace.
  const traces = ['v1.15', 'v1.36'].map((profile) => {
    const file = join(workspace, `restore-${profile.replace('.', '')}.informer-trace.json`);
    const scenario = join(REPO, 'test/conformance/scenarios/apiserver-restart-v115.json');
    // v1.36 diverges from this v1.15 scenario's script (exit 1) and still writes its trace.
    spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'replay', scenario, '--profile', profile, '--trace', file, '--log', '/dev/null'], { stdio: 'ignore' });
    check(existsSync(file), `the CLI wrote ${file}`);
    return file;
  });
  for (const t of traces) await openTraceFile(page, t);
  const before = await compareOpen(page, ['restore-v115', 'restore-v136']);
  check(await waitUntil(page, 20_000, async () => (await compareGroups(before)).shown.length === 2), `groups before the reload: ${JSON.stringify(await compareGroups(before))}`);
  const lists = async (f: FrameLocator) => [await groupChip(f, 'v1.15', 'lists'), await groupChip(f, 'v1.36', 'lists')];
  const listsBefore = await lists(before);
  await runCommand(page, 'Developer: Reload Window');
  await page.waitForTimeout(2000);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  // The traces' compare view was the active tab: it is back, with both traces' groups and their numbers.
  const after = await visibleCompare(page, 60_000);
  const back = await waitUntil(page, 30_000, async () => JSON.stringify(await compareGroups(after)) === JSON.stringify({ shown: ['v1.15', 'v1.36'], gone: [] }));
  await shot(page, 'compare-restored-light.png');
  check(back, `the compare view after the reload: ${JSON.stringify(await compareGroups(after))}`);
  check(JSON.stringify(await lists(after)) === JSON.stringify(listsBefore), `lists per group before ${JSON.stringify(listsBefore)}, after ${JSON.stringify(await lists(after))}`);
  // The sandbox comparison's informers ran in the old extension host: its view says both are gone.
  // (VS Code revives a hidden panel when it is shown: its tab keeps the old title until then.)
  await page.locator('.tabs-container .tab', { hasText: 'Compare:' }).first().click();
  const stopped = await visibleCompare(page);
  const gone = await waitUntil(page, 20_000, async () => JSON.stringify(await compareGroups(stopped)) === JSON.stringify({ shown: [], gone: ['v1.15', 'v1.36'] }));
  await shot(page, 'compare-restored-gone-light.png');
  check(gone, `the sandbox compare view after the reload: ${JSON.stringify(await compareGroups(stopped))}`);
  const why = (await stopped.locator('.compare-gone').textContent()) ?? '';
  check(why.includes('before the window reloaded'), `the gone lines say why: "${why}"`);
  const tab = page.locator('.tabs-container .tab.active');
  check(((await tab.textContent()) ?? '').includes('(stopped by reload)'), `the tab of a compare view with none left: "${await tab.textContent()}"`);
}
