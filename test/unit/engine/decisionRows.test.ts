import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListEnd, WatchEnd } from '../../../src/engine/decisionRows';

const doc = (name: string) => readFileSync(join(__dirname, '../../../docs', name), 'utf8');

describe('decision rows', () => {
  it('every named row is a row of docs/reflector-decisions.md, with its number', () => {
    const text = doc('reflector-decisions.md');
    const groups = { WatchEnd, ListEnd } as const;
    for (const [group, rows] of Object.entries(groups)) {
      for (const [name, row] of Object.entries(rows)) {
        assert.ok(text.includes(`| ${row} | \`${group}.${name}\` |`), `${group}.${name} (row ${row}) has no row in docs/reflector-decisions.md`);
      }
    }
  });

  it('no two names share a row number', () => {
    const numbers = [...Object.values(WatchEnd), ...Object.values(ListEnd)];
    assert.equal(new Set(numbers).size, numbers.length);
  });

  it('docs/engine-reflector.md links the decision table', () => {
    assert.ok(doc('engine-reflector.md').includes('(reflector-decisions.md)'));
  });
});
