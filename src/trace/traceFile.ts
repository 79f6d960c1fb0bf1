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
import type { ErrorObject } from 'ajv/dist/2020';
import { eventValidator, fullValidator } from './schema/validators';
import { TRACE_FORMAT } from './recorder';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';

export { canonicalEvent, canonicalHeader, eventLines, exportTrace, exportTraceChunks, type TraceData } from './traceExport';

export class TraceFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceFileError';
  }
}

/**
 * Has the schema's checks ready now (where they are compiled at run time, the first check
 * compiles them otherwise): a reader can do it while its file is read.
 */
export function prepareChecks(): void {
  fullValidator();
}

/** Whether the whole schema accepts the document with its events array left empty (the top level and header). */
export function topLevelValid(doc: Record<string, unknown>): boolean {
  return Array.isArray(doc.events) && fullValidator()({ ...doc, events: [] });
}

/** Whether the schema accepts this value as an event (its type's compiled check). */
export function eventValid(e: unknown): boolean {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return false;
  const type = (e as { type?: unknown }).type;
  const check = typeof type === 'string' ? eventValidator(type) : undefined;
  return check !== undefined && check(e);
}

/**
 * One pass over the document: the top level and header with the whole schema (the events array
 * left empty), then every event with its type's compiled check. True means the whole schema
 * accepts the document; false that something may be wrong (the caller asks the whole schema).
 */
function quickValid(doc: Record<string, unknown>): boolean {
  const events = doc.events;
  if (!Array.isArray(events) || !topLevelValid(doc)) return false;
  for (let i = 0; i < events.length; i++) if (!eventValid(events[i])) return false;
  return true;
}

/** The schema's errors for the document; none when it is valid. */
function validate(doc: Record<string, unknown>): ErrorObject[] {
  if (quickValid(doc)) return [];
  const v = fullValidator();
  return v(doc) ? [] : (v.errors ?? []);
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
export const MAX_NESTING = 1000;

/** Whether some value in v lies `limit` or more levels below it (recursion at most `limit` deep). */
export function nestsDeeper(v: unknown, limit: number): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (limit <= 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (nestsDeeper(v[i], limit - 1)) return true;
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) if (nestsDeeper(o[k], limit - 1)) return true;
  return false;
}

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
  const tooDeep = nestsDeeper(doc, MAX_NESTING) ? pathDeeperThan(doc, MAX_NESTING) : undefined;
  if (tooDeep !== undefined) {
    throw new TraceFileError(`invalid trace file: values nested deeper than ${MAX_NESTING} levels (at ${inLine(tooDeep)})`);
  }
  const errors = validate(doc as Record<string, unknown>);
  if (errors.length > 0) throw new TraceFileError(`invalid trace file: ${describe(errors)}`);
  const data = doc as { header: TraceHeader; events: RecordedEvent[] };
  for (let i = 1; i < data.events.length; i++) {
    if (data.events[i].seq <= data.events[i - 1].seq) {
      throw new TraceFileError(`invalid trace file: event seqs must increase, but /events/${i} has seq ${data.events[i].seq} after ${data.events[i - 1].seq}`);
    }
  }
  return { header: data.header, events: data.events };
}
