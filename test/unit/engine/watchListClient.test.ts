/**
 * v0.32's client-side watch-list (src/engine/watchListClient.ts): which LISTs become a watch-list,
 * what the collected list is, and that every failure falls back to the LIST — over a fake
 * ListerWatcher and over the live HttpListerWatcher against a loopback server.
 */
import { strict as assert } from 'node:assert';
import type * as http from 'node:http';
import { StatusError, type ListerWatcher, type ListOptions, type ObjectList, type WatchEvent, type Watcher, type WatchOptions } from '../../../src/engine/listWatch';
import { INITIAL_EVENTS_END_ANNOTATION, LIST_BLUEPRINT_ANNOTATION, WatchListClient, watchListOptionsFor } from '../../../src/engine/watchListClient';
import { loopbackListerWatcher, startLoopback, type Loopback } from '../kube/loopback';

const BLUEPRINT = Buffer.from(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {} })).toString('base64');
const cm = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, resourceVersion: rv } });
const endBookmark = (rv: string, blueprint: string | null = BLUEPRINT): WatchEvent => ({
  type: 'BOOKMARK',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true', ...(blueprint !== null ? { [LIST_BLUEPRINT_ANNOTATION]: blueprint } : {}) } } },
});
const PLAIN_LIST: ObjectList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '99' }, items: [cm('plain', '1')] };

/** A ListerWatcher whose watch serves `events` and whose list returns PLAIN_LIST; it records every call. */
function fake(events: WatchEvent[] | Error): ListerWatcher & { calls: Array<{ verb: string; options: ListOptions | WatchOptions }>; stopped: number } {
  const f = {
    url: 'https://127.0.0.1:6443/api/v1/configmaps',
    calls: [] as Array<{ verb: string; options: ListOptions | WatchOptions }>,
    stopped: 0,
    async list(options: ListOptions) {
      f.calls.push({ verb: 'list', options });
      return structuredClone(PLAIN_LIST);
    },
    async watch(options: WatchOptions): Promise<Watcher> {
      f.calls.push({ verb: 'watch', options });
      if (events instanceof Error) throw events;
      const queue = [...events];
      return { next: async () => queue.shift() ?? null, stop: () => void f.stopped++ };
    },
  };
  return f;
}

const signal = () => new AbortController().signal;

describe('engine/watchListClient: which LISTs become a watch-list (PrepareWatchListOptionsFromListOptions)', () => {
  it('RV "0" with a limit: the limit is dropped; NotOlderThan, bookmarks, sendInitialEvents, no timeoutSeconds', () => {
    assert.deepEqual(watchListOptionsFor({ resourceVersion: '0', limit: 500, labelSelector: 'a=b' }), {
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
      sendInitialEvents: true,
      labelSelector: 'a=b',
    });
  });

  it('a specific RV or "" without a limit qualifies; with a limit it does not', () => {
    assert.equal(watchListOptionsFor({ resourceVersion: '12' })?.resourceVersion, '12');
    assert.equal(watchListOptionsFor({ resourceVersion: '' })?.resourceVersion, '');
    assert.equal(watchListOptionsFor({ resourceVersion: '12', limit: 500 }), undefined);
    assert.equal(watchListOptionsFor({ resourceVersion: '', limit: 500 }), undefined);
  });

  it('Exact, a continue token, or options the LIST validation refuses stay a LIST', () => {
    assert.equal(watchListOptionsFor({ resourceVersion: '12', resourceVersionMatch: 'Exact' }), undefined);
    assert.equal(watchListOptionsFor({ resourceVersion: '0', continue: 'c1' }), undefined);
    assert.equal(watchListOptionsFor({ resourceVersion: '', resourceVersionMatch: 'NotOlderThan' }), undefined);
    assert.equal(watchListOptionsFor({ resourceVersion: '0', resourceVersionMatch: 'Sometimes' }), undefined);
    assert.equal(watchListOptionsFor({ resourceVersion: '12', resourceVersionMatch: 'NotOlderThan' })?.resourceVersionMatch, 'NotOlderThan');
  });
});

