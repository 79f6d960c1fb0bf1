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
import { httpTransport } from './httpReplay';
import type { ReplayResult } from '../sources/replay';
import { startSandbox, type Sandbox } from '../sources/sandbox';
import { TraceRecorder } from '../trace/recorder';
import type { SegmentFile } from '../trace/segments';
import { RunError } from './errors';
import { scenarioResource, traceHeader } from './headers';
import { FAULTS } from './faults';
import { liveTitle, openLive, type LiveTarget } from './liveInformer';
import { replayProfile } from './profiles';
import { connect } from './resources';
import { readTrace } from './traces';
import type { ColumnarTrace } from './traceColumns';
import { InformerSession, type LiveControls } from './session';
import { ENGINE_WORKER_LIMITS } from './workerLimits';
import { readSpillInWorker, startWorkerSession } from './workerSession';
import { answerSpillCall } from './spillRead';
import type { WorkerSpec } from './workerProtocol';

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

export interface ReplayOptions {
  profile?: string;
  seed?: number;
  trace: boolean;
  /** The recorder's memory window (events) and where it spills beyond it. */
  cap?: number;
  spill?: SegmentFile;
  /** Called with the recorder before the replay starts (to follow its events as they come). */
  onRecorder?: (recorder: TraceRecorder, profile: Profile) => void;
}

/** Replays a scenario in virtual time, recording a trace if asked; profile and gates resolved in one place. */
export async function replay(scenario: Scenario, o: ReplayOptions): Promise<ReplayRun> {
  const { profile, warning } = replayProfile(scenario, o.profile);
  const recorder = o.trace ? new TraceRecorder(traceHeader({ profile, resource: scenarioResource(scenario), source: 'scenario', cap: o.cap }), undefined, o.spill) : undefined;
  if (recorder) o.onRecorder?.(recorder, profile);
  const result = await replayScenario(scenario, { profile, seed: o.seed, sink: recorder, transport: httpTransport });
  return { result, profile, ...(recorder ? { recorder } : {}), ...(warning ? { warning } : {}) };
}

/**
 * Where sessions run their engine: 'worker' (the default: a worker thread per session,
 * workerSession.ts) or 'host' (the caller's thread; benchmarks compare the two). `spill` is
 * where recorders spill past their memory window (the extension's global storage).
 */
export interface SessionEnvironment {
  engine: 'worker' | 'host';
  /** The worker script, or what makes it (tests bundle the source on first use); default: workerSession.ts's workerScript(). */
  workerFile?: string | (() => string);
  spill?: { dir: string; maxBytes: number };
  /** The recorders' in-memory window in events (default: the recorder's DEFAULT_TRACE_CAP). */
  cap?: number;
  /** The engine worker's old-generation limit in MB (default: ENGINE_WORKER_LIMITS's). */
  heapLimitMb?: number;
}

let environment: SessionEnvironment = { engine: 'worker' };

/** Sets how later sessions run (the front-end calls it once, at start). */
export function configureSessions(e: Partial<SessionEnvironment>): void {
  environment = { ...environment, ...e };
}

export function sessionEnvironment(): SessionEnvironment {
  return environment;
}

export type SessionSpec =
  | ({ kind: 'cluster' } & LiveTarget)
  /** The sandbox belongs to the session from here on and stops with it. */
  | ({ kind: 'sandbox'; sandbox: Sandbox } & LiveTarget)
  | { kind: 'replay'; scenario: Scenario; profile?: string }
  /** `text`: the trace file's content, or `columnar`: the trace read from its binary companion; `name`: its file name. */
  | { kind: 'import'; name: string; text: string }
  | { kind: 'import'; name: string; columnar: ColumnarTrace };

type SpecKind = SessionSpec['kind'];
type Builder<K extends SpecKind> = (id: string, spec: Extract<SessionSpec, { kind: K }>) => Promise<InformerSession>;

