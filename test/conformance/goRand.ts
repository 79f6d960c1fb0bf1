import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * rand.Float64() of Go's math/rand after rand.Seed(1), the source every oracle's client-go draws
 * its jitter and watch timeouts from (written by `ORACLE_PRINT_RAND=4096 oracle …`). A v2 replay
 * of the engine draws the same values in turn, so times and timeoutSeconds compare exactly.
 */
const GO_RAND: number[] = JSON.parse(readFileSync(join(__dirname, 'go-rand-seed1.json'), 'utf8')) as number[];

export function goRand(): () => number {
  let i = 0;
  return () => {
    if (i >= GO_RAND.length) throw new Error(`the engine drew more than ${GO_RAND.length} random numbers (test/conformance/go-rand-seed1.json)`);
    return GO_RAND[i++];
  };
}
