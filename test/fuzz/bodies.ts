/**
 * Fuzz targets of the HTTP bodies the API server answers with: LIST bodies (decodeList) and error
 * bodies (statusErrorFrom), and ERROR watch objects (errorFromWatchObject), each followed by every
 * classifier the reflector asks about the error. Reference for valid lists: JSON.parse, then the
 * unstructured list decoder's rule (items without kind and apiVersion get the list's).
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  classifyListFailure,
  classifyWatchListError,
  classifyWatchOpenError,
  classifyWatchStreamError,
  errorFromWatchObject,
  isTooLargeResourceVersion,
  reasonOf,
  statusOf,
} from '../../src/engine/errors';
import { StatusError, TransportError, type Status } from '../../src/engine/listWatch';
import type { KubeObject } from '../../src/engine/objects';
import { PROFILES } from '../../src/engine/profiles';
import { statusErrorFrom } from '../../src/kube/http';
import { decodeList } from '../../src/kube/listerWatcher';
import { listCollector } from '../../src/kube/listStream';
import { lazyStateOf } from '../../src/engine/lazyObject';
import { awkwardString, jsonValue } from '../unit/robustness/support';
import { assertClearError, type FuzzTarget } from './target';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const meta = fc.record(
  { name: awkwardString, namespace: awkwardString, resourceVersion: fc.nat().map(String), uid: fc.uuid(), labels: fc.dictionary(awkwardString, awkwardString, { maxKeys: 3, noNullPrototype: true }) },
  { requiredKeys: ['name'] },
);
const item = fc.record({ apiVersion: fc.constantFrom('v1', 'apps/v1'), kind: fc.constantFrom('ConfigMap', 'Deployment'), metadata: meta, data: jsonValue }, { requiredKeys: ['metadata'] });
const validList = fc.record({
  apiVersion: fc.constantFrom('v1', 'apps/v1'),
  kind: fc.constantFrom('ConfigMapList', 'DeploymentList', 'List'),
  metadata: fc.record({ resourceVersion: fc.nat().map(String), continue: awkwardString }, { requiredKeys: [] }),
  items: fc.array(item, { maxLength: 8 }),
});

/** A body: a valid list, one with a part replaced, any JSON, or text. */
const listBody = fc.oneof(
  { weight: 4, arbitrary: validList.map((l) => ({ text: JSON.stringify(l), valid: l as unknown })) },
  {
    weight: 4,
    arbitrary: fc.tuple(validList, fc.constantFrom('items', 'metadata', 'kind', 'apiVersion', 'item'), fc.oneof(jsonValue, fc.constantFrom(null, 1, 'x', [1], [null], [[]], {}))).map(([l, field, v]) => {
      const doc = structuredClone(l) as Record<string, unknown>;
      if (field === 'item') (doc.items as unknown[]).push(v);
      else doc[field] = v;
      return { text: JSON.stringify(doc), valid: undefined };
    }),
  },
  { weight: 2, arbitrary: jsonValue.map((v) => ({ text: JSON.stringify(v) ?? 'null', valid: undefined })) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('', '<html>\n<body>502 Bad Gateway</body>\n</html>', '{"items":[', 'null')).map((t) => ({ text: t, valid: undefined })) },
);

/** The reference: a list whose items are objects decodes to them, kind/apiVersion filled in as the unstructured decoder does. */
function referenceList(l: Record<string, unknown>): { items: unknown[]; metadata: unknown } {
  const kind = typeof l.kind === 'string' ? l.kind.replace(/List$/, '') : '';
  const items = (l.items as Record<string, unknown>[]).map((o) => (o.kind === undefined && o.apiVersion === undefined ? { apiVersion: l.apiVersion, kind, ...o } : o));
  return { items, metadata: l.metadata ?? {} };
}

export const listDecoding: FuzzTarget<{ text: string; valid: unknown }> = {
  name: 'list-body',
  about: 'LIST response bodies (valid lists, lists with a part replaced by anything, any JSON, text): valid ones equal JSON.parse with kind/apiVersion filled in; otherwise a list whose items are all objects, or one clear TransportError/StatusError line',
  weight: 10,
  arbitrary: () => listBody,
  check({ text, valid }) {
    let got;
    try {
      got = decodeList(Buffer.from(text, 'utf8'));
    } catch (e) {
      assert.equal(valid, undefined, `a valid list was refused: ${(e as Error).message}`);
      assertClearError(e, [TransportError, StatusError]);
      return;
    }
    for (const o of got.items) assert.ok(isPlainObject(o), `an item that is not an object: ${JSON.stringify(o)}`);
    if (valid !== undefined) {
      const want = referenceList(JSON.parse(text) as Record<string, unknown>);
      assert.deepEqual(got.items, want.items);
      assert.deepEqual(got.metadata, want.metadata);
    }
  },
};

/** A decode's outcome as text: the list (and which items are lazy) or the error's class and message. */
function decodeOutcome(decode: () => { items: object[] }): string {
  try {
    const l = decode();
    return JSON.stringify({ l, lazy: l.items.map((o) => lazyStateOf(o) !== undefined) });
  } catch (e) {
    return `${(e as Error).constructor.name} ${(e as { kind?: string }).kind ?? ''}: ${(e as Error).message}`;
  }
}

