/**
 * Export of an informer-trace/v1 file as a sequence of text chunks (docs/trace-format.md): the
 * caller writes them one after another (a file stream, a socket) and never holds the whole text.
 * Joined, the chunks are the canonical text: fixed key order (header keys as documented; events
 * start with seq, t, type, the rest sorted; nested objects sorted), the header pretty-printed,
 * one event per line.
 *
 * An event's line is written field by field, with the field order of its key set computed once
 * and reused (events of one type share a few key sets). Keys that JSON.stringify would move
 * (integer-like names, which objects list first) and `__proto__` take the general path, which
 * builds the ordered object and stringifies it, so every event gets exactly the general text.
 */
import { TRACE_FORMAT, type TraceRecorder } from './recorder';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { redactEvent } from './redact';

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

/** Events per chunk: a chunk of the engine's events is a few hundred KB. */
export const EVENTS_PER_CHUNK = 2000;

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

/** The event with its keys in output order and nested objects sorted. */
export function canonicalEvent(e: RecordedEvent): Record<string, unknown> {
  return ordered(e as unknown as Record<string, unknown>, EVENT_KEY_ORDER, (_k, v) => canonical(v));
}

/** The general path: the ordered object, stringified. */
function generalLine(e: RecordedEvent): string {
  return JSON.stringify(canonicalEvent(e));
}

/** A key whose place in JSON.stringify's output is not its insertion place, or that an object literal cannot hold. */
const UNORDERED_KEY = /^(0|[1-9]\d*)$|^__proto__$/;

/** UNORDERED_KEY.test(k), without running the expression on keys that start with neither a digit nor '_'. */
function unorderedKey(k: string): boolean {
  const c = k.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 95 ? UNORDERED_KEY.test(k) : false;
}

/**
 * Whether JSON.stringify(v) is already the canonical text of v: plain objects whose keys come in
 * sorted order (none integer-like, which objects would list first), arrays of such values and
 * primitives. Allocates nothing.
 */
function isCanonical(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isCanonical(v[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  const o = v as Record<string, unknown>;
  let prev: string | undefined;
  for (const k in o) {
    if ((prev !== undefined && k <= prev) || unorderedKey(k) || !isCanonical(o[k])) return false;
    prev = k;
  }
  return true;
}

interface KeyPlan {
  /** Keys as the object lists them. */
  listed: string[];
  /** Keys in output order. */
  keys: string[];
  /** The key set as the object lists it is already in output order. */
  inOrder: boolean;
}

/**
 * Writes event lines, remembering the output order of every key set it has met (undefined:
 * the key set needs the general path). An event whose fields already come in output order with
 * canonical values (an imported canonical file, most engine events) is stringified as it is;
 * others are rebuilt in output order, one object shape per key set.
 */
class LineWriter {
  private readonly plans = new Map<string, KeyPlan | undefined>();
  /** The plan of the last event of each type: the next one of that type most often has the same key set. */
  private readonly lastOfType = new Map<unknown, KeyPlan>();

  private planOf(obj: Record<string, unknown>): KeyPlan | undefined {
    const last = this.lastOfType.get(obj.type);
    if (last && listsExactly(obj, last.listed)) return last;
    let id = '';
    for (const k in obj) id += k + ',';
    let plan = this.plans.get(id);
    if (plan === undefined && !this.plans.has(id)) {
      plan = planFor(Object.keys(obj));
      this.plans.set(id, plan);
    }
    if (plan) this.lastOfType.set(obj.type, plan);
    return plan;
  }

  line(e: RecordedEvent): string {
    const obj = e as unknown as Record<string, unknown>;
    const plan = this.planOf(obj);
    if (plan === undefined) return generalLine(e);
    const keys = plan.keys;
    if (plan.inOrder && Object.getPrototypeOf(obj) === Object.prototype) {
      let ok = true;
      for (let i = 0; i < keys.length && ok; i++) ok = isCanonical(obj[keys[i]]);
      if (ok) return JSON.stringify(obj);
    }
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const v = obj[k];
      if (v !== undefined) out[k] = v !== null && typeof v === 'object' ? canonical(v) : v;
    }
    return JSON.stringify(out);
  }
}

/** Whether the object lists exactly these keys, in this order. */
function listsExactly(obj: Record<string, unknown>, listed: readonly string[]): boolean {
  let i = 0;
  for (const k in obj) if (listed[i++] !== k) return false;
  return i === listed.length;
}

/** Keys in output order, or undefined when one of them would not keep its place. */
function planFor(listed: string[]): KeyPlan | undefined {
  if (listed.some((k) => UNORDERED_KEY.test(k))) return undefined;
  const keys = [...EVENT_KEY_ORDER.filter((k) => listed.includes(k)), ...listed.filter((k) => !EVENT_KEY_ORDER.includes(k)).sort()];
  return { listed, keys, inOrder: keys.every((k, i) => k === listed[i]) };
}

/**
 * The canonical line (without indentation) of each event of a trace with this header, redacted
 * again unless the header says redacted: false; one writer, so key orders are computed once.
 */
export function eventLines(header: TraceHeader): (e: RecordedEvent) => string {
  const { redacted, line } = eventWriter(header);
  return (e) => line(redacted(e));
}

/**
 * eventLines in two steps: `redacted` gives the event as the file holds it (itself when nothing
 * in it changes, or with header.redacted: false), `line` its canonical line.
 */
export function eventWriter(header: TraceHeader): { redacted: (e: RecordedEvent) => RecordedEvent; line: (e: RecordedEvent) => string } {
  const ctx = header.redacted === false ? undefined : { resource: header.resource };
  const writer = new LineWriter();
  return { redacted: ctx ? (e) => redactEvent(e, ctx) : (e) => e, line: (e) => writer.line(e) };
}

function isRecorder(x: TraceRecorder | TraceData): x is TraceRecorder {
  return typeof (x as TraceRecorder).header === 'function';
}

/**
 * The trace's JSON text in chunks (the header with the start of the events array, then lines
 * of up to `perChunk` events, then the end). With header.redacted !== false every event is
 * redacted again here (idempotent), so a trace built from any source can never leak what the
 * header promises it hides.
 */
export function* exportTraceChunks(rec: TraceRecorder | TraceData, perChunk = EVENTS_PER_CHUNK): Generator<string, void, undefined> {
  const header = isRecorder(rec) ? rec.header() : rec.header;
  const events = isRecorder(rec) ? rec.events() : rec.events;
  const line = eventLines(header);
  const headerText = JSON.stringify(canonicalHeader({ ...header, format: TRACE_FORMAT }), null, 2).replace(/\n/g, '\n  ');
  const opening = `{\n  "format": ${JSON.stringify(TRACE_FORMAT)},\n  "header": ${headerText},\n  "events": `;
  if (events.length === 0) {
    yield `${opening}[]\n}\n`;
    return;
  }
  yield `${opening}[\n`;
  const step = Math.max(1, Math.floor(perChunk));
  for (let from = 0; from < events.length; from += step) {
    const to = Math.min(events.length, from + step);
    let chunk = '';
    for (let i = from; i < to; i++) {
      chunk += (i === 0 ? '    ' : ',\n    ') + line(events[i]);
    }
    yield chunk;
  }
  yield '\n  ]\n}\n';
}

/** The whole JSON text of the trace (the chunks of exportTraceChunks, joined). */
export function exportTrace(rec: TraceRecorder | TraceData): string {
  let text = '';
  for (const chunk of exportTraceChunks(rec)) text += chunk;
  return text;
}
