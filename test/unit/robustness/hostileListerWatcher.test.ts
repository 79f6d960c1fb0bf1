/**
 * The informer (real Reflector, FIFO, indexer, listeners) against a hostile ListerWatcher:
 * lists with duplicate keys, objects without name, namespace or metadata, non-numeric and
 * non-string resourceVersions, unknown event types, events after an ERROR, ERROR events with
 * odd Status objects, list/watch calls and next() that reject with anything. client-go logs
 * such failures and goes on; so must the engine: every scripted answer is asked for (the
 * informer never gets stuck or stops by itself), run(signal) still ends cleanly when stopped,
 * and no timer is left behind.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { FakeClock, abortError, settle } from '../../../src/engine/clock';
import type { TraceEvent } from '../../../src/format/events';
import { StatusError, TransportError, type ListerWatcher, type ObjectList, type StreamEnd, type WatchEvent, type Watcher } from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { PROFILES, withGates } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { check } from './support';

/** One answer of the script: a list call uses items/rv, a watch call uses events/ending. */
interface Answer {
  fail?: unknown;
  items: unknown[];
  rv: unknown;
  events: { type: string; object: unknown }[];
  /** How the watch's next() ends after the events: null (closed), a rejection, or after a virtual delay. */
  ending: { kind: 'close' } | { kind: 'reject'; error: unknown } | { kind: 'close-after'; ms: number };
  delayMs: number;
}

class HostileWatcher implements Watcher {
  private i = 0;
  private stopped = false;
  end?: StreamEnd;
  constructor(
    private readonly answer: Answer,
    private readonly clock: FakeClock,
  ) {}
  async next(): Promise<WatchEvent | null> {
    if (this.stopped) return null;
    const { events, ending } = this.answer;
    if (this.i < events.length) return events[this.i++] as WatchEvent;
    if (ending.kind === 'reject') throw ending.error;
    if (ending.kind === 'close-after') {
      await this.clock.sleep(ending.ms);
      this.i = events.length;
    }
    this.end = { kind: 'eof' };
    return null;
  }
  stop(): void {
    this.stopped = true;
  }
}

class HostileListerWatcher implements ListerWatcher {
  readonly url = 'https://127.0.0.1:6443/api/v1/configmaps';
  calls = 0;
  constructor(
    private readonly script: readonly Answer[],
    private readonly clock: FakeClock,
  ) {}
  get exhausted(): boolean {
    return this.calls > this.script.length;
  }
  private async answer(signal: AbortSignal): Promise<Answer> {
    const a = this.script[this.calls++];
    if (!a) {
      // Out of script: wait until stopped, like a server with nothing more to say.
      await new Promise<never>((_r, reject) => {
        if (signal.aborted) reject(abortError());
        signal.addEventListener('abort', () => reject(abortError()), { once: true });
      });
    }
    if (a.delayMs > 0) await this.clock.sleep(a.delayMs, signal);
    if ('fail' in a) throw a.fail;
    return a;
  }
  async list(_o: unknown, signal: AbortSignal): Promise<ObjectList> {
    const a = await this.answer(signal);
    return { metadata: { resourceVersion: a.rv as string }, items: a.items as KubeObject[] };
  }
  async watch(_o: unknown, signal: AbortSignal): Promise<Watcher> {
    return new HostileWatcher(await this.answer(signal), this.clock);
  }
}

const names = fc.constantFrom('a', 'b', 'c', '', ' ', 'ns/x', '../a');
const oddValue = fc.oneof(fc.constantFrom(undefined, null, 42, true, [], {}, 'x'), fc.string({ maxLength: 4 }));
const resourceVersion = fc.oneof(fc.nat(30).map(String), fc.constantFrom('', 'abc', '-1', '1e3', '007', '99999999999999999999'), oddValue);

const metadata = fc.oneof(
  fc.record({ name: names, namespace: fc.constantFrom('default', 'kube-system', ''), resourceVersion }, { requiredKeys: [] }),
  fc.record({ name: oddValue, namespace: oddValue, resourceVersion, annotations: fc.oneof(oddValue, fc.constant({ 'k8s.io/initial-events-end': 'true' })) }, { requiredKeys: [] }),
);

const object: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ apiVersion: fc.constant('v1'), kind: fc.constant('ConfigMap'), metadata, data: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('ConfigMap', 'Status', 'Secret', ''), metadata: oddValue }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: oddValue },
);

