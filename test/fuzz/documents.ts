/**
 * Fuzz targets of the documents a user hands the tool: kubeconfig files, scenario files, trace
 * files, and the host↔webview messages (the protocol guards decide what a receiver acts on).
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as timeline from '../../src/protocol/timeline';
import * as compareProtocol from '../../src/protocol/compare';
import { IpcMessageType } from '../../src/protocol/ipc';
import { packColumns } from '../../src/protocol/columnPack';
import { KubeConfigError, KubeConnection } from '../../src/kube/kubeconfig';
import { ScenarioValidationError, parseScenarioText } from '../../src/scenario/validate';
import { computeFindings } from '../../src/trace/findings';
import type { RecordedEvent } from '../../src/format/events';
import type { TraceHeader } from '../../src/format/trace';
import { TraceFileError, exportTrace, importTrace } from '../../src/trace/traceFile';
import { isCanonicalText, readTraceLines, type TraceLines } from '../../src/trace/traceLines';
import { readTraceColumns } from '../../src/app/traceRows';
import { readTraceColumnsInPartsHere } from '../../src/app/traceRowParts';
import { COLUMN_NAMES, encodeBatch } from '../../src/protocol/eventColumns';
import type { TraceEvent } from '../../src/format/events';
import { awkwardString, jsonValue, mutate, mutation } from '../unit/robustness/support';
import { SAMPLE_EVENTS, header } from '../unit/trace/fixtures';
import { assertClearError, isOneLine, type FuzzTarget } from './target';

/** Text derived from a valid document: itself, cut, with text spliced in, bytes replaced, or JSON-mutated. */
function textVariants(valid: fc.Arbitrary<string>): fc.Arbitrary<{ text: string; intact: boolean }> {
  return fc.oneof(
    { weight: 2, arbitrary: valid.map((text) => ({ text, intact: true })) },
    { weight: 2, arbitrary: fc.tuple(valid, fc.nat()).map(([t, at]) => ({ text: t.slice(0, at % (t.length + 1)), intact: false })) },
    { weight: 2, arbitrary: fc.tuple(valid, fc.nat(), fc.string({ maxLength: 8 })).map(([t, at, s]) => ({ text: t.slice(0, at % (t.length + 1)) + s + t.slice(at % (t.length + 1)), intact: false })) },
    {
      weight: 4,
      arbitrary: fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([t, muts]) => {
        const doc = JSON.parse(t) as unknown;
        for (const m of muts) mutate(doc, m);
        return { text: JSON.stringify(doc) ?? 'null', intact: false };
      }),
    },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 100 }), fc.string({ unit: 'binary', maxLength: 60 }), jsonValue.map((v) => JSON.stringify(v) ?? 'null')).map((text) => ({ text, intact: false })) },
  );
}

// ---- kubeconfig

const SECRETS = ['TOKEN-c2VjcmV0', 'PASSWORD-hunter2'];
const kubeconfigDoc = fc
  .record({
    server: fc.oneof(fc.constantFrom('https://127.0.0.1:6443', 'http://127.0.0.1:8080/', 'https://[::1]:6443', 'http://user:pw@127.0.0.1:1'), awkwardString),
    context: awkwardString,
    namespace: fc.option(awkwardString, { nil: undefined }),
  })
  .map(({ server, context, namespace }) => ({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user: { token: SECRETS[0] } }, { name: 'p', user: { username: 'me', password: SECRETS[1] } }],
    contexts: [{ name: context || 'x', context: { cluster: 'c', user: 'u', ...(namespace !== undefined ? { namespace } : {}) } }],
    'current-context': context || 'x',
  }));

/** Block YAML of a document (scalars written as JSON strings, which YAML reads as they are). */
function toYaml(v: unknown, indent = ''): string {
  if (Array.isArray(v)) return v.map((x) => `${indent}- ${toYaml(x, `${indent}  `).trimStart()}`).join('\n');
  if (v !== null && typeof v === 'object') {
    return Object.entries(v)
      .map(([k, x]) => (x !== null && typeof x === 'object' ? `${indent}${JSON.stringify(k)}:\n${toYaml(x, `${indent}  `)}` : `${indent}${JSON.stringify(k)}: ${JSON.stringify(x)}`))
      .join('\n');
  }
  return `${indent}${JSON.stringify(v)}`;
}

type KubeconfigInput = { text: string; want?: { context: string; server: string } };

