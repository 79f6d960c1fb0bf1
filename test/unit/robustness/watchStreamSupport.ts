/**
 * Helpers of the watch decoder properties: generated watch streams, a fake HTTP response that
 * replays chunks, and the structural contract of how a client-go StreamWatcher ends.
 */
import { strict as assert } from 'node:assert';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import type { Status, WatchEvent, Watcher } from '../../../src/engine/listWatch';
import type { GetResponse } from '../../../src/kube/http';
import { awkwardString, jsonValue } from './support';

/** A response whose body replays the given chunks, as the HTTP layer would hand them over. */
export function responseOf(chunks: readonly Uint8Array[]): { res: GetResponse; closed: () => boolean } {
  let closed = false;
  const body = new Readable({ read() {} });
  for (const c of chunks) body.push(Buffer.from(c));
  body.push(null);
  const res: GetResponse = {
    status: 200,
    headers: {},
    body,
    close: () => {
      closed = true;
      body.destroy();
    },
    failure: () => undefined,
  };
  return { res, closed: () => closed };
}

export interface Drained {
  events: WatchEvent[];
  end: string | undefined;
}

/** Reads a watcher to its end; fails (instead of hanging) if it never ends. */
export async function drain(w: Watcher, maxEvents = 100_000): Promise<Drained> {
  const events: WatchEvent[] = [];
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    // Only a hang detector: generous, so a loaded machine reading late is not taken for a hang (mocha's 20 s still bounds it).
    const stuck = new Promise<'stuck'>((r) => (timer = setTimeout(() => r('stuck'), 15_000)));
    const e = await Promise.race([w.next(), stuck]);
    clearTimeout(timer);
    if (e === 'stuck') throw new Error(`watcher never ended after ${events.length} events`);
    if (e === null) break;
    events.push(e);
    if (events.length > maxEvents) throw new Error('watcher does not stop delivering');
  }
  // The channel stays closed.
  assert.equal(await w.next(), null);
  return { events, end: w.end?.kind };
}

export function isDecodeError(e: WatchEvent): boolean {
  const s = e.object as Status;
  return (
    e.type === 'ERROR' &&
    s.kind === 'Status' &&
    s.code === 500 &&
    s.reason === 'InternalError' &&
    (s.details?.causes ?? []).some((c) => c.type === 'ClientWatchDecoding') &&
    /^an error on the server \("unable to decode an event from the watch stream: .*"\) has prevented the request from succeeding$/s.test(s.message ?? '')
  );
}

/** The structural contract of a stream's ending, whatever its bytes. */
export function assertEndsLikeStreamWatcher(d: Drained): void {
  assert.ok(d.end === 'eof' || d.end === 'unexpected-eof', `end ${d.end}`);
  const decodeErrors = d.events.filter(isDecodeError);
  assert.ok(decodeErrors.length <= 1, `${decodeErrors.length} decode errors`);
  if (decodeErrors.length === 1) {
    assert.equal(d.events[d.events.length - 1], decodeErrors[0], 'nothing follows the decode error');
    assert.equal(d.end, 'eof', 'a decode error closes the stream like a clean end');
  }
}

const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'] as const;

/** A well-formed watch event: an object with kind and metadata, and arbitrary JSON content. */
export const watchEvent: fc.Arbitrary<WatchEvent> = fc.oneof(
  fc.record({
    type: fc.constantFrom(...EVENT_TYPES),
    object: fc.record({
      apiVersion: fc.constant('v1'),
      kind: fc.constantFrom('ConfigMap', 'Pod', 'Widget'),
      metadata: fc.record({ name: awkwardString, namespace: awkwardString, resourceVersion: fc.nat().map(String) }),
      data: jsonValue,
    }),
  }),
  // A server ERROR carrying a Status (no causes: statusFromWire leaves it as it is).
  fc.record({
    type: fc.constant('ERROR'),
    object: fc.record({ kind: fc.constant('Status'), apiVersion: fc.constant('v1'), status: fc.constant('Failure'), code: fc.constantFrom(410, 500, 504), message: awkwardString }),
  }),
);

const separator = fc.constantFrom('\n', '\r\n', '', ' ', '\t\n', '\n\n');

/** NDJSON (or whitespace-separated JSON) text of the events, as apiserver-like bytes. */
export const streamText = fc
  .array(fc.tuple(watchEvent, separator), { maxLength: 12 })
  .map((pairs) => ({ events: pairs.map(([e]) => e), text: pairs.map(([e, sep]) => JSON.stringify(e) + sep).join('') }));

/** Splits bytes at arbitrary positions (also inside multi-byte UTF-8 characters). */
export function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    if (c > prev) out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}
