/**
 * The compare view and find-and-filter as a user drives them in code-server: the steps
 * storylines.e2e.ts runs (Compare from the palette on restart-storm, v1.15 against v1.36; the
 * search box and a key filter on etcd-lost-delete).
 */
import type { FrameLocator, Page } from 'playwright-core';
import { answer, check, chipValue, runCommand, visibleTimeline, waitUntil } from './workbench';

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
