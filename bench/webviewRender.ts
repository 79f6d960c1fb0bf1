/**
 * (e) The timeline webview in a real browser: headless Debian chromium (playwright-core) runs the
 * webview bundle (bench/webviewHarness.ts), which gets a snapshot of 100k / 500k engine events
 * and then delta batches through the real protocol messages. Measured per page:
 *
 * - first render: snapshot text → JSON.parse → posted → handled (ingest) → first render callback
 *   → next frame; the JS heap after a forced GC once it is shown;
 * - zoom: wheel steps of ×2 at the middle of the plot (real input events), from the whole trace in;
 * - pan: a drag across a ×8 zoomed view, one mouse move per frame;
 * - follow-live: delta batches posted every 33 ms (the host's rate) while following.
 *
 * A frame's cost is the renderer main thread's CPU time for it (CDP Performance metrics in
 * thread ticks: input handling, the render callback, style, layout, paint, canvas raster), minus
 * the probe's own cost (same probe with no input, median); the render callback's wall time is
 * shown beside it. Pages of every bundle and size are interleaved per repetition, each fresh.
 */
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { DeltaNotification, SnapshotNotification, type SessionInfo } from '../src/protocol/timeline';
import { computeFindings } from '../src/trace/findings';
import { CHROMIUM, CHROMIUM_ARGS, HarnessServer, buildWebviewBundle } from './webviewHarness';
import { summarize, table } from './stats';
import type { GeneratedTrace } from './traceSource';

export interface RenderOptions {
  sizes: readonly number[];
  repeats: number;
  zoomSteps: number;
  panSteps: number;
  /** Delta batches posted at 30/s while following, and events per batch. */
  batches: number;
  batchSize: number;
  /** git revision of a bundle to compare against (before/after in the same run). */
  baseline?: string;
  /** Where to save a screenshot of the largest size, first repetition, current bundle. */
  screenshot?: string;
}

const VIEWPORT = { width: 1400, height: 900 };
const BATCH_INTERVAL_MS = 33;
const FRAME_BUDGET_MS = 16;

interface FirstRender {
  parseMs: number;
  handlerMs: number;
  renderMs: number;
  renderedMs: number;
  nextFrameMs: number;
}

interface PageResult {
  first: FirstRender;
  firstCpuMs: number;
  heapMB: number;
  zoomCpu: number[];
  zoomJs: number[];
  panCpu: number[];
  panJs: number[];
  follow: { frames: number[]; handlers: number[]; cpuPerBatch: number; wallMs: number };
}

async function mainThreadMs(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const task = metrics.find((m) => m.name === 'TaskDuration');
  if (!task) throw new Error('no TaskDuration metric');
  return task.value * 1000;
}

/** One measured input step: main-thread ms (probe cost not yet removed) and the render callbacks' wall ms. */
async function step(page: Page, cdp: CDPSession, input: () => Promise<void>): Promise<{ cpu: number; js: number }> {
  const f0 = await page.evaluate<number>('__bench.frames.length');
  const m0 = await mainThreadMs(cdp);
  await input();
  await page.evaluate('__bench.settle()');
  const cpu = (await mainThreadMs(cdp)) - m0;
  const frames = await page.evaluate<number[]>(`__bench.framesSince(${f0})`);
  return { cpu, js: frames.reduce((a, b) => a + b, 0) };
}

/** One page load: a bundle, a snapshot size and a device pixel ratio (2 = a HiDPI screen: 4× the canvas pixels). */
interface Cell {
  bundle: string;
  size: number;
  dpr: number;
}

const cellKey = (c: Cell) => `${c.bundle}/${c.size}/${c.dpr}`;

