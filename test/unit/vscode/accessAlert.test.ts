import { strict as assert } from 'node:assert';
import type { TraceEvent } from '../../../src/format/events';
import { computeFindings } from '../../../src/trace/findings';
import type { RecordedEvent } from '../../../src/format/events';
import { SHOW_LOG, watchAccess } from '../../../src/vscode/accessAlert';
import { header, numbered } from '../trace/fixtures';

/** A session whose recorder batches are pushed by the test. */
function fakeSession() {
  const all: RecordedEvent[] = [];
  let listener: ((b: RecordedEvent[]) => void) | undefined;
  return {
    title: 'configmaps (ns demo, v1.36)',
    subscribe(fn: (b: RecordedEvent[]) => void) {
      listener = fn;
      return () => (listener = undefined);
    },
    findings: () => computeFindings(header({ profile: 'v1.36', namespace: 'demo' }), all),
    push(events: TraceEvent[]) {
      const batch = numbered(events).map((e, i) => ({ ...e, seq: all.length + i }));
      all.push(...batch);
      listener?.(batch);
    },
  };
}

const forbidden: TraceEvent = {
  t: 1, type: 'list.error', code: 403, reason: 'Forbidden',
  text: 'failed to list /v1, Kind=ConfigMap: configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "demo"',
};

describe('access alert (401/403/404 in the extension)', () => {
  it('a 403 shows one error notification with the fix and "Show Log", which reveals the log', async () => {
    const s = fakeSession();
    const shown: { message: string; actions: string[] }[] = [];
    const logged: string[] = [];
    let revealed = 0;
    watchAccess(s, {
      showError: (message, ...actions) => (shown.push({ message, actions }), Promise.resolve(SHOW_LOG)),
      log: (l) => logged.push(l),
      showLog: () => revealed++,
    });
    s.push([{ t: 0, type: 'reflector.state', state: 'listing' }]);
    assert.equal(shown.length, 0);
    s.push([forbidden, { t: 1, type: 'reflector.state', state: 'denied' }]);
    s.push([{ ...forbidden, t: 2 }]);
    await new Promise((r) => setImmediate(r));
    assert.equal(shown.length, 1, 'once per session and code');
    assert.match(shown[0].message, /403 Forbidden/);
    assert.match(shown[0].message, /kubectl auth can-i list configmaps -n demo/);
    assert.deepEqual(shown[0].actions, [SHOW_LOG]);
    assert.equal(revealed, 1);
    assert.match(logged[0], /cannot list resource "configmaps"/);
  });
});
