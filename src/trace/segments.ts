/**
 * The recorder's spill segment: when a session's in-memory window is full, its oldest events are
 * appended here (one JSON event per line, in seq order) instead of being dropped. One file per
 * session, bounded in bytes; an append that would pass the bound writes nothing and says so,
 * and the recorder then drops as it always did (a 'trace.dropped' event). Writes are synchronous
 * (the recorder runs in the engine's worker thread, never on the extension host's), so whatever
 * the recorder has handed on is on disk before its next event exists.
 */
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RecordedEvent } from '../format/events';
import type { SegmentChunk } from '../format/spill';

/** The default bound of one session's segment file: 1 GB. */
export const DEFAULT_SPILL_LIMIT_BYTES = 1024 * 1024 * 1024;

export interface SpillOptions {
  /** The folder segment files are written to (created when missing). */
  dir: string;
  /** The most bytes the segment file may hold. */
  maxBytes: number;
  /** Part of the file name (the session's id); anything but [\w.-] becomes '_'. */
  name: string;
}

/** What a segment holds, for the session's tooltip and the export. */
export interface SpillState {
  path: string;
  events: number;
  bytes: number;
  maxBytes: number;
  /** Set once a write failed (disk full, folder gone): nothing more is spilled. */
  error?: string;
  /** Where each append's events lie in the file, in seq order (segmentRange.ts reads by them). */
  chunks: SegmentChunk[];
}

export class SegmentFile {
  readonly path: string;
  readonly maxBytes: number;
  private fd: number | undefined;
  private bytes = 0;
  private count = 0;
  private error: string | undefined;
  private closed = false;
  private readonly dir: string;
  private readonly chunks: SegmentChunk[] = [];
  private lastChunk: SegmentChunk | undefined;

  constructor(o: SpillOptions) {
    this.maxBytes = Math.max(0, Math.floor(o.maxBytes));
    const stem = o.name.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'session';
    this.path = join(o.dir, `${stem}-${process.pid}-${Date.now().toString(36)}.segment.jsonl`);
    this.dir = o.dir;
  }

  /** Appends the events (in order) when they fit under the bound; false and nothing written otherwise. */
  tryAppend(events: readonly RecordedEvent[]): boolean {
    if (this.closed || this.error !== undefined || events.length === 0) return false;
    const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
    const size = Buffer.byteLength(text, 'utf8');
    if (this.bytes + size > this.maxBytes) return false;
    try {
      if (this.fd === undefined) {
        mkdirSync(this.dir, { recursive: true });
        this.fd = openSync(this.path, 'a', 0o600);
      }
      writeSync(this.fd, text);
    } catch (e) {
      this.error = (e as Error).message.split('\n')[0];
      return false;
    }
    this.lastChunk = chunkOf(events, this.bytes, size);
    this.chunks.push(this.lastChunk);
    this.bytes += size;
    this.count += events.length;
    return true;
  }

  /** The chunk the last successful append wrote. */
  get lastAppended(): SegmentChunk | undefined {
    return this.lastChunk;
  }

  state(): SpillState {
    return {
      path: this.path,
      events: this.count,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      ...(this.error !== undefined ? { error: this.error } : {}),
      chunks: [...this.chunks],
    };
  }

  /** No more appends; the file stays (readSegment can still read it). */
  close(): void {
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Closes and deletes the file. */
  remove(): void {
    this.close();
    removeSegment(this.path);
  }
}

function chunkOf(events: readonly RecordedEvent[], offset: number, bytes: number): SegmentChunk {
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  for (const e of events) {
    if (e.t < t0) t0 = e.t;
    if (e.t > t1) t1 = e.t;
  }
  return { firstSeq: events[0].seq, lastSeq: events[events.length - 1].seq, t0, t1, count: events.length, offset, bytes };
}

/** Deletes a segment file; a file already gone is fine. */
export function removeSegment(path: string): void {
  rmSync(path, { force: true });
}

/**
 * The events of a segment file with seq < beforeSeq, in file order (a missing file has none). A
 * line that does not parse ends the reading with an error naming the line: a segment is only
 * ever written by SegmentFile, so a bad line means the file was damaged.
 */
export async function* readSegment(path: string, beforeSeq = Number.POSITIVE_INFINITY): AsyncGenerator<RecordedEvent> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? resolve(false) : reject(e)));
  });
  if (!opened) return;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (line === '') continue;
      let e: RecordedEvent;
      try {
        e = JSON.parse(line) as RecordedEvent;
      } catch {
        throw new Error(`the spill segment ${path} is damaged at line ${n}`);
      }
      if (e.seq >= beforeSeq) return;
      yield e;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}
