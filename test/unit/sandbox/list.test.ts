import { strict as assert } from 'node:assert';
import type { KubeObject } from '../../../src/engine/objects';
import { type TestSandbox, testSandbox } from './helpers';

const names = (items: KubeObject[] | undefined) => (items ?? []).map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);

describe('sandbox: LIST', () => {
  let t: TestSandbox;
  beforeEach(async () => (t = await testSandbox({ windowSize: 20 })));
  afterEach(async () => t.sb.stop());

  const bump = (key: string, value: string) =>
    t.sb.storage.update('configmaps', key, (cm) => ({ ...cm, data: { revision: value } }));

  it('lists all namespaces or one namespace, sorted by key, at the current RV, without item kinds', async () => {
    const all = await t.json('/api/v1/configmaps');
    assert.equal(all.body.kind, 'ConfigMapList');
    assert.equal(all.body.metadata?.resourceVersion, String(t.sb.storage.currentRV));
    assert.equal(all.body.items?.length, 12);
    const sorted = [...names(all.body.items)].sort();
    assert.deepEqual(names(all.body.items), sorted);
    assert.equal(all.body.items?.[0].kind, undefined, 'typed list items carry no kind');
    const teamA = await t.json('/api/v1/namespaces/team-a/configmaps');
    assert.deepEqual(names(teamA.body.items), ['team-a/cache-tuning', 'team-a/db-settings', 'team-a/feature-flags', 'team-a/web-config']);
    const widgets = await t.json('/apis/demo.example.com/v1/namespaces/team-b/widgets');
    assert.deepEqual(names(widgets.body.items), ['team-b/red']);
    assert.equal(widgets.body.items?.[0].kind, 'Widget', 'custom resource items keep their kind');
  });

  it('pages with limit and continue over a consistent snapshot, with remainingItemCount', async () => {
    const first = await t.json('/api/v1/configmaps?limit=5');
    assert.equal(first.body.items?.length, 5);
    assert.equal(first.body.metadata?.remainingItemCount, 7);
    const snapshotRV = first.body.metadata?.resourceVersion;
    // Changes after the first page must not show in later pages of the same list.
    bump('team-b/web-config', 'changed');
    t.sb.storage.delete('configmaps', 'team-b/db-settings');
    const seen = [...names(first.body.items)];
    let token = first.body.metadata?.continue;
    const pages: KubeObject[][] = [];
    while (token) {
      const page = await t.json(`/api/v1/configmaps?limit=5&continue=${encodeURIComponent(token)}`);
      assert.equal(page.status, 200);
      assert.equal(page.body.metadata?.resourceVersion, snapshotRV);
      pages.push(page.body.items ?? []);
      seen.push(...names(page.body.items));
      token = page.body.metadata?.continue;
    }
    assert.equal(pages.length, 2);
    assert.equal(seen.length, 12);
    assert.ok(seen.includes('team-b/db-settings'), 'the snapshot still holds the object deleted after page 1');
    const webConfig = pages.flat().find((o) => o.metadata?.name === 'web-config' && o.metadata.namespace === 'team-b');
    assert.deepEqual(webConfig?.data, { revision: '1' });
  });

  it('expires a continue token whose snapshot fell out of the window with 410 Expired', async () => {
    const first = await t.json('/api/v1/configmaps?limit=5');
    for (let i = 0; i < 25; i++) bump('default/web-config', String(i));
    const page = await t.json(`/api/v1/configmaps?limit=5&continue=${encodeURIComponent(first.body.metadata?.continue ?? '')}`);
    assert.equal(page.status, 410);
    assert.equal(page.body.reason, 'Expired');
    assert.equal(
      page.body.message,
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  });

  it('rejects a continue token together with a resourceVersion, and an undecodable token', async () => {
    const first = await t.json('/api/v1/configmaps?limit=5');
    const both = await t.json(`/api/v1/configmaps?limit=5&resourceVersion=1&continue=${encodeURIComponent(first.body.metadata?.continue ?? '')}`);
    assert.equal(both.status, 400);
    const bad = await t.json('/api/v1/configmaps?limit=5&continue=garbage');
    assert.deepEqual([bad.status, bad.body.reason], [400, 'BadRequest']);
  });

  it('resourceVersion=0 is served from the cache and ignores limit', async () => {
    const res = await t.json('/api/v1/configmaps?resourceVersion=0&limit=2');
    assert.equal(res.body.items?.length, 12);
    assert.equal(res.body.metadata?.continue, undefined);
  });

  it('an exact RV (resourceVersionMatch=Exact, or legacy RV+limit) reads the snapshot at that RV', async () => {
    const oldRV = t.sb.storage.currentRV;
    bump('default/web-config', 'new');
    const exact = await t.json(`/api/v1/namespaces/default/configmaps?resourceVersion=${oldRV}&resourceVersionMatch=Exact`);
    assert.equal(exact.body.metadata?.resourceVersion, String(oldRV));
    assert.deepEqual(exact.body.items?.find((o) => o.metadata?.name === 'web-config')?.data, { revision: '1' });
    const legacy = await t.json(`/api/v1/namespaces/default/configmaps?resourceVersion=${oldRV}&limit=10`);
    assert.equal(legacy.body.metadata?.resourceVersion, String(oldRV));
    const notOlder = await t.json(`/api/v1/namespaces/default/configmaps?resourceVersion=${oldRV}`);
    assert.equal(notOlder.body.metadata?.resourceVersion, String(t.sb.storage.currentRV));
    assert.deepEqual(notOlder.body.items?.find((o) => o.metadata?.name === 'web-config')?.data, { revision: 'new' });
    const matchNotOlder = await t.json(`/api/v1/namespaces/default/configmaps?resourceVersion=${oldRV}&resourceVersionMatch=NotOlderThan`);
    assert.equal(matchNotOlder.body.metadata?.resourceVersion, String(t.sb.storage.currentRV));
  });

  it('an exact RV older than the window is 410 Expired', async () => {
    const oldRV = t.sb.storage.currentRV;
    for (let i = 0; i < 25; i++) bump('default/web-config', String(i));
    const res = await t.json(`/api/v1/configmaps?resourceVersion=${oldRV}&resourceVersionMatch=Exact`);
    assert.deepEqual([res.status, res.body.reason, res.body.message], [410, 'Expired', 'The resourceVersion for the provided list is too old.']);
  });

  it('an RV above the current one is 504 Timeout, cause ResourceVersionTooLarge, Retry-After 1', async () => {
    const current = t.sb.storage.currentRV;
    const res = await t.json(`/api/v1/configmaps?resourceVersion=${current + 50}`);
    assert.equal(res.status, 504);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal(res.body.reason, 'Timeout');
    assert.equal(res.body.message, `Timeout: Too large resource version: ${current + 50}, current: ${current}`);
    assert.equal(res.body.details?.causes?.[0].type, 'ResourceVersionTooLarge');
    assert.equal(res.body.details?.retryAfterSeconds, 1);
  });

  it('validates resourceVersionMatch', async () => {
    const noRV = await t.json('/api/v1/configmaps?resourceVersionMatch=Exact');
    assert.deepEqual([noRV.status, noRV.body.reason], [422, 'Invalid']);
    const zeroExact = await t.json('/api/v1/configmaps?resourceVersion=0&resourceVersionMatch=Exact');
    assert.equal(zeroExact.status, 422);
  });

  it('filters by label and field selectors; a bad selector is 400', async () => {
    const byLabel = await t.json('/api/v1/configmaps?labelSelector=' + encodeURIComponent('app=web,tier!=shared'));
    assert.deepEqual(names(byLabel.body.items), ['team-a/web-config', 'team-b/web-config']);
    const bySet = await t.json('/api/v1/configmaps?labelSelector=' + encodeURIComponent('app in (db,cache),tier=shared'));
    assert.deepEqual(names(bySet.body.items), ['default/cache-tuning', 'default/db-settings']);
    const byField = await t.json('/api/v1/configmaps?fieldSelector=' + encodeURIComponent('metadata.name=feature-flags,metadata.namespace!=team-a'));
    assert.deepEqual(names(byField.body.items), ['default/feature-flags', 'team-b/feature-flags']);
    const paged = await t.json('/api/v1/configmaps?limit=1&labelSelector=app%3Dweb');
    assert.equal(paged.body.metadata?.remainingItemCount, undefined, 'no remainingItemCount with a selector');
    assert.ok(paged.body.metadata?.continue);
    const badField = await t.json('/api/v1/configmaps?fieldSelector=spec.nodeName%3Dx');
    assert.deepEqual([badField.status, badField.body.message], [400, 'field label not supported: spec.nodeName']);
    const badLabel = await t.json('/api/v1/configmaps?labelSelector=' + encodeURIComponent('app in web'));
    assert.equal(badLabel.status, 400);
  });
});
