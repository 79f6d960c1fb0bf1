/**
 * A scenario's timed actions (extension, docs/scenario-format.md "Actions") and the informer
 * options its catalogue entries become (transform, indexers). Each action runs at `atMs` once that
 * virtual instant has settled — the Go oracle sleeps until `atMs` + 1 ns, which fires only when
 * every goroutine is blocked; here a timer 1 ns (1e-6 ms) later fires only when every task is idle.
 * The nanosecond vanishes in the log's microsecond rounding.
 */
import type { Clock } from '../engine/clock';
import type { KubeObject, StoreObject } from '../engine/objects';
import { indexFuncFor, transformFor } from '../scenario/catalogue';
import type { Action, HandlerSpec, IndexerSpecs, Scenario } from '../scenario/types';

/** What the actions act on (replay.ts binds it to the informer and the run). */
export interface ActionTarget {
  informer: {
    removeEventHandler?(reg: never): void;
    addIndexers?(indexers: Record<string, (obj: StoreObject) => string[]>): void;
  };
  addHandler(h: HandlerSpec): unknown;
  registration(name: string): unknown;
  /** An index was added (it is part of the final `index` line). */
  indexAdded(name: string): void;
  /** End the run now (a `stop` action). */
  stop(): void;
  /** Stop the informer and start a fresh one with the scenario's handlers (a `restart` action). */
  restart(): Promise<void>;
}

/** One nanosecond in virtual ms: an action runs after everything at its instant. */
const SETTLED_MS = 1e-6;

export function indexFuncsOf(specs: IndexerSpecs): Record<string, (obj: StoreObject) => string[]> {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, indexFuncFor(spec)]));
}

/** The informer options a scenario's `transform` and `indexers` become. */
export function indexersFor(s: Scenario): { transform?: (obj: KubeObject) => KubeObject; indexers?: Record<string, (obj: StoreObject) => string[]> } {
  return {
    ...(s.informer.transform ? { transform: transformFor(s.informer.transform) } : {}),
    ...(s.informer.indexers ? { indexers: indexFuncsOf(s.informer.indexers) } : {}),
  };
}

/**
 * Runs the actions in time order until the run stops (`signal`). A call client-go refuses (e.g.
 * AddIndexers after start on 1.15) changes nothing, as there: the oracle ignores the error too.
 */
export async function runActions(actions: readonly Action[], clock: Clock, signal: AbortSignal, target: ActionTarget): Promise<void> {
  const sorted = [...actions].sort((a, b) => a.atMs - b.atMs);
  for (const action of sorted) {
    const wait = action.atMs + SETTLED_MS - clock.now();
    try {
      await clock.sleep(Math.max(0, wait), signal);
    } catch {
      return; // the run stopped
    }
    if (signal.aborted) return;
    await perform(action, target);
  }
}

async function perform(action: Action, target: ActionTarget): Promise<void> {
  if ('addHandler' in action) {
    target.addHandler(action.addHandler);
  } else if ('removeHandler' in action) {
    const reg = target.registration(action.removeHandler);
    if (reg !== undefined) target.informer.removeEventHandler?.(reg as never);
  } else if ('addIndexers' in action) {
    try {
      target.informer.addIndexers?.(indexFuncsOf(action.addIndexers));
      for (const name of Object.keys(action.addIndexers)) target.indexAdded(name);
    } catch {
      // refused by this client-go line: nothing added
    }
  } else if ('restart' in action) {
    await target.restart();
  } else {
    target.stop();
  }
}
