/**
 * `npm run bench`: every benchmark in one process, so that the variants compared in a table run
 * side by side under the same machine load. Prints markdown (the tables of docs/BENCHMARKS.md).
 *
 *   npm run bench                 all sections (about two and a half minutes on 2 shared cores)
 *   npm run bench -- --only a,c   some sections: a engine, b initial list, c trace layer, d webview model,
 *                                 e webview rendering in headless chromium
 *   npm run bench -- --only a,e --baseline REV   also run git REV's TraceRecorder (a) and webview
 *                                 bundle (e) beside the working tree's, interleaved
 *   npm run bench -- --quick      fewer events and repetitions (a smoke run, numbers not for the doc)
 */
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { baselineRecorder, baselineTraceFile } from './baseline';
import { engineThroughput } from './engineThroughput';
import { BENCH_PROFILES } from './engineRig';
import { initialList } from './initialList';
import { hasGc } from './stats';
import { traceLayer } from './traceLayer';
import { recordEngineTrace, type GeneratedTrace } from './traceSource';
import { webviewModel } from './webviewModel';
import { webviewRender } from './webviewRender';

type Section = 'a' | 'b' | 'c' | 'd' | 'e';
const SECTIONS: readonly Section[] = ['a', 'b', 'c', 'd', 'e'];

interface Plan {
  sections: Set<Section>;
  quick: boolean;
  /** A git revision whose TraceRecorder (a) and webview bundle (e) run beside the working tree's. */
  baseline?: string;
  /** (e): where to save the screenshot of the largest timeline (default bench/results/timeline-<size>.png). */
  screenshot?: string;
}

function parseArgs(argv: readonly string[]): Plan {
  const plan: Plan = { sections: new Set(SECTIONS), quick: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') plan.quick = true;
    else if (argv[i] === '--only') {
      const list = (argv[++i] ?? '').split(',').map((s) => s.trim());
      const bad = list.filter((s) => !SECTIONS.includes(s as Section));
      if (bad.length > 0 || list.length === 0) throw new Error(`--only takes a comma list of ${SECTIONS.join(', ')}; got "${list.join(',')}"`);
      plan.sections = new Set(list as Section[]);
    } else if (argv[i] === '--baseline') plan.baseline = argv[++i];
    else if (argv[i] === '--screenshot') plan.screenshot = argv[++i];
    else throw new Error(`unknown argument ${argv[i]} (use --only a,b,c,d,e, --quick, --baseline REV, --screenshot FILE)`);
  }
  return plan;
}

async function main(): Promise<void> {
  const plan = parseArgs(process.argv.slice(2));
  const q = plan.quick;
  const started = performance.now();
  const out: string[] = [];
  const print = (s: string) => {
    out.push(s);
    console.log(s + '\n');
  };
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  print(
    `Node ${process.version}, ${os.cpus().length} × ${cpu}, load average at start ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}` +
      `${hasGc() ? '' : ' — WARNING: no --expose-gc, heap figures are unavailable'}${q ? ' — QUICK RUN' : ''}`,
  );
  if (plan.sections.has('a')) {
    const baseline = plan.baseline ? { revision: plan.baseline, recorder: baselineRecorder(plan.baseline) } : undefined;
    print(await engineThroughput({ events: q ? 2000 : 10_000, objects: 1000, repeats: q ? 1 : 5, baseline }));
  }
  if (plan.sections.has('b')) print(await initialList({ sizes: q ? [10_000] : [10_000, 50_000], profiles: BENCH_PROFILES, repeats: q ? 1 : 3 }));
  let trace: GeneratedTrace | undefined;
  const large = q ? 50_000 : 500_000;
  const render = { sizes: q ? [20_000, 50_000] : [100_000, 500_000], batches: q ? 15 : 60, batchSize: 500 };
  if (plan.sections.has('c') || plan.sections.has('d') || plan.sections.has('e')) {
    const t0 = performance.now();
    // (e) streams the events that follow its largest snapshot as follow-live deltas.
    trace = await recordEngineTrace(large + (plan.sections.has('e') ? render.batches * render.batchSize : 0));
    print(`Recorded a ${trace.events.length.toLocaleString('en-US')}-event engine trace for (c), (d) and (e) in ${Math.round(performance.now() - t0)} ms.`);
  }
  if (trace && plan.sections.has('c')) {
    const baseline = plan.baseline ? { revision: plan.baseline, traceFile: baselineTraceFile(plan.baseline) } : undefined;
    print(await traceLayer({ header: trace.header, events: trace.events.slice(0, q ? 20_000 : 200_000) }, q ? 1 : 3, baseline));
  }
  if (trace && plan.sections.has('d')) print(await webviewModel({ header: trace.header, events: trace.events.slice(0, large) }, q ? 1 : 7));
  if (trace && plan.sections.has('e')) {
    const largest = Math.max(...render.sizes);
    const screenshot = plan.screenshot ?? `bench/results/timeline-${largest / 1000}k.png`;
    const o = { ...render, repeats: q ? 1 : 3, zoomSteps: 20, panSteps: 20, baseline: plan.baseline, screenshot };
    print(await webviewRender(trace, o));
    print(`Screenshot of the ${largest.toLocaleString('en-US')}-event timeline: ${screenshot}`);
  }
  print(`Total wall time ${(Math.round(performance.now() - started) / 1000).toFixed(1)} s.`);
}

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
