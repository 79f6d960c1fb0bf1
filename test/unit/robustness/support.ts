/**
 * Shared settings of the property-based robustness tests. Every property runs with a fixed seed
 * (override with ROBUSTNESS_SEED to explore) and a time budget, so the suite is deterministic
 * and bounded on a shared machine; on failure fast-check's message names the seed and the path
 * of the shrunk counterexample, which reproduce it exactly.
 */
import fc from 'fast-check';

const SEED = Number(process.env.ROBUSTNESS_SEED ?? 20240611);
/** ROBUSTNESS_RUNS=10 runs every property ten times as long (local exploration, not CI). */
const SCALE = Number(process.env.ROBUSTNESS_RUNS ?? 1);

/** Runs a property with the suite's seed; stops early (without failing) after `timeMs`. */
export async function check<T>(
  prop: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>,
  opts: { numRuns?: number; timeMs?: number } = {},
): Promise<void> {
  await fc.assert(prop, {
    seed: SEED,
    numRuns: (opts.numRuns ?? 100) * SCALE,
    interruptAfterTimeLimit: (opts.timeMs ?? 2000) * SCALE,
    markInterruptAsFailure: false,
    endOnFailure: false,
  });
}

/** One readable line: no line breaks, not empty. */
export function isOneLine(s: string): boolean {
  return s.length > 0 && !/[\r\n\u2028\u2029]/.test(s);
}

/** A JSON-representable value of bounded size, with awkward strings (quotes, braces, escapes, non-BMP). */
export const awkwardString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', '\n', '\r\n', '\u2028', '\uFEFF', '😀', '\u0000', '}{'),
);

export const jsonLeaf = fc.oneof(awkwardString, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));

export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonLeaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(awkwardString, tie('v'), { maxKeys: 4 }),
  ),
})).v;
