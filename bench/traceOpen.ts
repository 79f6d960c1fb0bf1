/**
 * (f) A large trace file in real VS Code (code-server, Debian chromium via playwright-core), as a
 * user meets it: "Open trace" on a recorded N-event file (default 1,000,000; bench/traceSource.ts,
 * written to .cache/bench/, never committed), then
 *   - open → drawn: from the Enter that accepts the path in the file dialog until the timeline
 *     webview marks the snapshot's frame painted (`data-drawn-events` = N on its root, set two
 *     animation frames after the snapshot was applied); beside it, when the page's script started,
 *     its first part and its snapshot arrived, the snapshot was applied and its frame painted, as
 *     the page stamped them (webview/app.ts stampOnce; an older build has none), ms after the Enter;
 *   - the webview's JS heap: CDP Runtime.getHeapUsage after HeapProfiler.collectGarbage in the
 *     webview's frame. The webview shares its renderer with the workbench (same origin in
 *     code-server), so the same reading is taken with a 100-event trace open: the difference is
 *     what the large trace costs; ArrayBuffer backing stores are reported beside it;
 *   - export: "Export trace" on the opened trace, from the Enter that accepts the file name until
 *     the file is complete; it must be byte-identical to the opened file (export is canonical).
 * The large trace is opened twice per round: as a JSON file from elsewhere (no companion: the
 * JSON is parsed; the companion an open of it writes is removed before each such open) and with
 * its binary companion beside it (NAME.informer-trace.bin, written by the extension's own
 * writer: no JSON parsed). Each is exported after it was opened; an export
 * writes the JSON and then the companion, and both times are taken (JSON complete, companion
 * in place).
 * Beside each wall time, the CPU time the code-server and browser processes used meanwhile
 * (/proc): on a shared machine that is the steadier figure. Rounds alternate a fresh open of
 * the small and the large trace in one code-server.
 *
 * With --profile, the browser's main thread is CPU-profiled over each open (its functions by their
 * own time are printed; the profile is kept in .cache/bench/); each open's CPU is also given by process.
 *
 * Run: npx tsx bench/traceOpen.ts [--events N] [--rounds R] [--vsix FILE] [--only companion|json] [--profile]
 */
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CDPSession, Frame, Page } from 'playwright-core';
import { exportTraceChunks, importTrace } from '../src/trace/traceFile';
import { writeTraceWithCompanion } from '../src/app/traceColumns';
import { cachedCompanionPath, companionPath, copyCompanion, readCompanion } from '../src/trace/traceCompanion';
import { REPO, ensureCodeServer, packageExtension, startCodeServer } from '../test/e2e/vscode/codeServer';
import { findFiles, notificationsText, openWorkbench, runCommand } from '../test/e2e/vscode/workbench';
import { recordEngineTrace } from './traceSource';
import { fmt, summarize } from './stats';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

/** The recorded trace file of `count` events, written once in chunks and reused. */
async function traceFile(count: number): Promise<string> {
  const dir = join(REPO, '.cache', 'bench');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `trace-${count}.informer-trace.json`);
  if (existsSync(path)) return path;
  const trace = await recordEngineTrace(count);
  const out = createWriteStream(path);
  for (const chunk of exportTraceChunks(trace)) if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return path;
}

