/**
 * A trace file written as it is read: the header, then every event from an async source (a
 * spill segment, then memory), never the whole text in memory. The bytes are exactly what
 * exportTrace (traceFile.ts) makes of the same header and events.
 */
import { open } from 'node:fs/promises';
import type { RecordedEvent } from '../format/events';
import type { TraceHeader } from '../format/trace';
import { TRACE_FORMAT } from './recorder';
import { canonicalHeader, eventLines } from './traceExport';

/** Written to the file in pieces of about this many characters. */
const CHUNK_CHARS = 1 << 20;

/** The trace file's text in pieces, in order; joined they equal exportTrace({ header, events }). */
export async function* traceChunks(header: TraceHeader, events: AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>): AsyncGenerator<string> {
  const line = eventLines(header);
  const headerText = JSON.stringify(canonicalHeader({ ...header, format: TRACE_FORMAT }), null, 2).replace(/\n/g, '\n  ');
  let chunk = `{\n  "format": ${JSON.stringify(TRACE_FORMAT)},\n  "header": ${headerText},\n  "events": `;
  let count = 0;
  for await (const e of events) {
    chunk += (count === 0 ? '[\n' : ',\n') + '    ' + line(e);
    count++;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + (count === 0 ? '[]' : '\n  ]') + '\n}\n';
}

/** Writes the trace file at `path` (replacing it); resolves with the number of events written. */
export async function writeTraceFile(path: string, header: TraceHeader, events: AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>): Promise<number> {
  let count = 0;
  async function* counted(): AsyncGenerator<RecordedEvent> {
    for await (const e of events) {
      count++;
      yield e;
    }
  }
  const file = await open(path, 'w');
  try {
    for await (const chunk of traceChunks(header, counted())) await file.write(chunk);
  } finally {
    await file.close();
  }
  return count;
}
