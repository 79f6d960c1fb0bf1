/**
 * The trace file, informer-trace/v1 (contracts §4, docs/trace-format.md):
 *
 *   { "format": "informer-trace/v1", "header": TraceHeader, "events": RecordedEvent[] }
 *
 * Export writes a canonical text: fixed key order (header keys as documented; events start with
 * seq, t, type, the rest sorted; nested objects sorted), the header pretty-printed, one event per
 * line. Import accepts only what the JSON Schema accepts and keeps every value, so
 * exportTrace(importTrace(text)) === text for any text exportTrace produced.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import schema from './schema/informer-trace-v1.schema.json';
import { TRACE_FORMAT, type TraceRecorder } from './recorder';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { redactEvent } from './redact';

export class TraceFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceFileError';
  }
}

export interface TraceData {
  header: TraceHeader;
  events: readonly RecordedEvent[];
}

const HEADER_KEY_ORDER = [
  'format', 'tool', 'profile', 'gates', 'resource', 'namespace', 'labelSelector', 'fieldSelector',
  'context', 'source', 'startedAt', 'cap', 'dropped', 'redacted',
];
const NESTED_KEY_ORDER: Record<string, string[]> = {
  tool: ['name', 'version'],
  resource: ['group', 'version', 'resource', 'kind', 'namespaced'],
};
const EVENT_KEY_ORDER = ['seq', 't', 'type'];

/** Keys in `first` order, then the others sorted; undefined values are left out (as JSON does). */
function ordered(obj: Record<string, unknown>, first: readonly string[], nested: (k: string, v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rest = Object.keys(obj).filter((k) => !first.includes(k)).sort();
  for (const k of [...first, ...rest]) {
    if (obj[k] !== undefined) out[k] = nested(k, obj[k]);
  }
  return out;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') return ordered(v as Record<string, unknown>, [], (_k, x) => canonical(x));
  return v;
}

export function canonicalHeader(h: TraceHeader): Record<string, unknown> {
  return ordered(h as unknown as Record<string, unknown>, HEADER_KEY_ORDER, (k, v) =>
    NESTED_KEY_ORDER[k] && v !== null && typeof v === 'object' && !Array.isArray(v)
      ? ordered(v as Record<string, unknown>, NESTED_KEY_ORDER[k], (_k, x) => canonical(x))
      : canonical(v),
  );
}

export function canonicalEvent(e: RecordedEvent): Record<string, unknown> {
  return ordered(e as unknown as Record<string, unknown>, EVENT_KEY_ORDER, (_k, v) => canonical(v));
}

function isRecorder(x: TraceRecorder | TraceData): x is TraceRecorder {
  return typeof (x as TraceRecorder).header === 'function';
}

/**
 * JSON text of the trace. With header.redacted !== false every event is redacted again here
 * (idempotent), so a trace built from any source can never leak what the header promises it hides.
 */
export function exportTrace(rec: TraceRecorder | TraceData): string {
  const header = isRecorder(rec) ? rec.header() : rec.header;
  const events = isRecorder(rec) ? rec.events() : rec.events;
  const ctx = header.redacted === false ? undefined : { resource: header.resource };
  const headerText = JSON.stringify(canonicalHeader({ ...header, format: TRACE_FORMAT }), null, 2).replace(/\n/g, '\n  ');
  const lines = events.map((e) => '    ' + JSON.stringify(canonicalEvent(ctx ? redactEvent(e, ctx) : e)));
  const eventsText = lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n  ]`;
  return `{\n  "format": ${JSON.stringify(TRACE_FORMAT)},\n  "header": ${headerText},\n  "events": ${eventsText}\n}\n`;
}

let validator: ValidateFunction | undefined;

function validate(doc: unknown): ErrorObject[] {
  validator ??= new Ajv2020({ allErrors: false, strict: true }).compile(schema);
  return validator(doc) ? [] : (validator.errors ?? []);
}

/**
 * Text taken from the file, made safe for a one-line message: line breaks escaped (as in JSON),
 * long values cut, so a hostile file cannot make the error span lines or pages.
 */
function inLine(text: string, max = 200): string {
  const flat = text.replace(/[\r\n\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A non-string value named by its kind (stringifying a deeply nested one could overflow the stack). */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : String(v);
}

/** One readable line for the most specific schema error (if/then wrappers are skipped). */
function describe(errors: ErrorObject[]): string {
  const err = errors.find((e) => e.keyword !== 'if') ?? errors[0];
  if (!err) return 'schema violation';
  const where = err.instancePath === '' ? 'the top level' : inLine(err.instancePath);
  let what = err.message ?? 'is invalid';
  if (err.keyword === 'enum') what += `: ${(err.params as { allowedValues: unknown[] }).allowedValues.map((x) => JSON.stringify(x)).join(', ')}`;
  if (err.keyword === 'const') what += ` ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
  return `schema violation at ${where}: ${inLine(what)}`;
}

/**
 * Nesting a trace may have. Free-form values (an update's diff) are otherwise unchecked, and
 * export, redaction and the webview walk them recursively: a hostile depth would overflow the
 * stack there. Real objects stay far below this.
 */
const MAX_NESTING = 1000;

/** The JSON pointer of a value nested deeper than `limit`, found without recursion; undefined if none. */
function pathDeeperThan(doc: unknown, limit: number): string | undefined {
  const stack: [value: unknown, path: string, depth: number][] = [[doc, '', 0]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return path || '/';
    for (const [k, child] of Object.entries(v)) stack.push([child, `${path}/${k}`, depth + 1]);
  }
  return undefined;
}

/** Parses and checks a trace file; any problem is one TraceFileError with one clear message. */
export function importTrace(text: string): { header: TraceHeader; events: RecordedEvent[] } {
  let doc: unknown;
  try {
    // Editors on Windows may save a byte-order mark; it is not part of the JSON.
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw new TraceFileError(`not a trace file: the text is not JSON (${inLine((e as Error).message)})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new TraceFileError('not a trace file: expected a JSON object with "format": "informer-trace/v1"');
  }
  const format = (doc as { format?: unknown }).format;
  if (format === undefined) {
    throw new TraceFileError('not an informer trace: it has no "format" field (expected "informer-trace/v1")');
  }
  if (format !== TRACE_FORMAT) {
    const shown = typeof format === 'string' ? inLine(`"${format}"`, 80) : describeValue(format);
    throw new TraceFileError(
      typeof format === 'string' && format.startsWith('informer-trace/')
        ? `unsupported trace version ${shown}: this version of the tool reads "informer-trace/v1"`
        : `not an informer trace: format is ${shown} (expected "informer-trace/v1")`,
    );
  }
  const tooDeep = pathDeeperThan(doc, MAX_NESTING);
  if (tooDeep !== undefined) {
    throw new TraceFileError(`invalid trace file: values nested deeper than ${MAX_NESTING} levels (at ${inLine(tooDeep)})`);
  }
  const errors = validate(doc);
  if (errors.length > 0) throw new TraceFileError(`invalid trace file: ${describe(errors)}`);
  const data = doc as { header: TraceHeader; events: RecordedEvent[] };
  for (let i = 1; i < data.events.length; i++) {
    if (data.events[i].seq <= data.events[i - 1].seq) {
      throw new TraceFileError(`invalid trace file: event seqs must increase, but /events/${i} has seq ${data.events[i].seq} after ${data.events[i - 1].seq}`);
    }
  }
  return { header: data.header, events: data.events };
}