/** The recorded trace's JSON with its companion beside it (the extension's writer), written once. */
async function withCompanion(json: string): Promise<string> {
  const path = json.replace(/\.informer-trace\.json$/, '-companion.informer-trace.json');
  if (existsSync(path) && (await readCompanion(path)).ok) return path;
  const { header, events } = importTrace(readFileSync(json, 'utf8'));
  await writeTraceWithCompanion(path, header, events);
  if (!readFileSync(path).equals(readFileSync(json))) throw new Error('the companion writer changed the JSON');
  return path;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pid → parent pid of every process now. */
function processTable(): Map<number, { ppid: number; cpuMs: number; cmd: string }> {
  const out = new Map<number, { ppid: number; cpuMs: number; cmd: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime (fields 14 and 15 of stat) in clock ticks of 10 ms.
      out.set(Number(name), { ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8') });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * CPU time (user + system, ms) used so far by the processes of code-server (found by its
 * user-data directory) and of the browser, with all their descendants: the load of other
 * processes on the machine does not count in it, unlike wall time.
 */
function cpuOf(userDir: string): number {
  let ms = 0;
  for (const v of cpuByRole(userDir).values()) ms += v;
  return ms;
}

/** What a process of code-server or the browser is, from its command line. */
function roleOf(cmd: string): string {
  // Chromium rewrites its children's command lines with spaces between the arguments.
  const args = cmd.split(/[\0 ]/);
  const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length);
  if (cmd.includes('chrom')) return `browser${type ? ` ${type}` : ''}`;
  if (cmd.includes('extensionHost')) return 'extension host';
  for (const t of ['ptyHost', 'fileWatcher', 'watcherService']) if (cmd.includes(t)) return `code-server ${t}`;
  return 'code-server';
}

/** The CPU of cpuOf's processes by role (roleOf), ms so far. */
function cpuByRole(userDir: string): Map<string, number> {
  const table = processTable();
  const out = new Map<string, number>();
  for (const pid of processTree(userDir, table)) {
    const p = table.get(pid);
    if (p) out.set(roleOf(p.cmd), (out.get(roleOf(p.cmd)) ?? 0) + p.cpuMs);
  }
  return out;
}

/** The processes of code-server (found by its user-data directory) and of the browser, with all their descendants. */
function processTree(userDir: string, table: ReturnType<typeof processTable>): Set<number> {
  const roots = [...table].filter(([, p]) => p.cmd.includes(userDir)).map(([pid]) => pid);
  // The browser: playwright started it as a child of this process.
  for (const [pid, p] of table) if (p.ppid === process.pid && p.cmd.includes('chrom')) roots.push(pid);
  const inTree = new Set<number>(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of table) if (!inTree.has(pid) && inTree.has(p.ppid)) grew = inTree.add(pid) !== undefined;
  }
  return inTree;
}

/**
 * The threads of the extension host and the browser's renderers sampled every 40 ms while it
 * runs (/proc/PID/task): `stop` gives their CPU meanwhile as "name ms" pairs — the extension
 * host's main thread, the threads started meanwhile (the trace reader's workers: a thread that
 * ends loses at most one interval) and its other threads; a renderer's threads by their names.
 */
function sampleThreads(userDir: string): { stop: () => string } {
  const table = processTable();
  const tree = [...processTree(userDir, table)];
  const hosts = tree.filter((pid) => roleOf(table.get(pid)?.cmd ?? '') === 'extension host');
  const renderers = tree.filter((pid) => roleOf(table.get(pid)?.cmd ?? '') === 'browser renderer');
  const first = new Map<string, number>();
  const last = new Map<string, { ms: number; name: string }>();
  const read = (initial: boolean) => {
    for (const pid of [...hosts, ...renderers]) {
      let tids: string[];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const tid of tids) {
        try {
          const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const ms = (Number(fields[11]) + Number(fields[12])) * 10;
          const id = `${pid}/${tid}`;
          const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          const host = hosts.includes(pid);
          const name = host ? (tid === String(pid) ? 'host main' : first.has(id) || initial ? 'host other threads' : 'host threads started meanwhile') : `renderer ${comm}`;
          if (initial) first.set(id, ms);
          last.set(id, { ms, name: last.get(id)?.name ?? name });
        } catch {
          // the thread ended meanwhile
        }
      }
    }
  };
  read(true);
  const timer = setInterval(() => read(false), 40);
  return {
    stop: () => {
      clearInterval(timer);
      read(false);
      const by = new Map<string, number>();
      for (const [id, { ms, name }] of last) by.set(name, (by.get(name) ?? 0) + ms - (first.get(id) ?? 0));
      return [...by].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([n, ms]) => `${n} ${ms}`).join(', ');
    },
  };
}

