/**
 * Helpers for the sandbox tests: a sandbox on a free loopback port driven by a FakeClock (no
 * storyline unless asked), and an NDJSON reader for watch responses.
 */
import { FakeClock } from '../../../src/engine/clock';
import type { WatchEvent } from '../../../src/engine/listWatch';
import type { KubeObject } from '../../../src/engine/objects';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../../src/sources/sandbox';

/** The fields of list, Status and discovery bodies the tests read. */
export interface ApiBody {
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items?: KubeObject[];
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: Array<{ type?: string; message?: string }>; retryAfterSeconds?: number };
  [field: string]: unknown;
}

export interface TestSandbox {
  sb: Sandbox;
  clock: FakeClock;
  get(path: string): Promise<Response>;
  json(path: string): Promise<{ status: number; headers: Headers; body: ApiBody }>;
}

export async function testSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const clock = new FakeClock();
  const sb = await startSandbox({ runStoryline: false, ...opts, clock });
  const get = (path: string) => fetch(sb.url + path);
  return {
    sb,
    clock,
    get,
    json: async (path) => {
      const res = await get(path);
      return { status: res.status, headers: res.headers, body: (await res.json()) as ApiBody };
    },
  };
}

/** Reads NDJSON watch events from a streaming response, one at a time. */
export class EventReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  ended = false;

  constructor(res: Response) {
    if (!res.body) throw new Error('no body');
    this.reader = res.body.getReader();
  }

  /** The next event, or null when the server ended the stream. Rejects if the connection broke. */
  async next(): Promise<WatchEvent | null> {
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        return JSON.parse(line) as WatchEvent;
      }
      if (this.ended) return null;
      const { done, value } = await this.reader.read();
      if (done) this.ended = true;
      else this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The next n events. */
  async take(n: number): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let i = 0; i < n; i++) {
      const e = await this.next();
      if (!e) throw new Error(`stream ended after ${out.length} of ${n} events`);
      out.push(e);
    }
    return out;
  }

  /** Every remaining event until the server ends the stream. */
  async rest(): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let e = await this.next(); e; e = await this.next()) out.push(e);
    return out;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

export async function openWatch(t: TestSandbox, path: string): Promise<EventReader> {
  const res = await t.get(path);
  if (res.status !== 200) throw new Error(`watch ${path}: HTTP ${res.status} ${await res.text()}`);
  return new EventReader(res);
}

export function rvOf(e: WatchEvent): string | undefined {
  return e.object.metadata?.resourceVersion;
}

export function keyOf(e: WatchEvent): string {
  const m = e.object.metadata;
  return m?.namespace ? `${m.namespace}/${m.name}` : `${m?.name}`;
}

/** The error code of a failed fetch (undici hides it in cause). */
export async function fetchErrorCode(url: string): Promise<string | undefined> {
  try {
    await fetch(url);
    return undefined;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    return cause?.code ?? 'unknown';
  }
}