export const kubeconfigs: FuzzTarget<KubeconfigInput> = {
  name: 'kubeconfig',
  about: 'kubeconfig text (valid as JSON or block YAML, cut, spliced, fields dropped/renamed/retyped, garbage): a valid one gives the context and server written (or a clear refusal of a non-http(s) server); anything else a connection or one KubeConfigError line without a credential or stack',
  weight: 6,
  arbitrary: () =>
    fc.oneof(
      kubeconfigDoc.chain((doc) =>
        fc.boolean().map((yaml) => ({ text: yaml ? toYaml(doc) : JSON.stringify(doc), want: { context: doc['current-context'], server: doc.clusters[0].cluster.server } })),
      ),
      textVariants(kubeconfigDoc.map((d) => JSON.stringify(d))).map(({ text }) => ({ text })),
    ),
  check({ text, want }) {
    let conn: KubeConnection;
    try {
      conn = KubeConnection.load({ kubeconfigYaml: text });
      conn.contexts();
    } catch (e) {
      assertClearError(e, [KubeConfigError]);
      for (const s of SECRETS) assert.ok(!e.message.includes(s), `a credential in: ${e.message}`);
      if (want) assert.ok(!/^https?:\/\//.test(want.server), `a valid kubeconfig refused: ${e.message}`);
      return;
    }
    assert.match(conn.server, /^https?:\/\//);
    if (want) {
      assert.equal(conn.context.name, want.context);
      assert.equal(conn.server, want.server.replace(/\/+$/, ''));
    }
  },
};

// ---- scenarios

const SCENARIO_DIR = join(__dirname, '../conformance/scenarios');
const SCENARIOS = readdirSync(SCENARIO_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => readFileSync(join(SCENARIO_DIR, f), 'utf8'));

export const scenarios: FuzzTarget<{ text: string; intact: boolean }> = {
  name: 'scenario-file',
  about: 'scenario files (the 170 conformance scenarios: as they are, cut, spliced, fields dropped/renamed/retyped, or garbage): valid ones parse to the same document; otherwise a ScenarioValidationError whose problems are one line each, naming the file',
  weight: 4,
  arbitrary: () => textVariants(fc.constantFrom(...SCENARIOS)),
  check({ text, intact }) {
    try {
      const s = parseScenarioText(text, 'fuzz.json');
      if (intact) assert.equal((s as { name?: string }).name, (JSON.parse(text) as { name?: string }).name);
    } catch (e) {
      assert.ok(!intact, `a conformance scenario refused: ${(e as Error).message}`);
      // The message lists every problem, one per line; each problem is one clear line.
      assert.ok(e instanceof ScenarioValidationError, `not a ScenarioValidationError: ${(e as Error)?.stack ?? String(e)}`);
      assert.ok(e.problems.length > 0);
      for (const p of (e as ScenarioValidationError).problems) {
        assert.ok(isOneLine(p) && p.startsWith('scenario fuzz.json: '), JSON.stringify(p));
        assert.ok(p.length < 1000, `problem of ${p.length} characters`);
      }
    }
  },
};

// ---- traces

const SAMPLES = Object.values(SAMPLE_EVENTS) as TraceEvent[];
const validTrace = fc
  .record({
    picks: fc.array(fc.nat(SAMPLES.length - 1), { maxLength: 30 }),
    strings: fc.array(awkwardString, { minLength: 1, maxLength: 6 }),
    gaps: fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 5 }),
    redacted: fc.boolean(),
  })
  .map(({ picks, strings, gaps, redacted }) => {
    let t = 0;
    let seq = 0;
    const events = picks.map((p, i) => {
      const e = structuredClone(SAMPLES[p]) as unknown as Record<string, unknown>;
      for (const k of ['key', 'rv', 'text', 'msg', 'handler', 'detail']) if (typeof e[k] === 'string') e[k] = strings[(i + k.length) % strings.length];
      t += (gaps[i % gaps.length] % 7) / 2;
      e.t = t;
      seq += gaps[i % gaps.length];
      return { ...e, seq } as RecordedEvent;
    });
    return exportTrace({ header: header({ redacted }), events });
  });