/** after − before by role, largest first, as "role ms" pairs. */
function roleDelta(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([role, ms]) => [role, ms - (before.get(role) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([role, ms]) => `${role} ${ms}`)
    .join(', ');
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * The functions of a CDP CPU profile (Profiler.stop) by their own time, largest first: "ms name
 * (file:line)", the `top` largest, and the profile's whole sampled time.
 */
function selfTimes(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, top: number): { totalMs: number; lines: string[] } {
  const byNode = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) byNode.set(profile.samples[i], (byNode.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const byFn = new Map<string, number>();
  let totalMs = 0;
  for (const n of profile.nodes) {
    const ms = byNode.get(n.id) ?? 0;
    totalMs += ms;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').pop() ?? ''}:${f.lineNumber + 1})`;
    byFn.set(key, (byFn.get(key) ?? 0) + ms);
  }
  const lines = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, ms]) => `${ms.toFixed(0).padStart(6)} ms  ${k}`);
  return { totalMs, lines };
}

/** The playwright frame of the timeline webview whose root says it drew `count` events, if any. */
async function drawnFrame(page: Page, count: number): Promise<Frame | undefined> {
  for (const f of page.frames()) {
    const n = await f.evaluate('document.querySelector("[data-drawn-events]")?.dataset.drawnEvents ?? ""').catch(() => '');
    if (n === String(count)) return f;
  }
  return undefined;
}

/** Opens a trace file through "Open trace"; ms from accepting the path to the drawn timeline. */
async function openTrace(page: Page, path: string, count: number, timeoutMs: number): Promise<{ ms: number; frame: Frame; steps: string }> {
  // On a loaded machine the extension's commands may not be in the palette yet: try a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      await runCommand(page, 'Informer Inspector: Open trace');
      break;
    } catch (e) {
      if (attempt === 4) throw e;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(5000);
    }
  }
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await page.waitForTimeout(1000);
  await input.fill(path);
  await page.waitForTimeout(400);
  const t0 = Date.now();
  await page.keyboard.press('Enter');
  const deadline = t0 + timeoutMs;
  let frame: Frame | undefined;
  while (!frame) {
    if (Date.now() > deadline) throw new Error(`the ${count}-event timeline was not drawn in ${timeoutMs / 1000} s`);
    // A build that cannot read the file (an older one refuses an event type it does not know) says so: stop with its words.
    const refused = /Cannot open [^:]+: .*/.exec(await notificationsText(page));
    if (refused) throw new Error(`the extension did not open the ${count}-event trace: ${refused[0].slice(0, 300)}`);
    // The simple dialog may only complete the path: a second Enter accepts it.
    if (await input.isVisible().catch(() => false)) await page.keyboard.press('Enter');
    frame = await drawnFrame(page, count);
    if (!frame) await sleep(25);
  }
  // The page's own stamps of its steps (webview/app.ts stampOnce), ms after the Enter.
  const stamps = (await frame.evaluate('(() => { const d = document.querySelector("[data-drawn-events]")?.dataset ?? {}; return [d.tScript, d.tFirstPart, d.tSnapshot, d.tApplied, d.tDrawn]; })()').catch(() => [])) as (string | undefined)[];
  const names = ['script', 'first part', 'snapshot', 'applied', 'drawn'];
  const steps = names.map((n, i) => (stamps[i] === undefined ? undefined : `${n} +${Number(stamps[i]) - t0}`)).filter((x) => x !== undefined);
  return { ms: Date.now() - t0, frame, steps: steps.length > 0 ? steps.join(', ') : 'not stamped (an older build)' };
}

interface Heap {
  usedMB: number;
  /** ArrayBuffer backing stores, when the browser reports them. */
  backingMB?: number;
}

async function heapOf(page: Page, frame: Frame): Promise<Heap> {
  let cdp: CDPSession;
  try {
    cdp = await page.context().newCDPSession(frame);
  } catch {
    cdp = await page.context().newCDPSession(page);
  }
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const u = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
  await cdp.detach();
  return { usedMB: u.usedSize / 1e6, ...(u.backingStorageSize !== undefined ? { backingMB: u.backingStorageSize / 1e6 } : {}) };
}

async function closeEditors(page: Page): Promise<void> {
  await runCommand(page, 'View: Close All Editors');
  await page.waitForTimeout(1500);
}

/**
 * "Export trace" on the shown trace; ms from accepting the file name until the JSON is complete
 * (`ms`) and until its companion is in place (`companionMs`).
 */