export const listStreaming: FuzzTarget<{ text: string; cuts: number[] }> = {
  name: 'list-stream',
  about: 'LIST response bodies (as list-body) fed to the streaming decoder (listStream.ts) in pieces cut at random byte offsets (inside characters too): the same list or error as decodeList on the whole bytes',
  weight: 6,
  arbitrary: () => fc.record({ text: listBody.map((b) => b.text), cuts: fc.array(fc.nat(), { maxLength: 6 }) }),
  check({ text, cuts }) {
    const bytes = Buffer.from(text, 'utf8');
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const c = listCollector();
    let from = 0;
    for (const to of [...at, bytes.length]) {
      c.add(bytes.subarray(from, to));
      from = to;
    }
    const r = c.done();
    assert.equal(decodeOutcome(() => r.decode()), decodeOutcome(() => decodeList(bytes)));
  },
};

const statusLike = fc.record(
  {
    kind: fc.constantFrom<unknown>('Status', 'Status', 'Other', 5, null),
    apiVersion: fc.constantFrom<unknown>('v1', 'meta.k8s.io/v1', 'v2', 3),
    status: fc.constantFrom<unknown>('Failure', 'Failure', 'Success', 1, null),
    code: fc.oneof(fc.constantFrom<unknown>(400, 403, 404, 409, 410, 429, 500, 503, 504), jsonValue),
    reason: fc.oneof(fc.constantFrom<unknown>('Expired', 'Gone', 'TooManyRequests', 'InternalError', 'Timeout', 'Forbidden'), jsonValue),
    message: fc.oneof(awkwardString, jsonValue, fc.constant('Too large resource version')),
    details: fc.oneof(
      fc.record(
        {
          causes: fc.oneof(fc.array(fc.oneof(fc.record({ reason: fc.constantFrom<unknown>('ResourceVersionTooLarge', 'ClientWatchDecoding', 'x', 5), message: fc.oneof(awkwardString, jsonValue), field: awkwardString }, { requiredKeys: [] }), jsonValue), { maxLength: 3 }), jsonValue),
          retryAfterSeconds: fc.oneof(fc.nat(), jsonValue),
          name: fc.oneof(awkwardString, jsonValue),
        },
        { requiredKeys: [] },
      ),
      jsonValue,
    ),
  },
  { requiredKeys: [] },
);

const headers = fc.record(
  { 'content-type': fc.constantFrom('application/json', 'text/plain', 'text/html; charset=utf-8', 'application/vnd.kubernetes.protobuf', ''), 'retry-after': fc.constantFrom('1', '0', '-1', 'soon', '99999999999999999999', ' 3 ', '') },
  { requiredKeys: [] },
);

/** Asks every question the reflector asks about a failure; none may throw. */
function classifyEverywhere(err: unknown): void {
  for (const profile of PROFILES) {
    classifyListFailure(err, 'request');
    classifyWatchOpenError(err, profile);
    classifyWatchStreamError(err, 'stream', profile, () => false);
    classifyWatchListError(err, 'open', profile);
    classifyWatchListError(err, 'stream', profile);
  }
  reasonOf(err);
  isTooLargeResourceVersion(err);
}

export const statusBodies: FuzzTarget<{ code: number; headers: Record<string, string>; body: string; gr: boolean }> = {
  name: 'status-body',
  about: 'error responses (any code, content type and Retry-After; bodies that are Status objects with any field of any type, any JSON, text, bytes): always a StatusError carrying the code, and every relist classifier answers without an exception',
  weight: 10,
  arbitrary: () =>
    fc.record({
      code: fc.oneof(fc.constantFrom(400, 401, 403, 404, 405, 406, 409, 410, 415, 422, 429, 500, 502, 503, 504), fc.integer({ min: 100, max: 999 })),
      headers,
      body: fc.oneof(statusLike.map((s) => JSON.stringify(s)), jsonValue.map((v) => JSON.stringify(v) ?? ''), fc.string({ maxLength: 60 }), fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1'))),
      gr: fc.boolean(),
    }),
  check({ code, headers: h, body, gr }) {
    const err = statusErrorFrom(code, h, Buffer.from(body, 'latin1'), gr ? { group: 'apps', resource: 'deployments' } : undefined);
    assert.ok(err instanceof StatusError);
    assert.equal(typeof err.message, 'string');
    const s = statusOf(err)!;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'latin1').toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const isStatus = isPlainObject(parsed) && parsed.kind === 'Status' && parsed.status === 'Failure' && /json/i.test(h['content-type'] || 'application/json');
    // A body that is not a failed Status gives client-go's generic error for the HTTP code.
    if (!isStatus) assert.equal(s.code, code);
    classifyEverywhere(err);
  },
};

export const watchErrorObjects: FuzzTarget<{ obj: unknown }> = {
  name: 'watch-error-object',
  about: 'the object of an ERROR watch event (Status-like with any field of any type, or any JSON): apierrors.FromObject gives a StatusError or an UnexpectedObjectError, and every classifier answers without an exception',
  weight: 6,
  arbitrary: () => fc.record({ obj: fc.oneof(statusLike, jsonValue) }),
  check({ obj }) {
    const err = errorFromWatchObject(obj as KubeObject);
    assert.ok(err instanceof Error);
    assert.equal(typeof err.message, 'string');
    if (err instanceof StatusError) assert.equal((err.status as Status & { kind?: unknown }).kind, 'Status');
    classifyEverywhere(err);
  },
};

export const BODY_TARGETS = [listDecoding, listStreaming, statusBodies, watchErrorObjects];
