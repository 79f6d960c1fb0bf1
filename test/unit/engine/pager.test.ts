import { strict as assert } from 'node:assert';
import { StatusError, type ListOptions, type ObjectList } from '../../../src/engine/listWatch';
import { listPaged } from '../../../src/engine/pager';

type Answer = ObjectList | Error;

function fetcher(answers: Answer[]) {
  const calls: ListOptions[] = [];
  const fetch = async (o: ListOptions): Promise<ObjectList> => {
    calls.push(o);
    const a = answers.shift();
    if (!a) throw new Error('unexpected call');
    if (a instanceof Error) throw a;
    return a;
  };
  return { calls, fetch };
}

const page = (rv: string, names: string[], cont?: string): ObjectList => ({
  metadata: { resourceVersion: rv, ...(cont ? { continue: cont } : {}) },
  items: names.map((n) => ({ metadata: { name: n } })),
});

const signal = new AbortController().signal;
const expiredContinue = new StatusError({ code: 410, reason: 'Expired', message: 'The provided continue parameter is too old' });

describe('pager (§1.5 pager rules)', () => {
  it('returns the first page unchanged when it has no continue token', async () => {
    const first = page('10', ['a']);
    const { calls, fetch } = fetcher([first]);
    const r = await listPaged(fetch, { resourceVersion: '0' }, 500, signal);
    assert.equal(r.list, first);
    assert.equal(r.paginated, false);
    assert.deepEqual(calls, [{ resourceVersion: '0', limit: 500 }]);
  });

  it('follows continue tokens, clears RV on later pages and keeps the first page RV', async () => {
    const { calls, fetch } = fetcher([page('10', ['a', 'b'], 't1'), page('11', ['c'], 't2'), page('12', ['d'])]);
    const r = await listPaged(fetch, { resourceVersion: '', resourceVersionMatch: 'NotOlderThan' }, 2, signal);
    assert.equal(r.paginated, true);
    assert.equal(r.list.metadata.resourceVersion, '10');
    assert.deepEqual(r.list.items.map((i) => i.metadata?.name), ['a', 'b', 'c', 'd']);
    assert.deepEqual(calls, [
      { resourceVersion: '', resourceVersionMatch: 'NotOlderThan', limit: 2 },
      { resourceVersion: '', limit: 2, continue: 't1' },
      { resourceVersion: '', limit: 2, continue: 't2' },
    ]);
  });

  it('page size 0 sends no limit', async () => {
    const { calls, fetch } = fetcher([page('10', [])]);
    await listPaged(fetch, { resourceVersion: '42' }, 0, signal);
    assert.deepEqual(calls, [{ resourceVersion: '42' }]);
  });

  it('an expired continue token (page ≥ 2) makes one full list at the original RV', async () => {
    const expired: string[] = [];
    const { calls, fetch } = fetcher([page('10', ['a'], 't1'), expiredContinue, page('15', ['a', 'b'])]);
    const r = await listPaged(fetch, { resourceVersion: '0' }, 1, signal, { hooks: { onExpiredContinue: () => expired.push('x') } });
    assert.deepEqual(calls.at(-1), { resourceVersion: '0' });
    assert.equal(r.list.metadata.resourceVersion, '15');
    assert.equal(r.paginated, true);
    assert.equal(expired.length, 1);
  });

  it('Expired on the first page, or Gone on a later page, is returned as is', async () => {
    const first = fetcher([expiredContinue]);
    await assert.rejects(listPaged(first.fetch, { resourceVersion: '5' }, 500, signal), /continue parameter is too old/);
    const gone = new StatusError({ code: 410, reason: 'Gone', message: 'gone' });
    const later = fetcher([page('10', ['a'], 't1'), gone]);
    await assert.rejects(listPaged(later.fetch, { resourceVersion: '0' }, 1, signal), /gone/);
    assert.equal(later.calls.length, 2);
  });

  it('stops between pages once the signal aborts', async () => {
    const ac = new AbortController();
    const { calls, fetch } = fetcher([page('10', ['a'], 't1'), page('11', ['b'])]);
    const wrapped = async (o: ListOptions) => {
      const r = await fetch(o);
      ac.abort();
      return r;
    };
    await assert.rejects(listPaged(wrapped, { resourceVersion: '0' }, 1, ac.signal));
    assert.equal(calls.length, 1);
  });
});