async function exportShown(page: Page, workspace: string, expectedBytes: number, companion: boolean): Promise<{ ms: number; companionMs: number; path: string }> {
  // The only session is the trace on screen, so no session is asked for.
  await runCommand(page, 'Informer Inspector: Export trace');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await page.waitForTimeout(800);
  const before = new Set(findFiles(workspace, /\.informer-trace\.json$/));
  const t0 = Date.now();
  await page.keyboard.press('Enter');
  const deadline = t0 + 120_000;
  for (;;) {
    const fresh = findFiles(workspace, /\.informer-trace\.json$/).filter((p) => !before.has(p));
    if (fresh.length > 0 && statSync(fresh[0]).size === expectedBytes) {
      const ms = Date.now() - t0;
      while (companion && !existsSync(companionPath(fresh[0]))) {
        if (Date.now() > deadline) throw new Error('the export wrote no companion in 120 s');
        await sleep(20);
      }
      return { ms, companionMs: Date.now() - t0, path: fresh[0] };
    }
    if (Date.now() > deadline) throw new Error('the export did not complete in 120 s');
    if (fresh.length === 0 && (await input.isVisible().catch(() => false))) await page.keyboard.press('Enter');
    await sleep(20);
  }
}

async function main(): Promise<void> {
  const count = Number(arg('events', '1000000'));
  const rounds = Number(arg('rounds', '3'));
  const big = await traceFile(count);
  const small = await traceFile(100);
  const vsix = arg('vsix', '') || packageExtension();
  const cs = await startCodeServer(ensureCodeServer(), vsix, 'Default Dark Modern');
  const { browser, page } = await openWorkbench(cs.url, { width: 1400, height: 900 });
  const bigWithCompanion = await withCompanion(big);
  type Variant = 'JSON only' | 'with companion';
  // An older build (--vsix) may know no companion: it is opened as JSON only unless --only says otherwise.
  const older = arg('vsix', '') !== '';
  const only = arg('only', '');
  const profile = process.argv.includes('--profile');
  const variants: Variant[] = only === 'companion' ? ['with companion'] : only === 'json' ? ['JSON only'] : older ? ['JSON only'] : ['JSON only', 'with companion'];
  const m = Object.fromEntries(variants.map((v) => [v, { opens: [] as number[], openCpu: [] as number[], exports: [] as number[], exportsWithCompanion: [] as number[], exportCpu: [] as number[], heaps: [] as { small: Heap; big: Heap }[] }])) as Record<Variant, { opens: number[]; openCpu: number[]; exports: number[]; exportsWithCompanion: number[]; exportCpu: number[]; heaps: { small: Heap; big: Heap }[] }>;
  const cpu = () => cpuOf(cs.userDir);
  const companionCache = join(cs.userDir, 'User', 'globalStorage', 'informer-inspector.informer-inspector', 'companions');
  try {
    const inWs: Record<Variant, string> = { 'JSON only': join(cs.workspace, `big-${count}.trace.json`), 'with companion': join(cs.workspace, `big-${count}-c.informer-trace.json`) };
    const smallInWs = join(cs.workspace, 'small-100.trace.json');
    await copyFile(big, inWs['JSON only']);
    await copyFile(bigWithCompanion, inWs['with companion']);
    // The copy has another modification time: its companion is copied to belong to it.
    await copyCompanion(companionPath(bigWithCompanion), inWs['with companion']);
    await copyFile(small, smallInWs);
    const bigBytes = statSync(big).size;
    for (let r = 0; r < rounds; r++) {
      for (const v of variants) {
        const s = await openTrace(page, smallInWs, 100, 60_000);
        const smallHeap = await heapOf(page, s.frame);
        await closeEditors(page);
        await page.waitForTimeout(2000);
        // An open of the JSON writes its companion into the extension's storage (src/app/traceRead.ts,
        // cachedCompanionPath; an older build beside it): each JSON-only open starts without one.
        if (v === 'JSON only') await Promise.all([rm(companionPath(inWs[v]), { force: true }), rm(companionCache, { recursive: true, force: true })]);
        const c0 = cpu();
        const r0 = cpuByRole(cs.userDir);
        // --profile: the browser's main thread (workbench and webview frames share it) sampled over the open.
        const profiler = profile ? await page.context().newCDPSession(page) : undefined;
        if (profiler) {
          await profiler.send('Profiler.enable');
          await profiler.send('Profiler.setSamplingInterval', { interval: 250 });
          await profiler.send('Profiler.start');
        }
        const threads = sampleThreads(cs.userDir);
        const b = await openTrace(page, inWs[v], count, 300_000);
        const byThread = threads.stop();
        if (profiler) {
          const { profile: p } = (await profiler.send('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
          await profiler.detach();
          const file = join(REPO, '.cache', 'bench', `open-${r + 1}-browser.cpuprofile`);
          writeFileSync(file, JSON.stringify(p));
          const st = selfTimes(p, 30);
          console.log(`round ${r + 1}: the browser's main thread over the open, ${st.totalMs.toFixed(0)} ms sampled (${file}):\n${st.lines.join('\n')}`);
        }
        m[v].openCpu.push(cpu() - c0);
        const roles = roleDelta(r0, cpuByRole(cs.userDir));
        m[v].opens.push(b.ms);
        await page.waitForTimeout(500);
        const bigHeap = await heapOf(page, b.frame);
        m[v].heaps.push({ small: smallHeap, big: bigHeap });
        await page.screenshot({ path: join(REPO, 'bench', 'results', `trace-open-${count}${v === 'with companion' ? '-companion' : ''}.png`) });
        const c1 = cpu();
        const e = await exportShown(page, cs.workspace, bigBytes, v === 'with companion');
        m[v].exportCpu.push(cpu() - c1);
        m[v].exports.push(e.ms);
        m[v].exportsWithCompanion.push(e.companionMs);
        if (!readFileSync(e.path).equals(readFileSync(big))) throw new Error('the export differs from the opened file');
        if (v === 'with companion' && !(await readCompanion(e.path)).ok) throw new Error('the exported companion does not belong to the exported file');
        const i = m[v].opens.length - 1;
        const byProduct = v === 'JSON only' && (existsSync(companionPath(inWs[v])) || existsSync(cachedCompanionPath(companionCache, inWs[v]))) ? ', the open wrote its companion' : '';
        console.log(`round ${r + 1}, ${v}: the 100-event trace before it: open → drawn ${s.ms} ms (the page: ${s.steps}); open → drawn ${b.ms} ms (the page: ${b.steps}) (CPU ${m[v].openCpu[i]} ms), export ${e.ms} ms / with companion ${e.companionMs} ms (CPU ${m[v].exportCpu[i]} ms)${byProduct}, heap ${smallHeap.usedMB.toFixed(1)} → ${bigHeap.usedMB.toFixed(1)} MB (backing stores ${smallHeap.backingMB?.toFixed(1) ?? '?'} → ${bigHeap.backingMB?.toFixed(1) ?? '?'} MB); the open's CPU by process: ${roles}; by thread: ${byThread}`);
        await closeEditors(page);
      }
    }
  } finally {
    await browser.close();
    cs.stop();
  }
  const mb = (xs: number[]) => fmt(summarize(xs), 1);
  console.log(
    [
      '',
      `| opened | events | file MB | open → drawn, wall ms | open, CPU ms (code-server + browser) | export: JSON complete, wall ms | export: companion in place, wall ms | export, CPU ms | webview JS heap with the trace, MB | same, with a 100-event trace | difference | ArrayBuffer backing stores, MB |`,
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...variants.map((v) => {
        const x = m[v];
        const backing = x.heaps[0]?.big.backingMB === undefined ? 'not reported' : mb(x.heaps.map((h) => h.big.backingMB ?? 0));
        return `| ${v} | ${count.toLocaleString('en-US')} | ${(statSync(big).size / 1e6).toFixed(1)} | ${fmt(summarize(x.opens), 0)} | ${fmt(summarize(x.openCpu), 0)} | ${fmt(summarize(x.exports), 0)} | ${fmt(summarize(x.exportsWithCompanion), 0)} | ${fmt(summarize(x.exportCpu), 0)} | ${mb(x.heaps.map((h) => h.big.usedMB))} | ${mb(x.heaps.map((h) => h.small.usedMB))} | ${mb(x.heaps.map((h) => h.big.usedMB - h.small.usedMB))} | ${backing} |`;
      }),
    ].join('\n'),
  );
}

main().catch((e: unknown) => {
  console.error(e);
  // code-server and the browser were stopped (finally); whatever else is still pending must not keep a failed run alive.
  process.exit(1);
});