async function runPage(browser: Browser, base: string, { bundle, size, dpr }: Cell, o: RenderOptions, shot?: string): Promise<PageResult> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: dpr });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    await page.goto(`${base}/page/${bundle}`);
    await page.waitForFunction('__bench.ready()');
    await page.evaluate(`__bench.fetchText('/blob/snapshot-${size}')`);
    const c0 = await mainThreadMs(cdp);
    const first = await page.evaluate<FirstRender>('__bench.firstRender()');
    const firstCpuMs = (await mainThreadMs(cdp)) - c0;
    await cdp.send('HeapProfiler.collectGarbage');
    const heapMB = (await cdp.send('Runtime.getHeapUsage')).usedSize / 1e6;
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await page.evaluate(`__bench.fetchDeltas('/blob/deltas-${size}')`);

    const box = await page.locator('.plot').boundingBox();
    if (!box) throw new Error('no plot on the page');
    const cx = box.x + box.width / 2;
    const cy = box.y + 80;
    await page.mouse.move(cx, cy);
    // Warm-up (first wheel creates d3's gesture state, JIT) and the probe's own cost, untimed as frames.
    await page.evaluate('__bench.settle()');
    const probe: number[] = [];
    for (let i = 0; i < 7; i++) probe.push((await step(page, cdp, async () => undefined)).cpu);
    const overhead = summarize(probe).median;

    const zoomCpu: number[] = [];
    const zoomJs: number[] = [];
    for (let i = 0; i < o.zoomSteps; i++) {
      const s = await step(page, cdp, () => page.mouse.wheel(0, -500)); // d3-zoom: 2^(500·0.002) = ×2
      zoomCpu.push(Math.max(0, s.cpu - overhead));
      zoomJs.push(s.js);
    }

    // Back to the whole trace, then ×8 around the middle, then drag.
    await page.focus('.timeline');
    await page.keyboard.press('0');
    for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -500);
    await page.evaluate('__bench.settle()');
    const panCpu: number[] = [];
    const panJs: number[] = [];
    await page.mouse.down();
    for (let i = 1; i <= o.panSteps; i++) {
      const s = await step(page, cdp, () => page.mouse.move(cx - i * 25, cy));
      panCpu.push(Math.max(0, s.cpu - overhead));
      panJs.push(s.js);
    }
    await page.mouse.up();

    // Follow live over the whole trace (reset = follow on, whole view), deltas at the host's rate.
    await page.keyboard.press('0');
    await page.evaluate('__bench.settle()');
    const s0 = await mainThreadMs(cdp);
    const streamed = await page.evaluate<{ wallMs: number; frames: number[]; handlers: number[] }>(`__bench.stream(${BATCH_INTERVAL_MS})`);
    const cpuPerBatch = ((await mainThreadMs(cdp)) - s0) / o.batches;
    return { first, firstCpuMs, heapMB, zoomCpu, zoomJs, panCpu, panJs, follow: { ...streamed, cpuPerBatch } };
  } finally {
    await context.close();
  }
}

function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const f1 = (x: number) => x.toFixed(1);
const spread = (xs: readonly number[]) => {
  const s = summarize(xs);
  return `${f1(s.median)} (${f1(s.min)}–${f1(s.max)})`;
};
const dist = (xs: readonly number[]) => `${f1(quantile(xs, 0.5))} / ${f1(quantile(xs, 0.95))} / ${f1(Math.max(...xs))}`;
const over = (xs: readonly number[]) => `${xs.filter((x) => x > FRAME_BUDGET_MS).length} of ${xs.length}`;

