/**
 * The session factory: every kind of session the tool shows is built here, the same way for
 * the CLI and the extension — a live informer on a cluster, the same on the SIMULATED sandbox,
 * a scenario replayed in virtual time, and an imported trace file.
 *
 * Adding a kind (the observed process of a later issue, say) is adding one member to SessionSpec
 * and one builder to BUILDERS; the compiler then insists on both. A builder gets its spec and
 * returns a started InformerSession whose stop() ends everything the session owns.
 */
import type { Profile } from '../engine/profiles';
import type { KubeConnection } from '../kube';
import type { Scenario } from '../scenario/types';
import { replayScenario } from '../sources/engineReplay';
import type { ReplayResult } from '../sources/replay';
import { startSandbox, type Sandbox } from '../sources/sandbox';
import { TraceRecorder } from '../trace/recorder';
import { RunError } from './errors';
import { scenarioResource, traceHeader } from './headers';
import { openLive, type LiveTarget } from './liveInformer';
import { replayProfile } from './profiles';
import { connect, resourceLabel } from './resources';
import { readTrace } from './traces';
import { InformerSession, type LiveControls } from './session';

export { DEFAULT_STORYLINE, startSandbox, STORYLINES, STORYLINE_DESCRIPTIONS, type StorylineName } from '../sources/sandbox';

/** Starts the SIMULATED sandbox and connects to it; the caller owns the sandbox. */
export async function startSandboxConnection(storyline?: string): Promise<{ sandbox: Sandbox; conn: KubeConnection }> {
  const sandbox = await startSandbox({ scenario: storyline });
  try {
    return { sandbox, conn: connect({ kubeconfigYaml: sandbox.kubeconfigYaml }) };
  } catch (e) {
    await sandbox.stop();
    throw e;
  }
}

export interface ReplayRun {
  result: ReplayResult;
  /** Set when a trace was asked for. */
  recorder?: TraceRecorder;
  /** The effective profile: what the engine ran and the trace header records. */
  profile: Profile;
  /** The requested profile is not one the scenario is meant for (the replay went ahead). */
  warning?: string;
}

/** Replays a scenario in virtual time, recording a trace if asked; profile and gates resolved in one place. */
export async function replay(scenario: Scenario, o: { profile?: string; seed?: number; trace: boolean }): Promise<ReplayRun> {
  const { profile, warning } = replayProfile(scenario, o.profile);
  const recorder = o.trace ? new TraceRecorder(traceHeader({ profile, resource: scenarioResource(scenario), source: 'scenario' })) : undefined;
  const result = await replayScenario(scenario, { profile, seed: o.seed, sink: recorder });
  return { result, profile, ...(recorder ? { recorder } : {}), ...(warning ? { warning } : {}) };
}

export type SessionSpec =
  | ({ kind: 'cluster' } & LiveTarget)
  /** The sandbox belongs to the session from here on and stops with it. */
  | ({ kind: 'sandbox'; sandbox: Sandbox } & LiveTarget)
  | { kind: 'replay'; scenario: Scenario; profile?: string }
  /** `text`: the trace file's content; `name`: its file name. */
  | { kind: 'import'; name: string; text: string };

type SpecKind = SessionSpec['kind'];
type Builder<K extends SpecKind> = (id: string, spec: Extract<SessionSpec, { kind: K }>) => Promise<InformerSession>;

const BUILDERS: { [K in SpecKind]: Builder<K> } = {
  cluster: async (id, spec) => liveSession(id, spec),
  sandbox: async (id, spec) => {
    try {
      return liveSession(id, spec, spec.sandbox);
    } catch (e) {
      await spec.sandbox.stop();
      throw e;
    }
  },
  replay: async (id, spec) => {
    const run = await replay(spec.scenario, { profile: spec.profile, trace: true });
    if (run.result.outcome === 'error') throw new RunError(`replay of ${spec.scenario.name} failed: ${run.result.error ?? 'unknown error'}`);
    return new InformerSession({ id, kind: 'replay', title: `${spec.scenario.name} (replay, ${run.profile.name})`, simulated: false, recorder: run.recorder });
  },
  import: async (id, spec) => {
    const data = readTrace(spec.text);
    return new InformerSession({ id, kind: 'import', title: spec.name, simulated: data.header.source === 'sandbox', imported: { header: data.header, events: data.events } });
  },
};

/** Builds and starts a session of any kind. */
export function createSession(id: string, spec: SessionSpec): Promise<InformerSession> {
  return (BUILDERS[spec.kind] as Builder<SpecKind>)(id, spec);
}

function liveSession(id: string, target: LiveTarget, sandbox?: Sandbox): InformerSession {
  const live = openLive(target);
  const { clock, informer } = live;
  // The informer needs at least one handler to show notifications; "main" stands for the controller.
  informer.addEventHandler('main', {});
  live.start();
  const where = target.namespace ? `ns ${target.namespace}` : 'all namespaces';
  const title = `${resourceLabel(target.resource)} (${where}, ${target.profile.name})${sandbox ? ' SIMULATED' : ''}`;
  const controls: LiveControls = {
    addHandler: (name, resyncPeriodMs) => void informer.addEventHandler(name, {}, resyncPeriodMs),
    addSlowHandler: (ms) => live.addSlowHandler(ms),
    checkConsistency: () => live.checkConsistency(),
  };
  return new InformerSession({
    id,
    kind: sandbox ? 'sandbox' : 'cluster',
    title,
    simulated: sandbox !== undefined,
    recorder: live.recorder,
    informer,
    faults: live.faults,
    controls,
    clock: () => clock.now(),
    stop: async () => {
      await live.stop().catch(() => undefined);
      await sandbox?.stop();
    },
  });
}
