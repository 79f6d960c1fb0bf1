/**
 * One sandbox storyline run through the engine and the project's HTTP ListerWatcher over real
 * loopback HTTP under one profile, recorded by a TraceRecorder. Time is a FakeClock driving both
 * the sandbox (storyline, restarts, bookmarks) and the engine (backoff), so a run takes seconds.
 */
import { settle } from '../../../src/engine/clock';
import { findProfile } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { HttpListerWatcher, KubeConnection } from '../../../src/kube';
import { computeFindings } from '../../../src/trace/findings';
import type { Finding } from '../../../src/format/trace';
import { TraceRecorder } from '../../../src/trace/recorder';
import type { RecordedEvent } from '../../../src/format/events';
import { type TestSandbox, testSandbox } from './helpers';
import type { TraceMirror } from '../../../src/app/traceMirror';
import type { RecorderStatus } from '../../../src/app/workerProtocol';
import { hostMirror } from '../app/hostMirror';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
const STEP_MS = 50;

export interface StoryRun {
  recorder: TraceRecorder;
  /** What a live session's host would hold: the recorder's batches (EventBatches) moved into a TraceMirror. */
  mirror: TraceMirror;
  /** The last batch's status (its summary: the counts the worker kept from the packed fields). */
  lastStatus: RecorderStatus | undefined;
  findings: Finding[];
  ids: string[];
  of<T extends RecordedEvent['type']>(type: T): Extract<RecordedEvent, { type: T }>[];
}

/** Moves virtual time in small steps, letting real loopback I/O complete between them. */
async function drive(t: TestSandbox, ms: number): Promise<void> {
  for (let done = 0; done < ms; done += STEP_MS) {
    await t.clock.advance(STEP_MS);
    for (let i = 0; i < 4; i++) await settle();
  }
}

export async function runStory(story: string, profileName: string, virtualMs: number): Promise<StoryRun> {
  const profile = findProfile(profileName);
  if (!profile) throw new Error(`no profile ${profileName}`);
  const t = await testSandbox({ runStoryline: true, scenario: story });
  const recorder = new TraceRecorder({
    format: 'informer-trace/v1',
    tool: { name: 'informer-inspector', version: '0.1.0' },
    profile: profile.name,
    gates: { ...profile.gates },
    resource: { ...CONFIGMAPS, kind: 'ConfigMap' },
    context: 'informer-inspector-sandbox',
    source: 'sandbox',
    startedAt: '2026-01-01T00:00:00.000Z',
    cap: 200_000,
    redacted: true,
  });
  // A live session's host, fed as the engine worker feeds it.
  const host = hostMirror(recorder);
  const conn = KubeConnection.load({ kubeconfigYaml: t.sb.kubeconfigYaml });
  const lw = new HttpListerWatcher(conn, CONFIGMAPS, { clock: t.clock });
  let seed = 11;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock: t.clock, sink: recorder, rand, name: `story-${story}` });
  informer.addEventHandler('main', {});
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  try {
    await drive(t, virtualMs);
  } finally {
    ac.abort();
    await running;
    await t.sb.stop();
  }
  host.batches.flush();
  const findings = computeFindings(recorder.header(), recorder.events());
  if (process.env.PRINT_STORY_FINDINGS === '1') console.log(`      ${story} ${profileName}: ${findings.map((f) => f.id).join(', ') || 'none'}`);
  return {
    recorder,
    mirror: host.mirror,
    lastStatus: host.lastStatus(),
    findings,
    ids: findings.map((f) => f.id.split(':')[0]),
    of: <T extends RecordedEvent['type']>(type: T) => recorder.events().filter((e): e is Extract<RecordedEvent, { type: T }> => e.type === type),
  };
}