/** Nesting deep enough to overflow a recursive walk, spliced into a valid trace's diff. */
const deepTrace = fc.tuple(fc.integer({ min: 900, max: 30_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
  const distribute = { ...SAMPLE_EVENTS.distribute, diff: [{ path: 'data.x', old: '@', new: 2 }] };
  const valid = JSON.stringify({ format: 'informer-trace/v1', header: header(), events: [{ ...distribute, seq: 0 }] });
  return valid.replace('"@"', open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth));
});

/**
 * The worker's readers (src/trace/traceLines.ts, and src/app/traceRows.ts beside it) on the file with this text: it never throws and
 * accepts only what importTrace accepts of the same bytes (a lone surrogate becomes U+FFFD in a
 * file), with the same values, and calls it canonical exactly when an export writes the same text.
 */
function checkLineReader(text: string, intact: boolean): void {
  const bytes = Buffer.from(text, 'utf8');
  const lines = readTraceLines(bytes);
  const asRead = bytes.toString('utf8');
  if (!lines) {
    checkColumnReader(bytes, undefined);
    if (intact && asRead === text && !text.includes('"events": []')) assert.fail('the line reader did not read an exported trace');
    return;
  }
  let trace: { header: TraceHeader; events: RecordedEvent[] };
  try {
    trace = importTrace(asRead);
  } catch (e) {
    assert.fail(`the line reader accepted a file importTrace refuses: ${(e as Error).message}`);
  }
  assert.deepEqual(lines.events, trace.events);
  assert.deepEqual(lines.header, trace.header);
  assert.equal(isCanonicalText(lines), exportTrace(trace) === asRead, 'canonical exactly when an export writes the same text');
  checkColumnReader(bytes, lines);
}

/**
 * The worker's column reader (src/app/traceRows.ts) on the same bytes: it reads exactly the files
 * the line reader reads, into the columns encodeBatch makes of their events, and its canonical
 * answer (lines it marked as written are not read again) is the line reader's.
 */
function checkColumnReader(bytes: Buffer, lines: TraceLines | undefined): void {
  const cols = readTraceColumns(bytes);
  assert.equal(cols === undefined, lines === undefined, cols ? 'the column reader read a file the line reader declines' : 'the column reader declined a file the line reader reads');
  // Decoded in two parts and joined (a large file's helper thread, traceRowParts.ts): the same answer.
  const parts = readTraceColumnsInPartsHere(bytes, 0.4);
  assert.equal(parts === undefined, cols === undefined, parts ? 'read in two parts, declined in one' : 'declined in two parts, read in one');
  if (!cols || !lines) return;
  const want = encodeBatch(lines.events);
  for (const c of COLUMN_NAMES) assert.ok(Buffer.from(cols.batch.columns[c]).equals(Buffer.from(want.columns[c])), `column ${c}`);
  assert.deepEqual(cols.batch.strings, want.strings);
  assert.deepEqual(cols.batch.extras, want.extras);
  assert.equal(isCanonicalText(cols), isCanonicalText(lines), 'the same canonical answer');
  for (const c of COLUMN_NAMES) assert.ok(Buffer.from(parts!.batch.columns[c]).equals(Buffer.from(cols.batch.columns[c])), `in two parts: column ${c}`);
  assert.deepEqual(parts!.batch.strings, cols.batch.strings, 'in two parts: strings');
  assert.deepEqual(parts!.batch.extras, cols.batch.extras, 'in two parts: whole events');
  assert.deepEqual([...parts!.asWritten], [...cols.asWritten], 'in two parts: lines as written');
}

export const traces: FuzzTarget<{ text: string; intact: boolean }> = {
  name: 'trace-file',
  about: 'trace files (valid exports, cut, spliced, fields dropped/renamed/retyped, nested 900–30,000 deep, garbage): exports round-trip byte for byte; whatever is accepted exports and summarises; otherwise one TraceFileError line; the line reader agrees (same values, canonical exactly when the export is the same text)',
  weight: 6,
  arbitrary: () => fc.oneof({ weight: 30, arbitrary: textVariants(validTrace) }, { weight: 1, arbitrary: deepTrace.map((text) => ({ text, intact: false })) }),
  check({ text, intact }) {
    checkLineReader(text, intact);
    let trace: { header: TraceHeader; events: RecordedEvent[] };
    try {
      trace = importTrace(text);
    } catch (e) {
      assert.ok(!intact, `an exported trace refused: ${(e as Error).message}`);
      assertClearError(e, [TraceFileError], 1000);
      return;
    }
    const again = exportTrace(trace);
    if (intact) assert.equal(again, text);
    assert.equal(importTrace(again).events.length, trace.events.length);
    computeFindings(trace.header, trace.events);
  },
};

