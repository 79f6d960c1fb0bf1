/**
 * Comparing informers: one sandbox storyline run under several client-go profiles at once (each
 * profile gets its own SIMULATED API server playing the same storyline, all started together so
 * their timelines line up; src/protocol/compare.ts says how a compare view aligns them). Free of
 * 'vscode': the extension's Compare command and the tests use it the same way.
 */
import type { Sandbox } from '../sources/sandbox';
import { profileNamed } from './profiles';
import { findResource } from './resources';
import type { InformerSession } from './session';
import { createSession, startSandboxConnection } from './sessions';

/** The profiles the sandbox comparison starts by default: the seeds' central story, old against new. */
export const DEFAULT_COMPARE_PROFILES = ['v1.15', 'v1.36'] as const;
/** A compare view shows at most this many informers (each gets a compact group of lanes). */
export const MAX_COMPARED = 4;

export interface SandboxCompareOptions {
  storyline: string;
  profiles: readonly string[];
  resource?: string;
  newId: () => string;
}

/**
 * Starts one sandbox per profile, then one informer on each, all at once. Either every session
 * starts or none is left running (sandboxes and sessions already started are stopped again).
 */
export async function startSandboxComparison(o: SandboxCompareOptions): Promise<InformerSession[]> {
  if (o.profiles.length < 2 || o.profiles.length > MAX_COMPARED) throw new Error(`compare needs 2 to ${MAX_COMPARED} profiles, got ${o.profiles.length}`);
  const profiles = o.profiles.map(profileNamed);
  const started = await Promise.allSettled(profiles.map(() => startSandboxConnection(o.storyline)));
  const ok = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(ok.map((c) => c.sandbox.stop()));
    throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }
  const owned: (Sandbox | undefined)[] = ok.map((c) => c.sandbox);
  try {
    // Every sandbox serves the same resources: discover once.
    const resource = await findResource(ok[0].conn, o.resource ?? 'configmaps');
    const ids = profiles.map(() => o.newId());
    const sessions = await Promise.allSettled(
      ok.map((c, i) => {
        const sandbox = c.sandbox;
        owned[i] = undefined; // the session owns its sandbox from here on, also when it fails to start
        return createSession(ids[i], { kind: 'sandbox', sandbox, conn: c.conn, resource, namespace: '', profile: profiles[i] });
      }),
    );
    const made = sessions.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const bad = sessions.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (bad) {
      await Promise.allSettled(made.map((s) => s.stop()));
      throw bad.reason instanceof Error ? bad.reason : new Error(String(bad.reason));
    }
    return made;
  } finally {
    await Promise.allSettled(owned.map((s) => s?.stop()));
  }
}