describe('engine/watchListClient: list() over a fake ListerWatcher', () => {
  it('collects the ADDED objects up to the initial-events-end bookmark: blueprint kind, bookmark RV; the stream is stopped', async () => {
    const lw = fake([{ type: 'ADDED', object: cm('a', '5') }, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } }, { type: 'ADDED', object: cm('b', '6') }, endBookmark('12'), { type: 'ADDED', object: cm('c', '13') }]);
    const requests: string[] = [];
    const l = await new WatchListClient(lw, { onRequest: (verb) => requests.push(verb) }).list({ resourceVersion: '0', limit: 500 }, signal());
    assert.deepEqual(l, { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '12' }, items: [cm('a', '5'), cm('b', '6')] });
    assert.deepEqual(lw.calls.map((c) => c.verb), ['watch']);
    assert.deepEqual(requests, ['watch']);
    assert.equal(lw.stopped, 1);
  });

  const fallbacks: Array<[string, WatchEvent[] | Error, RegExp]> = [
    ['an ERROR event', [{ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', code: 500, reason: 'InternalError', message: 'etcd is sad' } }], /etcd is sad/],
    ['a close before the bookmark', [{ type: 'ADDED', object: cm('a', '5') }], /unexpected watch close/],
    ['a MODIFIED event', [{ type: 'MODIFIED', object: cm('a', '5') }, endBookmark('12')], /unexpected watch event/],
    ['keys out of order', [{ type: 'ADDED', object: cm('b', '5') }, { type: 'ADDED', object: cm('a', '6') }, endBookmark('12')], /ordering guarantees/],
    ['a bookmark without the blueprint', [endBookmark('12', null)], /initial-events-list-blueprint" annotation is missing content/],
    ['a blueprint that is not base64', [endBookmark('12', '%%')], /illegal base64/],
    ['a blueprint without a kind', [endBookmark('12', Buffer.from('{"metadata":{}}').toString('base64'))], /Kind' is missing/],
    ['a 410 on open', new StatusError({ code: 410, reason: 'Expired', message: 'too old' }), /too old/],
  ];
  for (const [what, events, why] of fallbacks) {
    it(`falls back to the LIST as asked after ${what}`, async () => {
      const lw = fake(events);
      const seen: unknown[] = [];
      const options = { resourceVersion: '0', limit: 500 };
      const l = await new WatchListClient(lw, { onFallback: (e) => seen.push(e) }).list(options, signal());
      assert.deepEqual(l, PLAIN_LIST);
      assert.deepEqual(lw.calls.map((c) => c.verb), ['watch', 'list']);
      assert.deepEqual(lw.calls[1].options, options);
      assert.equal(seen.length, 1);
      assert.match((seen[0] as Error).message, why);
    });
  }

  it('a LIST that does not qualify goes out as is, with no WATCH', async () => {
    const lw = fake([endBookmark('12')]);
    await new WatchListClient(lw).list({ resourceVersion: '', limit: 500 }, signal());
    assert.deepEqual(lw.calls.map((c) => c.verb), ['list']);
  });

  it('an abort during the stream rejects and sends no LIST', async () => {
    const ac = new AbortController();
    const lw: ListerWatcher = {
      url: 'u',
      list: async () => assert.fail('no LIST after an abort'),
      watch: async () => ({ next: async () => (ac.abort(), null), stop: () => undefined }),
    };
    await assert.rejects(new WatchListClient(lw).list({ resourceVersion: '0' }, ac.signal), (e: Error) => e.name === 'AbortError');
  });
});

describe('engine/watchListClient over the live HttpListerWatcher (loopback)', () => {
  let loop: Loopback;
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  const urls: string[] = [];
  before(async () => {
    loop = await startLoopback((req, res) => {
      urls.push(req.url ?? '');
      handler(req, res);
    });
  });
  after(() => loop.close());
  beforeEach(() => (urls.length = 0));

  it('sends the WATCH client-go v0.32 sends and returns the streamed list', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a', '5') }) + '\n');
      res.write(JSON.stringify(endBookmark('12')) + '\n');
      // The stream stays open: the client stops it once it has the bookmark.
    };
    const l = await new WatchListClient(loopbackListerWatcher(loop.port)).list({ resourceVersion: '0', limit: 500 }, signal());
    assert.equal(l.metadata.resourceVersion, '12');
    assert.deepEqual(l.items.map((o) => o.metadata?.name), ['a']);
    assert.deepEqual(urls, ['/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=0&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true']);
  });

  it('after a 403 on the WATCH, sends the LIST with the original query', async () => {
    handler = (req, res) => {
      res.writeHead(req.url?.includes('watch=true') ? 403 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url?.includes('watch=true') ? { kind: 'Status', apiVersion: 'v1', code: 403, reason: 'Forbidden', message: 'no' } : PLAIN_LIST));
    };
    const l = await new WatchListClient(loopbackListerWatcher(loop.port)).list({ resourceVersion: '0', limit: 500 }, signal());
    assert.equal(l.metadata.resourceVersion, '99');
    assert.equal(urls.length, 2);
    assert.equal(urls[1], '/api/v1/configmaps?limit=500&resourceVersion=0');
  });
});