const status = fc.record(
  {
    kind: fc.constantFrom('Status', 'ConfigMap', undefined),
    status: fc.constantFrom('Failure', 'Success', undefined),
    code: fc.oneof(fc.constantFrom(410, 500, 504, 429, 403, 0), oddValue),
    reason: fc.oneof(fc.constantFrom('Expired', 'Gone', 'InternalError', 'Timeout', 'TooManyRequests'), oddValue),
    message: fc.oneof(fc.constantFrom('too old resource version: 1 (2)', 'Too large resource version'), oddValue),
    details: fc.oneof(
      oddValue,
      fc.record({ causes: fc.oneof(oddValue, fc.array(fc.oneof(oddValue, fc.record({ reason: fc.constantFrom('ResourceVersionTooLarge', 'x'), message: oddValue }, { requiredKeys: [] })), { maxLength: 3 })), retryAfterSeconds: oddValue }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: [] },
);

const event = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'), object }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('ERROR'), object: fc.oneof(status, object) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('', 'EXPLODED', 'added'), object }) },
);

const failure = fc.oneof(
  status.map((s) => new StatusError(s as never)),
  fc.constantFrom('connection-refused', 'connection-reset', 'timeout', 'eof', 'other').map((k) => new TransportError(k as never, `Get "x": ${k}`)),
  fc.constantFrom(new TypeError('boom'), new Error(''), 'a string', undefined, null, 42),
);

const answer: fc.Arbitrary<Answer> = fc.record({
    fail: fc.option(failure, { freq: 4, nil: undefined }),
    items: fc.array(object, { maxLength: 5 }),
    rv: resourceVersion,
    events: fc.array(event, { maxLength: 6 }),
    ending: fc.oneof(
      fc.constant({ kind: 'close' as const }),
      failure.map((error) => ({ kind: 'reject' as const, error })),
      fc.integer({ min: 1, max: 400_000 }).map((ms) => ({ kind: 'close-after' as const, ms })),
    ),
    delayMs: fc.constantFrom(0, 0, 5, 1500),
  })
  // One answer in four is a failed call.
  .map(({ fail, ...rest }) => (fail === undefined ? rest : { fail, ...rest }));

const scenario = fc.record({
  profile: fc.constantFrom(...PROFILES.map((p) => p.name)),
  watchList: fc.boolean(),
  resyncPeriodMs: fc.constantFrom(0, 1000, 30_000),
  script: fc.array(answer, { minLength: 1, maxLength: 8 }),
  handlerThrows: fc.boolean(),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

async function runHostile(s: Scenario): Promise<{ events: TraceEvent[]; notifications: number }> {
  const clock = new FakeClock(0);
  const base = PROFILES.find((p) => p.name === s.profile)!;
  const profile = withGates(base, { WatchListClient: s.watchList });
  const lw = new HostileListerWatcher(s.script, clock);
  const events: TraceEvent[] = [];
  const informer = new SharedIndexInformer({ listerWatcher: lw, profile, clock, sink: { emit: (e) => events.push(e) }, rand: () => 0.5, resyncPeriodMs: s.resyncPeriodMs, name: 'hostile' });
  let notifications = 0;
  const seen = () => {
    notifications++;
    if (s.handlerThrows) throw new Error('handler failed');
  };
  informer.addEventHandler('h', { onAdd: seen, onUpdate: seen, onDelete: seen }, s.resyncPeriodMs);
  const stop = new AbortController();
  let runError: unknown;
  let ended = false;
  const running = informer.run(stop.signal).then(
    () => (ended = true),
    (e: unknown) => {
      runError = e ?? new Error('rejected with nothing');
      ended = true;
    },
  );
  const outcome = await clock.runUntilIdle(() => lw.exhausted || ended, 6 * 3600_000);
  assert.equal(runError, undefined, `run rejected: ${String(runError)}`);
  assert.equal(ended, false, 'the informer stopped by itself');
  assert.ok(outcome === 'done', `the informer stalled (${outcome}) after ${lw.calls} of ${s.script.length} answers`);
  stop.abort();
  for (let i = 0; i < 50 && !ended; i++) await clock.runUntilIdle(() => ended, 1000);
  await Promise.race([running, settle(5)]);
  assert.equal(ended, true, 'run(signal) did not end after stop');
  assert.equal(runError, undefined, `run rejected after stop: ${String(runError)}`);
  await settle();
  assert.equal(clock.pendingTimers(), 0, 'timers left behind after stop');
  return { events, notifications };
}

describe('robustness: the informer against a hostile ListerWatcher', () => {
  it('logs and goes on through any script, and stops cleanly with no timers left', async () => {
    await check(fc.asyncProperty(scenario, async (s) => void (await runHostile(s))), { numRuns: 60, timeMs: 2500 });
  });

  it('a list with duplicate keys and an object without metadata: the rest is cached, the run goes on', async () => {
    const ok = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, resourceVersion: rv } });
    const close = { kind: 'close' as const };
    const r = await runHostile({
      profile: 'v1.36',
      watchList: false,
      resyncPeriodMs: 0,
      handlerThrows: false,
      script: [
        { items: [ok('a', '1'), ok('a', '2'), { kind: 'ConfigMap' }], rv: '5', events: [], ending: close, delayMs: 0 },
        { items: [ok('a', '1'), ok('b', '3')], rv: '5', events: [{ type: 'ERROR', object: { kind: 'Status', code: 410 } }, { type: 'ADDED', object: ok('c', '9') }], ending: close, delayMs: 0 },
        { items: [ok('a', '1')], rv: 'not-a-number', events: [], ending: close, delayMs: 0 },
      ],
    });
    assert.ok(r.events.some((e) => e.type === 'list.error' || e.type === 'log'), 'the bad list is reported');
    assert.ok(r.notifications > 0, 'handlers were told about the good objects');
  });
});