const BUILDERS: { [K in SpecKind]: Builder<K> } = {
  cluster: async (id, spec) => (environment.engine === 'worker' ? workerLiveSession(id, spec) : liveSession(id, spec)),
  sandbox: async (id, spec) => {
    try {
      return environment.engine === 'worker' ? await workerLiveSession(id, spec, spec.sandbox) : liveSession(id, spec, spec.sandbox);
    } catch (e) {
      await spec.sandbox.stop();
      throw e;
    }
  },
  replay: async (id, spec) => {
    if (environment.engine === 'worker') {
      return startWorkerSession(id, 'replay', { kind: 'replay', scenario: spec.scenario, ...(spec.profile !== undefined ? { profile: spec.profile } : {}) }, workerOptions(false));
    }
    const run = await replay(spec.scenario, { profile: spec.profile, trace: true });
    if (run.result.outcome === 'error') throw new RunError(`replay of ${spec.scenario.name} failed: ${run.result.error ?? 'unknown error'}`);
    return new InformerSession({ id, kind: 'replay', title: `${spec.scenario.name} (replay, ${run.profile.name})`, simulated: false, recorder: run.recorder });
  },
  import: async (id, spec) => {
    if ('columnar' in spec) {
      return new InformerSession({ id, kind: 'import', title: spec.name, simulated: spec.columnar.header.source === 'sandbox', columnar: spec.columnar });
    }
    const data = readTrace(spec.text);
    return new InformerSession({ id, kind: 'import', title: spec.name, simulated: data.header.source === 'sandbox', imported: { header: data.header, events: data.events } });
  },
};

/** Builds and starts a session of any kind. */
export function createSession(id: string, spec: SessionSpec): Promise<InformerSession> {
  return (BUILDERS[spec.kind] as Builder<SpecKind>)(id, spec);
}

function workerFile(): string | undefined {
  return typeof environment.workerFile === 'function' ? environment.workerFile() : environment.workerFile;
}

function workerOptions(simulated: boolean, onStopped?: () => Promise<void>): Parameters<typeof startWorkerSession>[3] {
  const file = workerFile();
  return {
    simulated,
    ...(file ? { workerFile: file } : {}),
    ...(environment.spill ? { spill: environment.spill } : {}),
    ...(environment.cap !== undefined ? { cap: environment.cap } : {}),
    ...(environment.heapLimitMb !== undefined ? { resourceLimits: { ...ENGINE_WORKER_LIMITS, maxOldGenerationSizeMb: environment.heapLimitMb } } : {}),
    ...(onStopped ? { onStopped } : {}),
  };
}

/** A live session whose informer runs in a worker thread; the sandbox (if any) stays here and stops with the session. */
function workerLiveSession(id: string, target: LiveTarget, sandbox?: Sandbox): Promise<InformerSession> {
  const spec: WorkerSpec = {
    kind: 'live',
    kubeconfigYaml: target.conn.kubeconfigYaml(),
    resource: target.resource,
    profile: target.profile,
    namespace: target.namespace,
    ...(target.labelSelector ? { labelSelector: target.labelSelector } : {}),
    ...(target.fieldSelector ? { fieldSelector: target.fieldSelector } : {}),
    ...(target.resyncPeriodMs ? { resyncPeriodMs: target.resyncPeriodMs } : {}),
  };
  return startWorkerSession(id, sandbox ? 'sandbox' : 'cluster', spec, workerOptions(sandbox !== undefined, sandbox ? () => sandbox.stop() : undefined));
}

/** A live session on this thread (SessionEnvironment.engine 'host'). */
function liveSession(id: string, target: LiveTarget, sandbox?: Sandbox): InformerSession {
  const live = openLive(target, { ...(environment.spill ? { spill: { ...environment.spill, name: id } } : {}), ...(environment.cap !== undefined ? { cap: environment.cap } : {}) });
  const { clock, informer } = live;
  // The informer needs at least one handler to show notifications; "main" stands for the controller.
  informer.addEventHandler('main', {});
  live.start();
  const title = liveTitle(target);
  const controls: LiveControls = {
    injectFault: (id, valueMs) => FAULTS.find((f) => f.id === id)?.apply({ faults: live.faults, addSlowHandler: (ms) => live.addSlowHandler(ms) }, valueMs),
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
    // The segment is read in a reader worker, as a worker session's is once its engine ended.
    readSpill: (c) => {
      const spill = live.recorder.spillState();
      return spill ? readSpillInWorker(spill, c, workerFile()) : answerSpillCall(undefined, c);
    },
    stop: async () => {
      await live.stop().catch(() => undefined);
      await sandbox?.stop();
    },
    release: () => live.release(),
  });
}
