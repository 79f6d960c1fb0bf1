/**
 * A long session in code-server (1400×900): the in-memory window is set to 2,000 events
 * (informerInspector.memoryEvents) and a generated scenario of about 20,000 events is replayed
 * (eight LIST + watch cycles, each ended by a 410 Expired watch error, so seven relists), so
 * nine tenths of it spill to disk. Checked against the trace the extension exports:
 * - zoomed out, every relist and LIST of the whole run is a mark (the header's data attributes
 *   count the lanes' marks) and the axis starts at the first event;
 * - brushing the start of the run loads that spilled range from disk: the first LIST and its
 *   events are in the view (its first seq is the trace's first, the list.done is there);
 * - the Events chip says what is in memory and on disk;
 * - the compare view (the replay beside its exported trace) reads the replay's spilled events too:
 *   its group says how many are on disk and loads them when its window settles on them.
 * Screenshots: test-results/screenshots/spill-*.png (light, dark; spill-compare-dark.png the compare view). Prints `N passed, M failed`.
 * Run: npx tsx test/e2e/vscode/spill.e2e.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { importTrace } from '../../../src/trace/traceFile';
import type { RecordedEvent } from '../../../src/format/events';
import { ensureCodeServer, packageExtension, startCodeServer, writeSettings } from './codeServer';
import { compareOpen, openTraceFile } from './compareSteps';
import { SHOTS, answer, check, chipValue, findFiles, openWorkbench, results, runCommand, setTheme, shot, step, typePath, visibleTimeline, waitForExtension, waitUntil } from './workbench';

const CYCLES = 8;
const OBJECTS = 40;
const EVENTS_PER_WATCH = 400;
const EVENT_GAP_MS = 50;

/** A scenario of CYCLES LIST + watch cycles; every watch but the last ends in 410 Expired. */
function longScenario(): unknown {
  const steps: unknown[] = [];
  let rv = 100;
  const obj = (i: number, r: number) => ({ metadata: { namespace: 'default', name: `cm-${i}`, resourceVersion: String(r) }, data: { v: String(r) } });
  for (let c = 0; c < CYCLES; c++) {
    const items = Array.from({ length: OBJECTS }, (_, i) => obj(i, rv - OBJECTS + i));
    steps.push({ on: 'list', resourceVersion: String(rv), items });
    const events = Array.from({ length: EVENTS_PER_WATCH }, (_, k) => ({ type: 'MODIFIED', atMs: (k + 1) * EVENT_GAP_MS, object: obj(k % OBJECTS, ++rv) }));
    const last = c === CYCLES - 1;
    steps.push({
      on: 'watch',
      events,
      durationMs: (EVENTS_PER_WATCH + 2) * EVENT_GAP_MS,
      ...(last ? { close: 'eof' } : { close: 'error', error: { code: 410, reason: 'Expired', message: `too old resource version: ${rv - 5} (${rv})` } }),
    });
    rv += 10;
  }
  return {
    format: 'informer-scenario/v1',
    name: 'long-session',
    description: 'Eight LIST and watch cycles of 400 updates each; seven 410 Expired relists.',
    resource: { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
    informer: { resyncPeriodMs: 0, handlers: [{ name: 'main' }, { name: 'audit' }] },
    gates: { WatchListClient: false },
    profiles: ['v1.36'],
    steps,
  };
}

async function data(f: FrameLocator, key: string): Promise<string> {
  return (await f.locator('header.summary').getAttribute(`data-${key}`, { timeout: 5000 })) ?? '';
}

/** Drags on the brush strip above the lanes from x0 to x1 (px from the plot's left edge). */
async function brush(page: Page, f: FrameLocator, x0: number, x1: number): Promise<void> {
  const box = await f.locator('.plot').boundingBox();
  if (!box) throw new Error('no plot');
  await page.mouse.move(box.x + x0, box.y + 6);
  await page.mouse.down();
  await page.mouse.move(box.x + (x0 + x1) / 2, box.y + 6, { steps: 4 });
  await page.mouse.move(box.x + x1, box.y + 6, { steps: 4 });
  await page.mouse.up();
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const launcher = ensureCodeServer();
  const vsix = packageExtension();
  const cs = await startCodeServer(launcher, vsix, 'Default Light Modern');
  // The small window: written before the extension starts its first session.
  writeSettings(cs.userDir, 'Default Light Modern');
  const settingsPath = join(cs.userDir, 'User', 'settings.json');
  writeFileSync(settingsPath, JSON.stringify({ ...JSON.parse(readFileSync(settingsPath, 'utf8')), 'informerInspector.memoryEvents': 2000 }, null, 2));
  const scenarioPath = join(cs.workspace, 'long-session.json');
  writeFileSync(scenarioPath, JSON.stringify(longScenario()));
  const { browser, page } = await openWorkbench(cs.url, { width: 1400, height: 900 });
  let trace: RecordedEvent[] = [];
  let exported = '';
  let f: FrameLocator | undefined;
  try {
    await waitForExtension(page);
    await step('replay a 20,000-event scenario with a 2,000-event window: most of it spills', async () => {
      await runCommand(page, 'Informer Inspector: Replay scenario');
      await typePath(page, scenarioPath);
      f = await visibleTimeline(page, { area: 'editor', until: async (x) => (await data(x, 'spilled-events')) !== '0' && (await chipValue(x, 'state')).includes('(ended)') }, 120_000);
      const chip = await chipValue(f, 'storage');
      check(/^2,000 in memory · [\d,]+ on disk \(/.test(chip) || /^\d[\d,]* in memory · [\d,]+ on disk \(/.test(chip), `Events chip "${chip}"`);
      check(Number(await data(f, 'spilled-events')) > 15_000, `spilled ${await data(f, 'spilled-events')}`);
    });

    await step('export: the trace file has every event, the spilled ones first', async () => {
      const before = new Set(findFiles(cs.workspace, /\.informer-trace\.json$/));
      await runCommand(page, 'Informer Inspector: Export trace');
      await answer(page, 'Export the trace of which session', 'long-session').catch(() => undefined);
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible' });
      await page.keyboard.press('Enter');
      let saved = '';
      await waitUntil(page, 20_000, async () => {
        saved = findFiles(cs.workspace, /\.informer-trace\.json$/).find((p) => !before.has(p)) ?? '';
        if (!saved) await page.keyboard.press('Enter').catch(() => undefined);
        return saved !== '';
      });
      check(saved !== '', 'nothing was exported');
      exported = saved;
      // The file appears before it is complete: read it once it parses.
      await waitUntil(page, 20_000, async () => {
        trace = importTrace(readFileSync(saved, 'utf8')).events;
        return true;
      });
      check(trace.length >= 18_000, `the export has ${trace.length} events`);
      check(trace[0].seq === 0 && trace.every((e, i) => i === 0 || e.seq > trace[i - 1].seq), 'seqs from 0, increasing');
      console.log(`    export: ${trace.length} events, ${trace.filter((e) => e.type === 'relist').length} relists, ${trace.filter((e) => e.type === 'list.done').length} lists`);
    });

    await step('zoomed out: every relist and LIST of the whole run is on the axis', async () => {
      const v = f!;
      await v.locator('.timeline').focus();
      await page.keyboard.press('0');
      await page.waitForTimeout(800);
      const relists = trace.filter((e) => e.type === 'relist').length;
      const lists = trace.filter((e) => e.type === 'list.done').length;
      check(relists === CYCLES - 1, `the export has ${relists} relists`);
      check((await data(v, 'relist-marks')) === String(relists), `relist marks ${await data(v, 'relist-marks')} vs ${relists} in the export`);
      check((await data(v, 'list-marks')) === String(lists), `LIST marks ${await data(v, 'list-marks')} vs ${lists} in the export`);
      check((await data(v, 'first-seq')) === '0', `the view's first event is seq ${await data(v, 'first-seq')}`);
      await shot(page, 'spill-overview-light.png');
    });

    await step('zoom into the spilled start: the first LIST and its events are loaded and drawn', async () => {
      const v = f!;
      await brush(page, v, 1, 24);
      const loaded = await waitUntil(page, 20_000, async () => Number(await data(v, 'loaded-events')) > 0);
      check(loaded, 'no spilled range was loaded');
      await page.waitForTimeout(800);
      const firstList = trace.find((e) => e.type === 'list.done')!;
      const count = Number(await data(v, 'events'));
      check(count > Number(await data(v, 'spilled-events')) / 20, `the view holds ${count} events`);
      // The view's rows: the first one is the trace's first, and the first LIST's events are there.
      check((await data(v, 'first-seq')) === '0', `first seq ${await data(v, 'first-seq')}`);
      const notifies = trace.filter((e) => e.type === 'notify' && e.seq < firstList.seq + 200).length;
      check(notifies > 0, 'the first LIST notified');
      await shot(page, 'spill-loaded-start-light.png');
      // Select the first LIST by keyboard: Home on the marks lane (the chart's first lane stop), then the details name it.
      await v.locator('.timeline').focus();
      await page.keyboard.press('Home');
      await page.waitForTimeout(500);
      const details = (await v.locator('section.details').textContent()) ?? '';
      console.log(`    details of the first mark: ${details.slice(0, 160).replace(/\s+/g, ' ')}`);
      check(/list/i.test(details), `the details of the first mark: "${details.slice(0, 200)}"`);
      await shot(page, 'spill-loaded-details-light.png');
    });

    await step('dark theme', async () => {
      await setTheme(page, 'Default Dark Modern');
      await shot(page, 'spill-loaded-start-dark.png');
      await f!.locator('.timeline').focus();
      await page.keyboard.press('0');
      await page.waitForTimeout(800);
      await shot(page, 'spill-overview-dark.png');
    });

    await step('compare: the replay beside its exported trace; the replay\'s group loads its spilled events', async () => {
      const spilled = Number(await data(f!, 'spilled-events'));
      await openTraceFile(page, exported);
      await page.waitForTimeout(1500);
      const c = await compareOpen(page, ['long-session (replay', 'informer-trace']);
      const spilledChip = c.locator('.compare-group .chip[data-k="spilled"] .chip-value');
      const shown = await waitUntil(page, 30_000, async () => (await c.locator('.compare-group').count()) === 2 && (await spilledChip.count()) === 1);
      check(shown, `two groups, one of them with spilled events: ${await c.locator('.compare-group').count()} groups, ${await spilledChip.count()} spilled chips`);
      // The whole spilled span (about 21,600 events) is under the loader's limit: the group loads it once its window settles.
      let text = '';
      const loaded = await waitUntil(page, 20_000, async () => /\(\d+ loaded\)$/.test((text = (await spilledChip.textContent()) ?? '')));
      check(loaded, `the replay's group loaded no spilled range: chip "${text}"`);
      check(text.startsWith(`${spilled} (`), `the group's chip "${text}" counts the ${spilled} spilled events`);
      const n = Number(/\((\d+) loaded\)/.exec(text)?.[1] ?? 0);
      check(n >= spilled, `loaded ${n} of ${spilled}`);
      await shot(page, 'spill-compare-dark.png');
    });
  } finally {
    await browser.close().catch(() => undefined);
    cs.stop();
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
