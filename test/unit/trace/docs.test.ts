import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import { join } from 'path';
import { exportTrace, importTrace } from '../../../src/trace/traceFile';
import { ALL_EVENT_TYPES } from './fixtures';

const ROOT = join(__dirname, '../../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

describe('trace docs', () => {
  it('docs/trace-format.md documents every event type', () => {
    const doc = read('docs/trace-format.md');
    for (const t of Object.keys(ALL_EVENT_TYPES)) assert.ok(doc.includes(`#### \`${t}\``), `${t} is not documented`);
  });

  it('the example in docs/trace-format.md is a valid, canonical trace', () => {
    const m = /```json\n([\s\S]*?)\n```/.exec(read('docs/trace-format.md'));
    assert.ok(m);
    const text = `${m[1]}\n`;
    assert.equal(exportTrace(importTrace(text)), text);
  });

  it('docs/findings.md documents every finding id the rules can produce', () => {
    const doc = read('docs/findings.md');
    const ids = [
      'relist-storm', 'refused-watch-relist', 'identical-updates-after-relist', 'internal-error-relist', 'client-timeout-relist',
      'expired-relist', 'consistent-relist', 'tombstones-delivered', 'watchlist-no-end-bookmark', 'slow-handler', 'fifo-backlog',
      'stale-cache', 'apiserver-429', 'trace-incomplete', 'access-forbidden', 'access-unauthorized', 'resource-not-found',
    ];
    for (const id of ids) assert.ok(doc.includes(`\`${id}\``), `${id} is not documented`);
    const src = ['relistStorm', 'relistCauses', 'identicalUpdates', 'handlers', 'watchList', 'cacheHealth', 'access']
      .map((f) => read(`src/trace/findings/${f}.ts`))
      .join('\n');
    const produced = new Set([...src.matchAll(/id: (?:[^,\n]*?\? )?[`']([a-z0-9-]+)/g)].map((x) => x[1]));
    assert.equal(produced.size, ids.length, `rule ids in the source: ${[...produced].join(', ')}`);
    for (const id of produced) assert.ok(ids.includes(id), `rule id ${id} missing from this list and the docs`);
  });
});
