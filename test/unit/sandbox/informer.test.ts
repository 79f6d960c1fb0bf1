/**
 * The sandbox's point: the project's own HTTP ListerWatcher and informer, run against it, show
 * the restart story — identical updates after a relist under v1.15, a plain re-watch under v1.36.
 */
import { strict as assert } from 'node:assert';
import { settle } from '../../../src/engine/clock';
import { DeletedFinalStateUnknown } from '../../../src/engine/objects';
import { findProfile } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { HttpListerWatcher, KubeConnection, type HttpRequestInfo } from '../../../src/kube';
import { type TestSandbox, testSandbox } from './helpers';

interface Run {
  requests: string[];
  identicalUpdates: number;
  updates: number;
  adds: number;
  /** Keys of deletes that arrived as DeletedFinalStateUnknown. */
  tombstones: string[];
  stop(): Promise<void>;
}

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

function runInformer(t: TestSandbox, profileName: string): Run {
  const profile = findProfile(profileName);
  if (!profile) throw new Error(profileName);
  const conn = KubeConnection.load({ kubeconfigYaml: t.sb.kubeconfigYaml });
  const requests: string[] = [];
  const onRequest = (r: HttpRequestInfo) => {
    const q = new URL(r.url).searchParams;
    requests.push(`${r.verb}${q.get('sendInitialEvents') === 'true' ? '-list' : ''} rv=${q.get('resourceVersion') ?? ''}`);
  };
  const lw = new HttpListerWatcher(conn, CONFIGMAPS, { clock: t.clock, onRequest });
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock: t.clock, rand, name: 'sandbox-test' });
  const run: Run = { requests, identicalUpdates: 0, updates: 0, adds: 0, tombstones: [], stop: async () => undefined };
  informer.addEventHandler('main', {
    onAdd: () => void run.adds++,
    onUpdate: (oldObj, newObj) => {
      run.updates++;
      if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) run.identicalUpdates++;
    },
    onDelete: (obj) => {
      if (obj instanceof DeletedFinalStateUnknown) run.tombstones.push(obj.key);
    },
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  run.stop = async () => {
    stop.abort();
    await running;
  };
  return run;
}

/** Moves virtual time in small steps, letting real loopback I/O complete between them. */
async function drive(t: TestSandbox, ms: number): Promise<void> {
  for (let done = 0; done < ms; done += 50) {
    await t.clock.advance(50);
    for (let i = 0; i < 4; i++) await settle();
  }
}

describe('sandbox: the project informer against the sandbox (restart story)', function () {
  this.timeout(20_000);
  let t: TestSandbox;
  afterEach(async () => t.sb.stop());

  for (const profile of ['v1.15', 'v1.36']) {
    it(`${profile}: syncs, survives an apiserver restart, and ${profile === 'v1.15' ? 'relists with identical updates' : 're-watches without a relist'}`, async () => {
      t = await testSandbox();
      const run = runInformer(t, profile);
      try {
        await drive(t, 1000);
        assert.equal(run.adds, 12, `initial sync: ${run.requests.join(', ')}`);
        const beforeRestart = run.requests.length;
        const restarted = t.sb.restartApiserver(3000);
        await drive(t, 8000);
        await restarted;
        const after = run.requests.slice(beforeRestart);
        if (profile === 'v1.15') {
          assert.ok(after.some((r) => r.startsWith('list ')), `a relist after the refused watch: ${after.join(', ')}`);
          assert.equal(run.identicalUpdates, 12, 'every unchanged object comes back as an identical update');
        } else {
          assert.ok(after.length > 0 && after.every((r) => r.startsWith('watch ')), `only re-watches: ${after.join(', ')}`);
          assert.equal(run.identicalUpdates, 0);
        }
      } finally {
        await run.stop();
      }
    });
  }

  for (const profile of ['v1.15', 'v1.36']) {
    it(`${profile}: a delete lost by etcd stays in the cache until the 410 relist turns it into a tombstone`, async () => {
      t = await testSandbox();
      t.sb.storage.create('configmaps', { metadata: { namespace: 'team-a', name: 'doomed' } });
      const run = runInformer(t, profile);
      try {
        await drive(t, 1000);
        assert.equal(run.adds, 13);
        t.sb.storage.delete('configmaps', 'team-a/doomed', { lost: true });
        await drive(t, 3000);
        assert.deepEqual(run.tombstones, [], 'no DELETED event: the informer does not know yet');
        const watchesBefore = run.requests.length;
        t.sb.reinitialiseWatchCache();
        await drive(t, 5000);
        const after = run.requests.slice(watchesBefore);
        assert.ok(after.some((r) => r.startsWith(profile === 'v1.15' ? 'list ' : 'watch-list ')), `a relist: ${after.join(', ')}`);
        // The churn's delete of team-a/web-config landed while the watch cache reinitialised, so
        // the relist is the only way the informer learns of it too.
        assert.deepEqual(run.tombstones.sort(), ['team-a/doomed', 'team-a/web-config']);
      } finally {
        await run.stop();
      }
    });
  }
});
