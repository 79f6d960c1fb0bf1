/**
 * Replay through the real engine: binds replay.ts to src/engine/sharedInformer.ts. Everything
 * that replays a scenario for users (CLI, extension, conformance runner) goes through here.
 */
import { SharedIndexInformer } from '../engine/sharedInformer';
import { replayWith, type InformerFactory, type ReplayOptions, type ReplayResult } from './replay';
import type { Scenario } from '../scenario/types';

export const engineInformerFactory: InformerFactory = (o) =>
  new SharedIndexInformer({
    listerWatcher: o.listerWatcher,
    profile: o.profile,
    clock: o.clock,
    sink: o.sink,
    rand: o.rand,
    resyncPeriodMs: o.resyncPeriodMs,
    typeDescription: o.typeDescription,
    name: o.name,
    ...(o.transform ? { transform: o.transform } : {}),
    ...(o.indexers ? { indexers: o.indexers } : {}),
  });

export function replayScenario(scenario: Scenario, options: ReplayOptions): Promise<ReplayResult> {
  return replayWith(engineInformerFactory, scenario, options);
}
