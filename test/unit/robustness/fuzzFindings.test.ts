/**
 * Regression tests for the bugs `npm run fuzz` found (docs/reliability.md lists them): each one
 * fails on the code as it was before its fix.
 */
import { strict as assert } from 'node:assert';
import type { Status } from '../../../src/engine/listWatch';
import { TransportError } from '../../../src/engine/listWatch';
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
