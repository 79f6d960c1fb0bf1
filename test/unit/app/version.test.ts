import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { traceHeader } from '../../../src/app/headers';
import { findProfile } from '../../../src/engine/profiles';
import { TOOL_VERSION } from '../../../src/format/tool';
import { loopbackListerWatcher, startLoopback } from '../kube/loopback';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { name: string; version: string };

describe('app: the tool version, in one place', () => {
  it("is package.json's version, and trace headers record it", () => {
    assert.equal(TOOL_VERSION, pkg.version);
    const h = traceHeader({ profile: findProfile('v1.36')!, resource: { group: '', version: 'v1', resource: 'pods' }, source: 'cluster' });
    assert.deepEqual(h.tool, { name: pkg.name, version: pkg.version });
  });

  it('the HTTP client sends it as its user agent', async () => {
    const agents: string[] = [];
    const lb = await startLoopback((req, res) => {
      agents.push(req.headers['user-agent'] ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
    });
    try {
      await loopbackListerWatcher(lb.port).list({ resourceVersion: '0', limit: 500 }, new AbortController().signal);
    } finally {
      lb.close();
    }
    assert.deepEqual(agents, [`${pkg.name}/${pkg.version} (client-go-informer-port)`]);
  });
});
