/**
 * `npm run bench`: every benchmark in one process, so that the variants compared in a table run
 * side by side under the same machine load. Prints markdown (the tables of docs/BENCHMARKS.md).
 *
 *   npm run bench                 all sections (about a minute and a half on 2 shared cores)
 *   npm run bench -- --only a,c   some sections: a engine, b initial list, c trace layer, d webview model
 *   npm run bench -- --quick      fewer events and repetitions (a smoke run, numbers not for the doc)
 */
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { engineThroughput } from './engineThroughput';
import { BENCH_PROFILES } from './engineRig';
import { initialList } from './initialList';
import { hasGc } from './stats';
import { traceLayer } from './traceLayer';
import { recordEngineTrace, type GeneratedTrace } from './traceSource';
import { webviewModel } from './webviewModel';

type Section = 'a' | 'b' | 'c' | 'd';
const SECTIONS: readonly Section[] = ['a', 'b', 'c', 'd'];

interface Plan {
  sections: Set<Section>;
  quick: boolean;
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
    } else throw new Error(`unknown argument ${argv[i]} (use --only a,b,c,d and/or --quick)`);
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
  if (plan.sections.has('a')) print(await engineThroughput({ events: q ? 2000 : 10_000, objects: 1000, repeats: q ? 1 : 5 }));
  if (plan.sections.has('b')) print(await initialList({ sizes: q ? [10_000] : [10_000, 50_000], profiles: BENCH_PROFILES, repeats: q ? 1 : 3 }));
  let trace: GeneratedTrace | undefined;
  if (plan.sections.has('c') || plan.sections.has('d')) {
    const t0 = performance.now();
    trace = await recordEngineTrace(q ? 50_000 : 500_000);
    print(`Recorded a ${trace.events.length.toLocaleString('en-US')}-event engine trace for (c) and (d) in ${Math.round(performance.now() - t0)} ms.`);
  }
  if (trace && plan.sections.has('c')) print(await traceLayer({ header: trace.header, events: trace.events.slice(0, q ? 20_000 : 200_000) }, q ? 1 : 3));
  if (trace && plan.sections.has('d')) print(await webviewModel(trace, q ? 1 : 7));
  print(`Total wall time ${(Math.round(performance.now() - started) / 1000).toFixed(1)} s.`);
}

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