// ---- host ↔ webview protocol

const GUARDS: IpcMessageType<string, unknown>[] = ([...Object.values(timeline), ...Object.values(compareProtocol)] as unknown[]).filter((v): v is IpcMessageType<string, unknown> => v instanceof IpcMessageType);
const sessionInfo = fc.record({ id: awkwardString, title: awkwardString, live: fc.boolean(), simulated: fc.boolean() });
const wireEvent = fc.nat(SAMPLES.length - 1).chain((i) => fc.record({ t: fc.double({ noNaN: true, noDefaultInfinity: true }), seq: fc.nat() }).map((x) => ({ ...structuredClone(SAMPLES[i]), ...x })));
const wireFinding = fc.record({ id: awkwardString, severity: fc.constantFrom('info', 'warning', 'error'), title: awkwardString, detail: awkwardString, advice: awkwardString, evidence: fc.array(fc.nat(), { maxLength: 4 }) });
const wireHeader = fc.constant(header() as unknown);
const wireFindingsState = fc.oneof(fc.constant({ state: 'ready' }), fc.constant({ state: 'computing' }), fc.record({ state: fc.constant('failed'), reason: awkwardString }));

/** A valid params value for each message type. */
const VALID_PARAMS: Record<string, fc.Arbitrary<unknown>> = {
  'timeline/ready': fc.constant({}),
  'timeline/snapshotSent': fc.record({ snapshotId: fc.nat() }),
  'timeline/selectSession': fc.record({ sessionId: awkwardString }),
  'timeline/openLink': fc.record({ url: awkwardString }),
  'timeline/exportTrace': fc.record({ sessionId: awkwardString }),
  'timeline/exportTrace/completion': fc.record({ ok: fc.boolean(), message: awkwardString }),
  'timeline/eventDiff': fc.record({ sessionId: awkwardString, seq: fc.nat() }),
  'timeline/eventDiff/completion': fc.record({ diff: fc.option(fc.array(fc.record({ path: awkwardString, old: jsonValue, new: jsonValue }, { requiredKeys: ['path'] }), { maxLength: 3 }), { nil: undefined }) }, { requiredKeys: [] }),
  'timeline/snapshot': fc.record({ session: sessionInfo, header: wireHeader, events: fc.array(wireEvent, { maxLength: 5 }), columns: fc.option(fc.array(wireEvent, { maxLength: 5 }).map((evs) => encodeBatch(evs as never)), { nil: undefined }), findings: fc.array(wireFinding, { maxLength: 2 }), findingsState: fc.option(wireFindingsState, { nil: undefined }), sessions: fc.array(sessionInfo, { maxLength: 2 }), nowT: fc.option(fc.nat(), { nil: undefined }), snapshotId: fc.option(fc.nat(), { nil: undefined }), parts: fc.option(fc.record({ id: fc.nat(), blocks: fc.nat(), count: fc.nat() }), { nil: undefined }) }, { requiredKeys: ['session', 'header', 'events', 'findings', 'sessions'] }),
  'timeline/snapshotPart': fc.record({ partsId: fc.nat(), index: fc.nat(), from: fc.nat(), total: fc.nat(), stringsFrom: fc.nat(), columns: fc.array(wireEvent, { maxLength: 5 }).map((evs) => packColumns(encodeBatch(evs as never))) }),
  'timeline/delta': fc.record({ sessionId: awkwardString, afterSeq: fc.nat(), events: fc.array(wireEvent, { maxLength: 5 }), findings: fc.option(fc.array(wireFinding, { maxLength: 2 }), { nil: undefined }), findingsState: fc.option(wireFindingsState, { nil: undefined }), live: fc.boolean(), nowT: fc.option(fc.nat(), { nil: undefined }) }, { requiredKeys: ['sessionId', 'afterSeq', 'events', 'live'] }),
  'timeline/sessions': fc.record({ sessions: fc.array(sessionInfo, { maxLength: 3 }), activeId: fc.option(awkwardString, { nil: undefined }) }, { requiredKeys: ['sessions'] }),
  'timeline/clock': fc.record({ sessionId: awkwardString, nowT: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  'timeline/empty': fc.record({ message: awkwardString }),
  'timeline/spillRange': fc.record({ sessionId: awkwardString, t0: fc.double({ noNaN: true }), t1: fc.double({ noNaN: true }) }),
  'timeline/spillRange/completion': fc.record(
    {
      columns: fc.option(fc.array(wireEvent, { maxLength: 5 }).map((evs) => encodeBatch(evs as never)), { nil: undefined }),
      t0: fc.double({ noNaN: true, noDefaultInfinity: true }),
      t1: fc.double({ noNaN: true, noDefaultInfinity: true }),
      complete: fc.boolean(),
      message: fc.option(awkwardString, { nil: undefined }),
    },
    { requiredKeys: ['t0', 't1', 'complete'] },
  ),
  'compare/list': fc
    .array(
      fc.record(
        { title: awkwardString, profile: awkwardString, source: fc.constantFrom('cluster', 'sandbox', 'scenario', 'import'), resource: awkwardString, startedAt: awkwardString, file: fc.option(awkwardString, { nil: undefined }) },
        { requiredKeys: ['title', 'profile', 'source', 'resource', 'startedAt'] },
      ),
      { minLength: 1, maxLength: 4 },
    )
    .chain((compared) => fc.record({ compared: fc.constant(compared), gone: fc.subarray([...compared.keys()]) })),
};
const MESSAGE_TYPES = [...GUARDS, ...GUARDS.flatMap((g) => ('completion' in g ? [(g as unknown as { completion: IpcMessageType<string, unknown> }).completion] : []))];

/** Replaces one required value somewhere in the params by a value of another JSON type. */
function breakRequired(params: Record<string, unknown>, pick: number, bad: unknown): { broken: boolean } {
  const keys = Object.keys(params).filter((k) => params[k] !== undefined);
  if (keys.length === 0) return { broken: false };
  const k = keys[pick % keys.length];
  const old = params[k];
  const sameType = (a: unknown, b: unknown) => (Array.isArray(a) ? Array.isArray(b) : a === null ? b === null : typeof a === typeof b && !Array.isArray(b) && b !== null);
  if (sameType(old, bad) || bad === undefined) return { broken: false };
  params[k] = bad;
  return { broken: true };
}

export const protocol: FuzzTarget<{ type: number; params: unknown; mode: 'valid' | 'broken' | 'any'; pick: number; bad: unknown; extra: unknown }> = {
  name: 'protocol-guards',
  about: 'host↔webview messages (valid ones of every type, the same with one field retyped, or any JSON) through every guard: valid ones pass exactly their own guard; a retyped field is refused; nothing throws; UI state likewise',
  weight: 10,
  arbitrary: () =>
    fc.nat(MESSAGE_TYPES.length - 1).chain((type) =>
      fc.record({
        type: fc.constant(type),
        params: VALID_PARAMS[MESSAGE_TYPES[type].method] ?? fc.constant({}),
        mode: fc.constantFrom('valid' as const, 'broken' as const, 'any' as const),
        pick: fc.nat(),
        bad: fc.oneof(jsonValue, fc.constantFrom(null, 1, 'x', true, [], {}, Number.NaN, Infinity)),
        extra: jsonValue,
      }),
    ),
  check({ type, params, mode, pick, bad, extra }) {
    const own = MESSAGE_TYPES[type];
    let msg: unknown;
    let broken = false;
    if (mode === 'any') msg = extra;
    else {
      const p = structuredClone(params) as Record<string, unknown>;
      if (mode === 'broken') broken = breakRequired(p, pick, bad).broken;
      msg = { kind: own.kind, method: own.method, params: p };
    }
    for (const g of MESSAGE_TYPES) {
      const ok = g.is(msg);
      assert.equal(typeof ok, 'boolean');
      if (g !== own && mode !== 'any') assert.equal(ok, false, `${g.method} accepted a ${own.method} message`);
    }
    if (mode === 'valid') assert.equal(own.is(msg), true, `${own.method} refused a valid message: ${JSON.stringify(msg)}`);
    // ready's params must be empty: any field added breaks it the same way.
    if (broken) assert.equal(own.is(msg), false, `${own.method} accepted a retyped field: ${JSON.stringify(msg)}`);
    assert.equal(typeof timeline.isTimelineUiState(mode === 'any' ? extra : { follow: true, window: [0, pick], sessionId: 'x', selectedSeq: bad }), 'boolean');
  },
};

export const DOCUMENT_TARGETS = [kubeconfigs, scenarios, traces, protocol];
