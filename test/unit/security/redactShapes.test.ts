/**
 * Redaction against the shapes the engine really produces (compareUpdate's diff notation), and
 * the texts it must leave alone:
 * - a Secret's last-applied annotation, whichever level of the object the diff reports the change
 *   at (the annotation itself, the whole annotations map, the whole metadata, the whole object);
 * - the URL helpers: a password in a server URL becomes *** (net/http's stripPassword) and dial
 *   texts name host:port only;
 * - client-go's texts about Secrets ("Kind=Secret: <error>") keep their error text.
 */
import { strict as assert } from 'node:assert';
import { compareUpdate } from '../../../src/engine/diff';
import type { TraceEvent } from '../../../src/format/events';
import { transportErrorText } from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { redactedUrl } from '../../../src/kube';
import { redactEvent, redactText } from '../../../src/trace/redact';

const SECRETS = { resource: { group: '', resource: 'secrets', kind: 'Secret' } };
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const PAYLOAD = 'cGF5bG9hZC12YWx1ZS0xMjM=';

function secret(rv: string, annotations?: Record<string, string>, data = { 'db-pass': 'b2xk' }): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'prod', resourceVersion: rv, ...(annotations ? { annotations } : {}) }, data } as KubeObject;
}

function redactedDiff(oldObj: KubeObject, newObj: KubeObject): string {
  const { diff } = compareUpdate(oldObj, newObj);
  const e: TraceEvent = { t: 0, type: 'distribute', op: 'update', key: 'prod/db', isSync: false, delivered: 1, skipped: 0, diff };
  return JSON.stringify(redactEvent(e, SECRETS));
}

describe('security: redaction of the shapes the engine emits', () => {
  const applied = JSON.stringify({ kind: 'Secret', data: { 'db-pass': PAYLOAD } });

  it("a Secret's last-applied annotation, changed in place", () => {
    const text = redactedDiff(secret('1', { [LAST_APPLIED]: '{}' }), secret('2', { [LAST_APPLIED]: applied }));
    assert.ok(text.includes(`metadata.annotations[\\"${LAST_APPLIED}\\"]`), text);
    assert.ok(!text.includes(PAYLOAD), text);
  });

  it('added with the whole annotations map, other annotations kept readable', () => {
    const text = redactedDiff(secret('1'), secret('2', { [LAST_APPLIED]: applied, team: 'payments' }));
    assert.ok(!text.includes(PAYLOAD), text);
    assert.ok(text.includes('payments'), 'a plain annotation stays');
  });

  it('inside a whole metadata or a whole object value (hand-made diffs, imported traces)', () => {
    const obj = secret('2', { [LAST_APPLIED]: applied }, { 'db-pass': PAYLOAD });
    for (const [path, value] of [['metadata', obj.metadata], ['', obj]] as const) {
      const e: TraceEvent = { t: 0, type: 'distribute', op: 'update', key: 'prod/db', isSync: false, delivered: 1, skipped: 0, diff: [{ path, new: value }] };
      const text = JSON.stringify(redactEvent(e, SECRETS));
      assert.ok(!text.includes(PAYLOAD), text);
      assert.ok(text.includes('prod'), 'the rest of the value stays');
    }
  });

  it('a path that is not in diff notation is blanked for a Secret', () => {
    const e: TraceEvent = { t: 0, type: 'distribute', op: 'update', key: 'prod/db', isSync: false, delivered: 1, skipped: 0, diff: [{ path: 'weird path!', new: PAYLOAD }] };
    assert.ok(!JSON.stringify(redactEvent(e, SECRETS)).includes(PAYLOAD));
  });

  it('URLs: a password becomes ***, user names and hosts stay; dial texts name host:port only', () => {
    assert.equal(redactedUrl('https://bob:s3cret@10.0.0.1:6443/api?x=1'), 'https://bob:***@10.0.0.1:6443/api?x=1');
    assert.equal(redactedUrl('https://10.0.0.1:6443/api'), 'https://10.0.0.1:6443/api');
    assert.equal(redactedUrl(redactedUrl('http://a:b@h')), 'http://a:***@h');
    assert.equal(transportErrorText('connection-refused', 'https://bob:***@h:1/api'), 'Get "https://bob:***@h:1/api": dial tcp h:1: connect: connection refused');
  });

  it("client-go's texts about Secrets keep their error; credential assignments are still scrubbed", () => {
    const texts = [
      'informer-inspector: Failed to watch v1, Kind=Secret: failed to list v1, Kind=Secret: Get "https://h/api/v1/secrets": EOF',
      'Failed to watch *v1.Secret: the server could not find the requested resource',
    ];
    for (const s of texts) assert.equal(redactText(s), s);
    assert.equal(redactText('client secret=abc123'), 'client secret=[redacted]');
    assert.equal(redactText('CLIENT SECRET: abc123'), 'CLIENT SECRET: [redacted]');
  });
});
