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
    // Plain objects, as JSON.parse and postMessage produce them (no null prototypes).
    fc.dictionary(awkwardString, tie('v'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).v;

export type Mutation = { path: number[]; op: 'delete' | 'rename' | 'replace'; value: unknown; name: string };

/** Applies a mutation at a path chosen by indexes into the keys met along the way. */
export function mutate(doc: unknown, m: Mutation): void {
  let node = doc as Record<string, unknown>;
  for (let depth = 0; depth < m.path.length; depth++) {
    const keys = Object.keys(node);
    if (keys.length === 0) return;
    const key = keys[m.path[depth] % keys.length];
    const child = node[key];
    const last = depth === m.path.length - 1 || child === null || typeof child !== 'object';
    if (!last) {
      node = child as Record<string, unknown>;
      continue;
    }
    if (m.op === 'delete') {
      if (Array.isArray(node)) node.splice(Number(key), 1);
      else delete node[key];
    } else if (m.op === 'rename' && !Array.isArray(node)) {
      delete node[key];
      node[m.name] = child;
    } else node[key] = m.value;
    return;
  }
}

export function nested(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { x: v };
  return v;
}

export const hostileValue = fc.oneof(
  jsonValue,
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 1.5, 0, -1, '', 'informer-trace/v2', 'informer-trace/v1', [], {}, null, true),
  fc.integer({ min: 1, max: 3000 }).map((d) => nested(d, 1)),
);

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  path: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
  op: fc.constantFrom('delete', 'rename', 'replace'),
  value: hostileValue,
  name: awkwardString,
});
