/**
 * Regression tests for the bugs `npm run fuzz` found (docs/reliability.md lists them): each one
 * fails on the code as it was before its fix.
 */
import { strict as assert } from 'node:assert';
import { RealClock } from '../../../src/engine/clock';
import { compareUpdate, deepEqual } from '../../../src/engine/diff';
import type { ListerWatcher, Status } from '../../../src/engine/listWatch';
import { TransportError } from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { findProfile } from '../../../src/engine/profiles';
import { SharedIndexInformer } from '../../../src/engine/sharedInformer';
import { decodeList } from '../../../src/kube/listerWatcher';
import { JsonFramer, MAX_NESTING_DEPTH, StreamWatcher } from '../../../src/kube/watchStream';
import { assertEndsLikeStreamWatcher, drain, isDecodeError, responseOf } from './watchStreamSupport';

describe('robustness: bugs found by the fuzzer', () => {
  it('a 16 MiB frame arriving in 1 KiB chunks is framed in linear time (it was quadratic: no end after 60 s)', function () {
    this.timeout(30_000);
    const f = new JsonFramer();
    const head = '{"type":"ADDED","object":{"kind":"ConfigMap","data":"';
    const chunk = 'x'.repeat(1024);
    const t0 = Date.now();
    assert.deepEqual(f.push(head), []);
    for (let n = head.length; n < 16 * 1024 * 1024 - 2048; n += chunk.length) assert.deepEqual(f.push(chunk), []);
    const frames = f.push('"}}\n');
    const ms = Date.now() - t0;
    assert.equal(frames.length, 1);
    assert.ok(frames[0].endsWith('"}}'));
    // Linear is well under a second here; quadratic took minutes. The bound leaves room for a loaded machine.
    assert.ok(ms < 10_000, `framing took ${ms} ms`);
  });

  it(`a value nested deeper than ${MAX_NESTING_DEPTH} levels is a decode error ("exceeded max depth"), as in encoding/json`, async () => {
    const nest = (depth: number) => `{"type":"ADDED","object":{"kind":"ConfigMap","data":${'['.repeat(depth - 2)}1${']'.repeat(depth - 2)}}}\n`;
    const ok = await drain(new StreamWatcher(responseOf([Buffer.from(nest(MAX_NESTING_DEPTH))]).res));
    assert.equal(ok.events.length, 1);
    assert.equal(isDecodeError(ok.events[0]), false);
    const deep = await drain(new StreamWatcher(responseOf([Buffer.from(nest(MAX_NESTING_DEPTH + 1))]).res));
    assertEndsLikeStreamWatcher(deep);
    assert.equal(deep.events.length, 1);
    assert.ok(isDecodeError(deep.events[0]));
    assert.match((deep.events[0].object as Status).message ?? '', /invalid character '\[' exceeded max depth/);
  });

  it('a LIST whose items are not objects is refused like the unstructured decoder refuses it; a null item is an empty object', () => {
    for (const [bad, kind] of [[7, 'number'], ['"x"', 'string'], ['[1]', 'array'], ['true', 'bool']] as const) {
      assert.throws(
        () => decodeList(Buffer.from(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},${bad}]}`)),
        (e: unknown) => e instanceof TransportError && e.message === `couldn't decode the list response: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
      );
    }
    const l = decodeList(Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[null]}'));
    assert.deepEqual(l.items, [{ apiVersion: 'v1', kind: 'ConfigMap' }]);
  });

  it('a LIST body that is not JSON gives a one-line error (V8 quotes the text, line breaks included)', () => {
    assert.throws(
      () => decodeList(Buffer.from('{"items":\n x}')),
      (e: unknown) => e instanceof TransportError && /^couldn't decode the list response: /.test(e.message) && !/[\r\n]/.test(e.message),
    );
  });
});

describe('robustness: bugs found while fuzzing (deep objects in the informer)', () => {
  it('an update of an object nested 9,990 levels deep (the decoder allows 10,000) is delivered; comparing it overflowed the stack', async () => {
    const depth = 9990;
    const deep = (v: string) =>
      JSON.parse(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"d","namespace":"n","resourceVersion":"${v}"},"data":${'['.repeat(depth)}"${v}"${']'.repeat(depth)}}`) as KubeObject;
    const cmp = compareUpdate(deep('1'), deep('2'));
    assert.equal(cmp.change, 'other');
    assert.deepEqual(cmp.diff.map((d) => d.path), ['metadata.resourceVersion', `data${'[0]'.repeat(depth)}`]);
    assert.equal(deepEqual(deep('1'), deep('1')), true);
    assert.equal(deepEqual(deep('1'), deep('2')), false);

    let sent = false;
    const lw: ListerWatcher = {
      url: 'https://127.0.0.1:6443/api/v1/configmaps',
      list: async () => ({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '1' }, items: [deep('1')] }),
      watch: async (_o, signal) => ({
        next: async () => {
          if (!sent) {
            sent = true;
            return { type: 'MODIFIED', object: deep('2') };
          }
          await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
          return null;
        },
        stop() {},
      }),
    };
    const logs: string[] = [];
    const inf = new SharedIndexInformer({ listerWatcher: lw, profile: findProfile('v1.32')!, clock: new RealClock(), sink: { emit: (e) => void (e.type === 'log' && e.level === 'error' && logs.push(e.msg)) }, typeDescription: '/v1, Kind=ConfigMap', name: 'deep' });
    let updated: (() => void) | undefined;
    const delivered = new Promise<void>((r) => (updated = r));
    inf.addEventHandler('h', { onUpdate: () => updated?.() });
    const ac = new AbortController();
    const run = inf.run(ac.signal);
    const timer = setTimeout(() => ac.abort(), 10_000);
    await Promise.race([delivered, run]);
    clearTimeout(timer);
    ac.abort();
    await run;
    assert.deepEqual(logs, []);
    assert.equal((inf.getIndexer().list()[0] as KubeObject).metadata?.resourceVersion, '2');
  });
});
