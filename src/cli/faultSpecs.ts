/**
 * The `--fault NAME[=VALUE][@AT]` specs of `record` and the `--check-consistency` / `--consistency-every`
 * schedule: parsing (every mistake is one UsageError line) and applying them to a live informer at
 * their time, through FaultInjectingListerWatcher (src/sources/faults.ts).
 *
 * AT is measured from the start of the recording (default 0). One-shot faults (expire-watch,
 * toolarge-list, 429, drop-delete, internal-error without an open watch) are armed at AT and
 * take effect at the next matching request or event; the injector emits 'fault.injected' then.
 */
import type { Clock, TimerHandle } from '../engine/clock';
import type { FaultInjectingListerWatcher, FaultName } from '../sources/faults';
import { offsetMs } from './args';
import { UsageError } from './io';

export type FaultKind = 'refuse' | 'reset-watch' | 'expire-watch' | 'toolarge-list' | 'internal-error' | '429' | 'drop-delete' | 'slow-handler';

export interface FaultSpec {
  /** As the user wrote it, for messages. */
  text: string;
  kind: FaultKind;
  atMs: number;
  /** refuse: how long; 429: Retry-After; slow-handler: time per notification. */
  valueMs?: number;
}

interface KindRule {
  value: 'none' | 'required' | 'optional';
  /** For the list of accepted specs in errors and docs. */
  usage: string;
}

const KINDS: Record<FaultKind, KindRule> = {
  refuse: { value: 'required', usage: 'refuse=DURATION' },
  'reset-watch': { value: 'none', usage: 'reset-watch' },
  'expire-watch': { value: 'none', usage: 'expire-watch' },
  'toolarge-list': { value: 'none', usage: 'toolarge-list' },
  'internal-error': { value: 'none', usage: 'internal-error' },
  '429': { value: 'optional', usage: '429[=RETRY-AFTER]' },
  'drop-delete': { value: 'none', usage: 'drop-delete' },
  'slow-handler': { value: 'required', usage: 'slow-handler=DURATION' },
};

// Listed in this order on purpose: an object would put the integer-like '429' first.
const ORDER: readonly FaultKind[] = ['refuse', 'reset-watch', 'expire-watch', 'toolarge-list', 'internal-error', '429', 'drop-delete', 'slow-handler'];

export const FAULT_USAGE = ORDER.map((k) => KINDS[k].usage + '[@AT]').join(', ');

function isFaultKind(name: string): name is FaultKind {
  return Object.prototype.hasOwnProperty.call(KINDS, name);
}

/** One `--fault` value; runMs is the recording's length (a fault after its end is a mistake). */
export function parseFaultSpec(text: string, runMs: number): FaultSpec {
  const bad = (why: string) => new UsageError(`invalid --fault "${text}": ${why}`);
  const m = /^([a-z0-9-]+)(?:=([^@]*))?(?:@(.*))?$/.exec(text);
  if (!m) throw bad(`expected NAME[=VALUE][@AT] (one of: ${FAULT_USAGE})`);
  const [, name, value, at] = m;
  if (!isFaultKind(name)) throw bad(`unknown fault "${name}" (one of: ${FAULT_USAGE})`);
  const rule = KINDS[name];
  if (value !== undefined && rule.value === 'none') throw bad(`${name} takes no value`);
  if (value === undefined && rule.value === 'required') throw bad(`${name} needs a duration, e.g. ${name}=${name === 'refuse' ? '10s' : '300ms'}`);
  const spec: FaultSpec = { text, kind: name, atMs: 0 };
  if (value !== undefined) {
    const ms = offsetMs(value);
    if (ms === undefined || ms <= 0) throw bad(`"${value}" is not a duration above 0 (examples: 300ms, 10s, 2m)`);
    if (name === '429' && ms % 1000 !== 0) throw bad('Retry-After is whole seconds (e.g. 429=2s)');
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

/** What applying the specs needs from the recording. */
export interface FaultTarget {
  clock: Clock;
  faults: FaultInjectingListerWatcher;
  /** Adds a handler that takes ms per notification (and records the fault). */
  addSlowHandler(ms: number): void;
}

function apply(spec: FaultSpec, target: FaultTarget): void {
  const f = target.faults;
  switch (spec.kind) {
    case 'refuse':
      return f.refuseConnections(spec.valueMs!);
    case 'reset-watch':
      return f.resetWatch();
    case 'expire-watch':
      return f.expireNextWatch();
    case 'toolarge-list':
      return f.tooLargeNextList();
    case 'internal-error':
      return f.internalErrorOnWatch();
    case '429':
      return f.tooManyRequests((spec.valueMs ?? 1000) / 1000);
    case 'drop-delete':
      return f.dropNextDelete();
    case 'slow-handler':
      return target.addSlowHandler(spec.valueMs!);
  }
}

/** The injector's name for a one-shot fault a spec arms, to tell later whether it ever fired. */
export const ONE_SHOT: Partial<Record<FaultKind, FaultName>> = {
  'expire-watch': 'expireNextWatch',
  'toolarge-list': 'tooLargeNextList',
  'internal-error': 'internalErrorOnWatch',
  '429': 'tooManyRequests',
  'drop-delete': 'dropNextDelete',
};

/**
 * Applies the specs due at 0 at once (before the informer starts, so a slow handler is there from
 * the first notification) and the others by timer. Returns a function that cancels what is left.
 */
export function scheduleFaults(specs: readonly FaultSpec[], target: FaultTarget): () => void {
  const timers: TimerHandle[] = [];
  for (const spec of specs) {
    if (spec.atMs === 0) apply(spec, target);
    else timers.push(target.clock.setTimer(spec.atMs, () => apply(spec, target)));
  }
  return () => timers.forEach((t) => t.cancel());
}
