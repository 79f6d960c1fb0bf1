/**
 * The resource limits of the engine's worker thread (workerSession.ts). They are per isolate: the
 * extension host's own V8 flags are shared by every extension and are not ours to set.
 * bench/peers runs its engine in a worker with these same limits.
 *
 * Why these (docs/BENCHMARKS.md, "Where the engine's memory goes"): an informer's cache is
 * replaced object by object, so nearly all of its garbage is old: every cached text that an update
 * replaces. V8 lets the old generation grow to about four times what survived the last full
 * collection when the heap's limit is 2 GiB or more (the default here is ~4 GiB), so with a cache of
 * 10 000 Pods the heap went from ~65 MiB to ~250 MiB of mostly dead texts before it was collected.
 * Under a 1 GiB limit the growing factor is ~1.6 (V8 scales it from 1.3 at 256 MiB to 4 at 2 GiB).
 * The young generation is 6 MiB (V8's default here is 32): what it holds is resident, and nearly
 * everything the engine allocates per event either dies at once or lives in the cache until the
 * object's next update, so a larger one buys little. Measured as VmHWM beside 16 MiB (docs/
 * BENCHMARKS.md, "The engine worker's young generation"): peak RSS at 10 000 Pods 0.87× with the
 * recorder, 0.94× with the null sink, for 0.98× and 0.93× the watch events per CPU-second (at
 * 50 000 Pods the same peak, 0.94× and 0.90× the throughput).
 *
 * The price of the limit: a worker whose live heap passes it ends with ERR_WORKER_OUT_OF_MEMORY,
 * which the session reports in one line (outOfMemoryMessage). A cache of Pods like the benchmark's
 * takes ~3 KB each, so 1 GiB holds a few hundred thousand of them and their LIST. The setting
 * `informerInspector.engineHeapLimitMB` raises it for larger caches (src/vscode/spillStorage.ts).
 */
import type { ResourceLimits } from 'node:worker_threads';

export const ENGINE_WORKER_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  maxOldGenerationSizeMb: 1024,
  maxYoungGenerationSizeMb: 6,
});

/** The one line a session ends with when its worker ran out of heap. */
export function outOfMemoryMessage(limits: Readonly<ResourceLimits>): string {
  const mb = limits.maxOldGenerationSizeMb;
  return `the engine ran out of memory: its worker's heap is limited to ${mb === undefined ? "V8's default" : `${mb} MB`}, and the informer's cache and trace window did not fit (raise informerInspector.engineHeapLimitMB, or lower informerInspector.memoryEvents)`;
}
