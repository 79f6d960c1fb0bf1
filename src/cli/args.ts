/**
 * Argument parsing for every command with node:util parseArgs, turning its errors into one-line
 * UsageErrors (unknown option, missing value) instead of stack traces.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  /** Options declared `multiple: true` come as arrays. */
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `-o json` / `--output json`, which every command takes. */
export const OUTPUT_OPTION = { output: { type: 'string', short: 'o' } } as const;

/** True for `-o json`; absent or `-o text` is the human-readable output; anything else is bad input. */
export function jsonOutput(parsed: Parsed): boolean {
  const v = stringOption(parsed, 'output');
  if (v === undefined || v === 'text') return false;
  if (v === 'json') return true;
  throw new UsageError(`--output must be json or text, got "${v}"`);
}

/** Pretty JSON with a final newline, as `-o json` prints it. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function parseCommandArgs(command: string, args: string[], options: Options, maxPositionals: number): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: { ...OUTPUT_OPTION, ...options }, allowPositionals: true, strict: true }) as Parsed;
  } catch (e) {
    throw new UsageError(`${command}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${command}: unexpected argument "${parsed.positionals[maxPositionals]}"`);
  }
  return parsed;
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  const v = parsed.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable string option (declared `multiple: true`): every value, in order. */
export function stringListOption(parsed: Parsed, name: string): string[] {
  const v = parsed.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

/** A non-negative integer option (ports, seeds). */
export function intOption(parsed: Parsed, name: string): number | undefined {
  const v = stringOption(parsed, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer, got "${v}"`);
  return Number(v);
}

/** A Go-style duration that may be 0 (times into a recording): 0, 1.5s, 300ms, 2m, 1h30m; a plain number is seconds. */
export function offsetMs(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = text.match(/\d+(?:\.\d+)?(?:ms|s|m|h)/g);
  if (!parts || parts.join('') !== text) return undefined;
  let total = 0;
  for (const part of parts) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(part)!;
    total += Number(m[1]) * units[m[2]];
  }
  return total;
}

/** Go-style durations as `record --duration` takes them: 90s, 2m, 1h30m, 500ms, or plain seconds. */
export function durationMs(text: string): number {
  const total = offsetMs(text);
  if (total === undefined) throw new UsageError(`invalid duration "${text}" (examples: 60s, 2m, 1h30m)`);
  if (total <= 0) throw new UsageError(`invalid duration "${text}": must be more than 0`);
  return total;
}
