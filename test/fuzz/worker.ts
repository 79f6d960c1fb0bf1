/**
 * Runs one fuzz target in a worker thread: fast-check with the given seed and number of inputs,
 * every input bounded in time. Reports progress to the runner (which ends the worker when a
 * synchronous input never returns) and then the result.
 */
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { TARGETS } from './targets';

interface Job {
  target: string;
  inputs: number;
  seed: number;
}

export type WorkerMessage =
  | { kind: 'progress'; done: number }
  | { kind: 'result'; inputs: number; failed: boolean; report?: string; ms: number; slowestMs: number };

const job = workerData as Job;
const port = parentPort!;

class InputTimeout extends Error {}

async function main(): Promise<void> {
  const target = TARGETS.find((t) => t.name === job.target);
  if (!target) throw new Error(`no fuzz target ${job.target}`);
  const bound = target.timeoutMs ?? 2000;
  let done = 0;
  let lastReport = Date.now();
  let slowestMs = 0;
  await target.setup?.();
  const t0 = performance.now();
  const property = fc.asyncProperty(target.arbitrary(), async (input) => {
    const start = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = target.check(input);
      if (result instanceof Promise) {
        const late = new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new InputTimeout(`input not done after ${bound} ms (hang)`)), bound)));
        await Promise.race([result, late]);
      }
    } finally {
      clearTimeout(timer);
    }
    const ms = performance.now() - start;
    slowestMs = Math.max(slowestMs, ms);
    if (ms > bound) throw new InputTimeout(`input took ${ms.toFixed(0)} ms, over the ${bound} ms bound (hang)`);
    done++;
    if (Date.now() - lastReport > 500) {
      lastReport = Date.now();
      port.postMessage({ kind: 'progress', done } satisfies WorkerMessage);
    }
  });
  const details = await fc.check(property, { seed: job.seed, numRuns: job.inputs, endOnFailure: true });
  const ms = performance.now() - t0;
  await target.teardown?.();
  // Counterexamples can be megabytes (a 16 MiB frame, 10,000 levels of nesting): keep the head of each line.
  const cause = details.errorInstance instanceof Error ? (details.errorInstance.stack ?? details.errorInstance.message) : String(details.errorInstance);
  const report = details.failed
    ? `${fc.defaultReportMessage(details) ?? ''}\nError: ${cause}`
        ?.split('\n')
        .map((l) => (l.length > 1500 ? `${l.slice(0, 1500)}… (${l.length} characters)` : l))
        .join('\n')
    : undefined;
  port.postMessage({ kind: 'result', inputs: details.numRuns, failed: details.failed, report: report?.slice(0, 20_000), ms, slowestMs } satisfies WorkerMessage);
}

main().catch((e: unknown) => {
  port.postMessage({ kind: 'result', inputs: 0, failed: true, report: `the target could not run: ${(e as Error)?.stack ?? String(e)}`, ms: 0, slowestMs: 0 } satisfies WorkerMessage);
});
