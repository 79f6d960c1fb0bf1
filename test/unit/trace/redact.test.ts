import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { TraceRecorder } from '../../../src/trace/recorder';
import { REDACTED, redactEvent, redactText } from '../../../src/trace/redact';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { header } from './fixtures';

const SECRETS = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl';

/** Every sensitive value below must be gone from a redacted export; the names around them stay. */
function leakyEvents(): TraceEvent[] {
  return [
    {
      t: 1, type: 'distribute', op: 'update', key: 'default/db-creds', isSync: false, delivered: 1, skipped: 0, change: 'other',
      diff: [
        { path: 'data.password', old: 'b2xkcGFzcw==', new: 'bmV3cGFzcw==' },
        { path: 'stringData', new: { user: 'admin', pass: 'hunter2' } },
        { path: 'metadata.annotations.kubectl.kubernetes.io/last-applied-configuration', new: '{"data":{"password":"cGxhaW4="}}' },
        { path: 'metadata.labels.app', old: 'db', new: 'db2' },
      ],
    },
    { t: 2, type: 'log', level: 'info', msg: `request failed: Authorization: Bearer sk-live-123456 sent`, kv: { token: 'tok-999', url: 'https://alice:pw123@10.0.0.1:6443/api' } },
    { t: 3, type: 'list.error', text: `client-key-data: ${PEM}` },
    { t: 4, type: 'watch.end', row: 18, outcome: 'relist', durationMs: 1, eventCount: 0, how: 'open-failed', error: `Unauthorized, id-token=${JWT}`, watchList: false },
    { t: 5, type: 'fault.injected', fault: 'x', detail: 'password=letmein and Basic YWxpY2U6cHcxMjM=' },
  ];
}
const LEAKS = ['b2xkcGFzcw==', 'bmV3cGFzcw==', 'hunter2', 'cGxhaW4=', 'sk-live-123456', 'tok-999', 'pw123', 'MIIEpAIBAAKCAQEA7', JWT, 'letmein', 'YWxpY2U6cHcxMjM='];

function recorded(redacted: boolean): string {
  const { dropped: _d, ...h } = header({ resource: SECRETS, redacted });
  const r = new TraceRecorder(h);
  for (const e of leakyEvents()) r.emit(e);
  return exportTrace(r);
}

describe('redaction', () => {
  it('a redacted trace of Secrets holds no payload and no credential', () => {
    const text = recorded(true);
    for (const leak of LEAKS) assert.ok(!text.includes(leak), `leaked ${leak}`);
    assert.ok(text.includes('metadata.labels.app') && text.includes('db2'), 'non-secret fields stay readable');
    assert.ok(text.includes('default/db-creds'), 'object keys stay');
    assert.ok(text.includes(REDACTED));
  });

  it('redacted:false (explicitly requested) keeps everything, and says so in the header', () => {
    const text = recorded(false);
    for (const leak of LEAKS) assert.ok(text.includes(leak), `lost ${leak}`);
    assert.equal(importTrace(text).header.redacted, false);
  });

  it('ConfigMap data is not a secret, but credential-named keys still are', () => {
    const ctx = { resource: { group: '', resource: 'configmaps' } };
    const e = redactEvent(
      { t: 0, type: 'distribute', op: 'update', key: 'a/b', isSync: false, delivered: 1, skipped: 0, diff: [{ path: 'data.color', old: 'red', new: 'blue' }, { path: 'data.token', new: 'abc' }] },
      ctx,
    );
    assert.deepEqual(e.type === 'distribute' && e.diff, [{ path: 'data.color', old: 'red', new: 'blue' }, { path: 'data.token', new: REDACTED }]);
  });

  it('every credential name is blanked as a diff path segment, in any case', () => {
    const ctx = { resource: { group: '', resource: 'configmaps' } };
    const names = [
      'authorization', 'proxy-authorization', 'password', 'passwd', 'token', 'bearer_token', 'bearertoken', 'access-token', 'refresh_token',
      'id-token', 'client-key', 'client_key-data', 'client-certificate', 'client_certificate-data', 'tls', 'ssh-privatekey', 'api_key', 'private-key', 'secret',
    ];
    for (const name of [...names, ...names.map((n) => n.toUpperCase())]) {
      const path = `spec.${name}`;
      const e = redactEvent({ t: 0, type: 'distribute', op: 'update', key: 'a/b', isSync: false, delivered: 1, skipped: 0, diff: [{ path, old: 'x1', new: 'y2' }] }, ctx);
      const expected = name.toLowerCase() === 'tls' ? [{ path, old: 'x1', new: 'y2' }] : [{ path, old: REDACTED, new: REDACTED }];
      assert.deepEqual(e.type === 'distribute' && e.diff, expected, path);
    }
  });

  it('is idempotent, so a redacted trace re-exports byte-identically', () => {
    const text = recorded(true);
    assert.equal(exportTrace(importTrace(text)), text);
    for (const s of ['Bearer [redacted]', 'token=[redacted]', 'https://[redacted]@h/x']) assert.equal(redactText(s), s);
  });

  it('leaves ordinary client-go texts alone', () => {
    const texts = [
      'too old resource version: 11 (20)',
      'Timeout: Too large resource version: 30, current: 25',
      'Get "https://127.0.0.1:6443/api/v1/secrets?limit=500&resourceVersion=0": dial tcp 127.0.0.1:6443: connect: connection refused',
      'secrets "db" is forbidden: User "bob" cannot list resource "secrets"',
    ];
    for (const s of texts) assert.equal(redactText(s), s);
  });

  it('does not mutate the event it is given', () => {
    const e = leakyEvents()[1];
    const before = JSON.stringify(e);
    redactEvent(e, { resource: SECRETS });
    assert.equal(JSON.stringify(e), before);
  });
});