export async function webviewRender(trace: GeneratedTrace, o: RenderOptions): Promise<string> {
  const server = new HarnessServer();
  const bundles: string[] = [];
  if (o.baseline) {
    server.addBundle('baseline', await buildWebviewBundle(o.baseline));
    bundles.push('baseline');
  }
  server.addBundle('current', await buildWebviewBundle());
  bundles.push('current');
  const session: SessionInfo = { id: 'bench', title: 'bench — configmaps (v1.15, recorded engine trace)', live: true, simulated: true };
  for (const size of o.sizes) {
    const events = trace.events.slice(0, size);
    if (trace.events.length < size + o.batches * o.batchSize) throw new Error(`need ${size + o.batches * o.batchSize} events, have ${trace.events.length}`);
    const findings = computeFindings(trace.header, events);
    server.addBlob(`snapshot-${size}`, JSON.stringify(SnapshotNotification.create({ session, header: trace.header, events, findings, sessions: [session] })));
    const deltas: string[] = [];
    for (let i = 0; i < o.batches; i++) {
      const from = size + i * o.batchSize;
      const batch = trace.events.slice(from, from + o.batchSize);
      deltas.push(JSON.stringify(DeltaNotification.create({ sessionId: session.id, afterSeq: trace.events[from - 1].seq, events: batch, live: true })));
    }
    server.addBlob(`deltas-${size}`, JSON.stringify(deltas));
  }
  const base = await server.listen();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const results = new Map<string, PageResult[]>();
  const largest = Math.max(...o.sizes);
  const cells: Cell[] = o.sizes.flatMap((size) => bundles.map((bundle) => ({ bundle, size, dpr: 1 })));
  cells.push(...bundles.map((bundle) => ({ bundle, size: largest, dpr: 2 })));
  try {
    for (let r = 0; r < o.repeats; r++) {
      for (const cell of cells) {
        const shot = r === 0 && cell.bundle === 'current' && cell.size === largest && cell.dpr === 1 ? o.screenshot : undefined;
        const res = await runPage(browser, base, cell, o, shot);
        results.set(cellKey(cell), [...(results.get(cellKey(cell)) ?? []), res]);
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return report(results, cells, o, browser.version());
}

function report(results: Map<string, PageResult[]>, cells: readonly Cell[], o: RenderOptions, version: string): string {
  const rowsFirst: string[][] = [];
  const rowsFrames: string[][] = [];
  const rowsFollow: string[][] = [];
  for (const cell of cells) {
    const rs = results.get(cellKey(cell)) ?? [];
    const label = [cell.bundle, cell.size.toLocaleString('en-US'), String(cell.dpr)];
    rowsFirst.push([
      ...label,
      spread(rs.map((x) => x.first.parseMs)),
      spread(rs.map((x) => x.first.handlerMs)),
      spread(rs.map((x) => x.first.renderMs)),
      spread(rs.map((x) => x.first.nextFrameMs)),
      spread(rs.map((x) => x.firstCpuMs)),
      spread(rs.map((x) => x.heapMB)),
    ]);
    const zoomCpu = rs.flatMap((x) => x.zoomCpu);
    const panCpu = rs.flatMap((x) => x.panCpu);
    rowsFrames.push([...label, `zoom ×2 (${o.zoomSteps} steps)`, String(zoomCpu.length), dist(zoomCpu), dist(rs.flatMap((x) => x.zoomJs)), over(zoomCpu)]);
    rowsFrames.push([...label, `pan at ×8 (${o.panSteps} moves)`, String(panCpu.length), dist(panCpu), dist(rs.flatMap((x) => x.panJs)), over(panCpu)]);
    const frames = rs.flatMap((x) => x.follow.frames);
    rowsFollow.push([
      ...label,
      `${rs.reduce((a, x) => a + x.follow.handlers.length, 0)} / ${rs.length * o.batches}`,
      dist(rs.flatMap((x) => x.follow.handlers)),
      `${frames.length}`,
      dist(frames),
      spread(rs.map((x) => x.follow.cpuPerBatch)),
      spread(rs.map((x) => x.follow.wallMs / 1000)),
    ]);
  }
  return [
    `### (e) Timeline webview in headless chromium ${version} — ${o.repeats} interleaved page loads per cell, viewport ${VIEWPORT.width}×${VIEWPORT.height}`,
    '',
    'First render of a snapshot (ms; median (min–max) over page loads) and the JS heap once shown:',
    '',
    table(
      ['bundle', 'events', 'dpr', 'JSON.parse', 'message handler (ingest)', 'first render callback', 'snapshot → next frame', 'main-thread CPU', 'JS heap after GC, MB'],
      rowsFirst,
    ),
    '',
    `Frames after an input (ms; median / p95 / max over all steps of all loads; main-thread CPU with the probe's own cost removed):`,
    '',
    table(['bundle', 'events', 'dpr', 'input', 'frames', 'main-thread CPU per frame', 'render callback wall', `frames over ${FRAME_BUDGET_MS} ms (CPU)`], rowsFrames),
    '',
    `Follow-live: ${o.batches} delta batches of ${o.batchSize} events posted every ${BATCH_INTERVAL_MS} ms, whole trace shown:`,
    '',
    table(['bundle', 'events', 'dpr', 'batches handled', 'handler ms (median / p95 / max)', 'render callbacks', 'render ms (median / p95 / max)', 'main-thread CPU ms per batch', 'stream wall s'], rowsFollow),
  ].join('\n');
}
