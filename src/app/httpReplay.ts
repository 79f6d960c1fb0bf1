/**
 * A scenario replay through the engine's real HTTP path: the informer talks to HttpListerWatcher
 * (and its REST request layer, src/kube/restRequest.ts), whose GETs go over in-memory connections
 * to the scripted HTTP/1.1 responder (src/sources/scriptedHttp.ts) on the replay's FakeClock. The
 * conformance judge runs the engine side this way (so the HTTP client, status decoding, retries,
 * stream decoder, gzip and cut bodies are judged against client-go's real REST client), and so do
 * the extension's and CLI's scenario replays (the REST client's retries show on their timeline).
 */
import type { ClientRequestArgs } from 'node:http';
import type { ListerWatcher } from '../engine/listWatch';
import { bodyWorkPending, type HttpTarget } from '../kube/http';
import { HttpListerWatcher } from '../kube/listerWatcher';
import type { ReplayTransport } from '../sources/replay';
import { ScriptedHttpResponder } from '../sources/scriptedHttp';

export const httpTransport: ReplayTransport = (ctx) => {
  const responder = new ScriptedHttpResponder(ctx.scripted, ctx.scenario, ctx.clock, ctx.runSignal);
  // zlib decompresses on the thread pool: time moves on only once a body's bytes are decoded
  // (the responder writes a whole body at once, so nothing of it waits on virtual time).
  ctx.clock.holdWhile(() => bodyWorkPending() > 0);
  const target: HttpTarget = {
    server: 'http://127.0.0.1:6443',
    requestOptions: async (headers) => ({ headers, createConnection: responder.createConnection as unknown as ClientRequestArgs['createConnection'] }),
  };
  const r = ctx.scenario.resource;
  const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/', 2) : ['', r.apiVersion];
  const http = new HttpListerWatcher(
    target,
    { group, version, resource: r.resource ?? `${r.kind.toLowerCase()}s`, namespaced: false },
    {
      clock: ctx.clock,
      restClient: ctx.profile,
      onRetry: (x) => ctx.sink.emit({ t: ctx.clock.now(), type: 'rest.retry', ...x }),
    },
  );
  // client-go's tweakListOptions sets the selectors on every call (and marks the call's start).
  const { labelSelector, fieldSelector } = ctx.scenario.informer;
  const selectors = { ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) };
  const lw: ListerWatcher = {
    url: http.url,
    list(options, signal) {
      responder.beginCall();
      return http.list({ ...options, ...selectors }, signal);
    },
    watch(options, signal) {
      responder.beginCall();
      return http.watch({ ...options, ...selectors }, signal);
    },
  };
  return lw;
};

