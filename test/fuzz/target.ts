/**
 * What a fuzz target is: a fast-check arbitrary of inputs and a check that runs one input through
 * a parser of untrusted input and throws when a property does not hold (a crash, a wrong result,
 * an unclear error). The runner (run.ts) bounds every input in time and counts inputs per target.
 */
import { strict as assert } from 'node:assert';
import type fc from 'fast-check';

export interface FuzzTarget<T = unknown> {
  name: string;
  /** What is fed in and what must hold, one line for the report. */
  about: string;
  /** Share of the requested inputs this target gets (targets whose inputs are costly get less). */
  weight: number;
  /** A floor on the inputs it gets, whatever the share. */
  minInputs?: number;
  /** The time bound of one input (ms): a slower input is a failure ("hang"). */
  timeoutMs?: number;
  arbitrary: () => fc.Arbitrary<T>;
  check: (input: T) => void | Promise<void>;
  /** Set up / tear down shared resources (a loopback server) around the run. */
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}

/** One readable line: not empty, no line break. */
export function isOneLine(s: string): boolean {
  return s.length > 0 && !/[\r\n\u2028\u2029]/.test(s);
}

/** An error that is "clear": an Error of one of the expected classes, one line, no stack trace, bounded length. */
export function assertClearError(e: unknown, classes: Array<abstract new (...a: never[]) => Error>, maxLength = 2000): asserts e is Error {
  assert.ok(e instanceof Error, `not an Error: ${String(e)}`);
  assert.ok(
    classes.some((c) => e instanceof c),
    `unexpected ${e.constructor.name}: ${e.stack ?? e.message}`,
  );
  assert.ok(!(e instanceof TypeError) && !(e instanceof RangeError), `${e.name}: ${e.message}`);
  assert.ok(isOneLine(e.message), `not one line: ${JSON.stringify(e.message.slice(0, 300))}`);
  assert.ok(e.message.length <= maxLength, `message of ${e.message.length} characters`);
  assert.ok(!/\n\s+at /.test(e.message), `stack trace in the message: ${e.message.slice(0, 300)}`);
}
