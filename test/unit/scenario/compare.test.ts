import { strict as assert } from 'node:assert';
import { compareLogs, formatMismatches, lineDiff } from '../../conformance/compare';
import type { LogLine } from '../../../src/scenario/notificationLog';

const req = (verb: 'list' | 'watch', rv: string, timeoutSeconds?: number): LogLine => ({ kind: 'request', verb, rv, ...(timeoutSeconds ? { timeoutSeconds } : {}) });
const add = (handler: string, key: string, rv: string): LogLine => ({ kind: 'notify', handler, op: 'add', key, rv, initialList: true });

describe('conformance comparison', () => {
  it('ignores timeoutSeconds, key order, handler interleaving and the position of synced', () => {
    const expected: LogLine[] = [req('list', '0'), { kind: 'synced' }, add('a', 'x', '1'), add('b', 'x', '1'), req('watch', '10', 300), { kind: 'end' }];
    const actual: LogLine[] = [req('list', '0'), add('b', 'x', '1'), req('watch', '10', 555), add('a', 'x', '1'), { kind: 'synced' }, { kind: 'end' }];
    assert.deepEqual(compareLogs(expected, actual), []);
    const reordered = JSON.parse('{"rv":"0","verb":"list","kind":"request"}') as LogLine;
    assert.deepEqual(compareLogs([req('list', '0')], [reordered]), []);
  });

  it('reports request, per-handler, synced and divergence differences separately', () => {
    const expected: LogLine[] = [req('list', '0'), add('a', 'x', '1'), { kind: 'synced' }, req('watch', '10')];
    const actual: LogLine[] = [
      req('list', '0'),
      add('a', 'x', '2'),
      req('list', '10'),
      { kind: 'divergence', expected: 'watch', got: { verb: 'list', rv: '10' } },
    ];
    const m = compareLogs(expected, actual);
    assert.deepEqual(m.map((x) => x.aspect), ['requests', 'handler a', 'synced', 'divergences']);
    assert.deepEqual(m[0].diff, ['  {"kind":"request","rv":"0","verb":"list"}', '+ {"kind":"request","rv":"10","verb":"list"}', '- {"kind":"request","rv":"10","verb":"watch"}']);
    assert.deepEqual(m[2].diff, ['- {"kind":"synced"}']);
    assert.match(formatMismatches(m), /requests differ \(- expected from client-go, \+ ours\)/);
  });

  it('shortens long runs of equal lines in a diff', () => {
    const same = ['1', '2', '3', '4', '5', '6'];
    assert.deepEqual(lineDiff([...same, 'x'], [...same, 'y']), ['  1', '  … 4 equal lines …', '  6', '+ y', '- x']);
  });
});
