/**
 * The test oracle for the exporter: the canonical text of a trace as docs/trace-format.md defines
 * it, written the plainest way (the ordered object of every event, stringified; one string).
 * src/trace/traceExport.ts must produce exactly these bytes.
 */
import { TRACE_FORMAT } from '../../../src/trace/recorder';
import { redactEvent } from '../../../src/trace/redact';
import type { TraceData } from '../../../src/trace/traceExport';
import type { RecordedEvent } from '../../../src/format/events';
import type { TraceHeader } from '../../../src/format/trace';

const HEADER_KEYS = ['format', 'tool', 'profile', 'gates', 'resource', 'namespace', 'labelSelector', 'fieldSelector', 'context', 'source', 'startedAt', 'cap', 'dropped', 'redacted'];
const NESTED: Record<string, string[]> = { tool: ['name', 'version'], resource: ['group', 'version', 'resource', 'kind', 'namespaced'] };

function sortedObject(obj: Record<string, unknown>, first: readonly string[], inner: (k: string, v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [...first, ...Object.keys(obj).filter((x) => !first.includes(x)).sort()]) if (obj[k] !== undefined) out[k] = inner(k, obj[k]);
  return out;
}

function deep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(deep);
  return v !== null && typeof v === 'object' ? sortedObject(v as Record<string, unknown>, [], (_k, x) => deep(x)) : v;
}

export function referenceExport(trace: TraceData): string {
  const h = { ...trace.header, format: TRACE_FORMAT } as TraceHeader;
  const header = sortedObject(h as unknown as Record<string, unknown>, HEADER_KEYS, (k, v) =>
    NESTED[k] && v !== null && typeof v === 'object' && !Array.isArray(v) ? sortedObject(v as Record<string, unknown>, NESTED[k], (_k, x) => deep(x)) : deep(v),
  );
  const ctx = h.redacted === false ? undefined : { resource: h.resource };
  const lines = trace.events.map((e: RecordedEvent) => '    ' + JSON.stringify(sortedObject((ctx ? redactEvent(e, ctx) : e) as unknown as Record<string, unknown>, ['seq', 't', 'type'], (_k, v) => deep(v))));
  const events = lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n  ]`;
  return `{\n  "format": ${JSON.stringify(TRACE_FORMAT)},\n  "header": ${JSON.stringify(header, null, 2).replace(/\n/g, '\n  ')},\n  "events": ${events}\n}\n`;
}
