/**
 * The `--fault NAME[=VALUE][@AT]` specs of `record` and the `--check-consistency` / `--consistency-every`
 * schedule: parsing (every mistake is one UsageError line) and applying them to a live informer at
 * their time, through the fault catalogue (src/app/faults.ts).
 *
 * AT is measured from the start of the recording (default 0). One-shot faults (expire-watch,
 * toolarge-list, 429, drop-delete, internal-error without an open watch) are armed at AT and
 * take effect at the next matching request or event; the injector emits 'fault.injected' then.
 */
import { FAULTS, faultByCliName, type FaultDef, type FaultTarget } from '../app/faults';
import type { Clock, TimerHandle } from '../engine/clock';
import type { FaultName } from '../format/events';
import { offsetMs } from './args';
import { UsageError } from './io';

export interface FaultSpec {
  /** As the user wrote it, for messages. */
  text: string;
  fault: FaultName;
  atMs: number;
  /** refuse: how long; 429: Retry-After; slow-handler: time per notification. */
  valueMs?: number;
}

function usage(f: FaultDef): string {
  if (!f.param) return f.cli;
  const { value, name } = f.param.cli;
  return value === 'optional' ? `${f.cli}[=${name}]` : `${f.cli}=${name}`;
}

export const FAULT_USAGE = FAULTS.map((f) => usage(f) + '[@AT]').join(', ');

/** One `--fault` value; runMs is the recording's length (a fault after its end is a mistake). */
export function parseFaultSpec(text: string, runMs: number): FaultSpec {
  const bad = (why: string) => new UsageError(`invalid --fault "${text}": ${why}`);
  const m = /^([a-z0-9-]+)(?:=([^@]*))?(?:@(.*))?$/.exec(text);
  if (!m) throw bad(`expected NAME[=VALUE][@AT] (one of: ${FAULT_USAGE})`);
  const [, name, value, at] = m;
  const def = faultByCliName(name);
  if (!def) throw bad(`unknown fault "${name}" (one of: ${FAULT_USAGE})`);
  if (value !== undefined && !def.param) throw bad(`${name} takes no value`);
  if (value === undefined && def.param?.cli.value === 'required') throw bad(`${name} needs a duration, e.g. ${name}=${def.param.cli.example}`);
  const spec: FaultSpec = { text, fault: def.id, atMs: 0 };
  if (value !== undefined) {
    const ms = offsetMs(value);
    if (ms === undefined || ms <= 0) throw bad(`"${value}" is not a duration above 0 (examples: 300ms, 10s, 2m)`);
    if (def.param?.wholeSeconds && ms % 1000 !== 0) throw bad(`${def.param.wholeSeconds} is whole seconds (e.g. ${name}=${def.param.cli.example})`);
    spec.valueMs = ms;
  }
  if (at !== undefined) {
    const ms = offsetMs(at);
    if (ms === undefined) throw bad(`"@${at}" is not a time into the recording (examples: @0s, @15s, @1m30s)`);
    spec.atMs = ms;
  }
  if (spec.atMs >= runMs) throw bad(`@${at} is not before the end of the recording (--duration ${runMs / 1000}s)`);
  return spec;
}

/**
 * The times of the consistency checks: each `--check-consistency AT` (AT with or without '@'),
 * plus every `--consistency-every` period, all before runMs. Sorted, without duplicates.
 */
export function consistencySchedule(at: readonly string[], everyText: string | undefined, runMs: number): number[] {
  const times = new Set<number>();
  for (const a of at) {
    const ms = offsetMs(a.replace(/^@/, ''));
    if (ms === undefined) throw new UsageError(`invalid --check-consistency "${a}": expected a time into the recording (examples: @30s, 2m)`);
    if (ms >= runMs) throw new UsageError(`invalid --check-consistency "${a}": not before the end of the recording (--duration ${runMs / 1000}s)`);
    times.add(ms);
  }
  if (everyText !== undefined) {
    const every = offsetMs(everyText);
    if (every === undefined || every <= 0) throw new UsageError(`invalid --consistency-every "${everyText}": expected a duration above 0 (examples: 30s, 5m)`);
    for (let t = every; t < runMs; t += every) times.add(t);
  }
  return [...times].sort((a, b) => a - b);
}

/** The catalogue entry of a parsed spec. */
export function faultOf(spec: FaultSpec): FaultDef {
  return FAULTS.find((f) => f.id === spec.fault)!;
}

/**
 * Applies the specs due at 0 at once (before the informer starts, so a slow handler is there from
 * the first notification) and the others by timer. Returns a function that cancels what is left.
 */
export function scheduleFaults(specs: readonly FaultSpec[], target: FaultTarget & { clock: Clock }): () => void {
  const timers: TimerHandle[] = [];
  const apply = (spec: FaultSpec) => faultOf(spec).apply(target, spec.valueMs);
  for (const spec of specs) {
    if (spec.atMs === 0) apply(spec);
    else timers.push(target.clock.setTimer(spec.atMs, () => apply(spec)));
  }
  return () => timers.forEach((t) => t.cancel());
}
