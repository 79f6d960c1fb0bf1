/**
 * The scripted API server as HTTP/1.1 over in-memory connections, on the engine's clock: what the
 * conformance engine side runs the real HttpListerWatcher (and its REST request layer) against.
 * It writes the same answers as the oracle's server below client-go's REST client
 * (test/conformance/oracle/transport.go, responses.go; docs/scenario-format.md "What each step
 * serves"): status codes with Status bodies and Retry-After, list pages, chunked watch streams
 * whose bursts go out at their virtual times, `gzip: true` bodies (a watch stream flushed per
 * burst), `cutAtByte: N`, and refusals, resets and timeouts as the errors Node's sockets give.
 *
 * A call's first HTTP request takes the next step (ScriptedServer.nextStep: request line,
 * advanceMs/addHandler steps, divergence, end of run); every later request of the same call (the
 * REST client's own retries) gets the same step again. `beginCall` marks where a call starts
 * (client-go's tweakListOptions hook, as in the oracle's tap).
 *
 * Connections are Duplex pairs handed to http.request through its `createConnection` option; no
 * socket is opened. Keep-alive is off (`Connection: close`): every request dials.
 */
import { STATUS_CODES } from 'node:http';
import { Duplex } from 'node:stream';
import { constants as zc, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import type { Clock } from '../engine/clock';
import type { ListOptions, WatchOptions } from '../engine/listWatch';
import type { KubeObject } from '../engine/objects';
import type { ErrorSpec, ListPageStep, NetworkStep, Scenario, Step, Verb, WatchStreamStep } from '../scenario/types';
import { stepKind } from '../scenario/types';
import { DEFAULT_WATCH_DURATION_MS, listBody, type ScriptedServer } from './scriptedServer';
import { withResourceType } from './statusObjects';

/** The server's address as error texts name it (the oracle's in-memory dialer says the same). */
const SERVER_ADDR = '127.0.0.1:6443';

type Oncreate = (err: Error | null, socket?: Duplex) => void;

/** The errno-style error a Node socket reports. */
function socketError(code: 'ECONNREFUSED' | 'ECONNRESET' | 'ETIMEDOUT', syscall: 'connect' | 'read'): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(syscall === 'connect' ? `connect ${code} ${SERVER_ADDR}` : `${syscall} ${code}`);
  e.code = code;
  e.syscall = syscall;
  return e;
}

/** One end of an in-memory connection: what one end writes, the other reads. */
class PipeEnd extends Duplex {
  peer!: PipeEnd;

  constructor() {
    super({ allowHalfOpen: true });
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (!this.peer.destroyed && !this.peer.readableEnded) this.peer.push(chunk);
    cb();
  }

  override _final(cb: (e?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.push(null);
    cb();
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.push(null);
    cb(err);
  }

  // What http.ClientRequest may call on a socket.
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  get remoteAddress(): string {
    return '127.0.0.1';
  }
}

function pipePair(): [PipeEnd, PipeEnd] {
  const a = new PipeEnd();
  const b = new PipeEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

/** The server's side of one connection. */
class Conn {
  /** Aborts when the client goes away (it closed or destroyed its end). */
  private readonly gone = new AbortController();
  private sent = 0;
  private open = true;
  private gz?: IncrementalGzip;

  constructor(
    readonly server: PipeEnd,
    private readonly client: PipeEnd,
    private readonly cut: number | undefined,
  ) {
    client.once('close', () => this.gone.abort());
  }

  get signal(): AbortSignal {
    return this.gone.signal;
  }

  /** Resolves once the request head has arrived (the client's write is read before answering). */
  requestRead(): Promise<boolean> {
    return new Promise((resolve) => {
      let head = '';
      const onData = (c: Buffer) => {
        head += c.toString('latin1');
        if (head.includes('\r\n\r\n')) done(true);
      };
      const done = (ok: boolean) => {
        this.server.off('data', onData);
        this.gone.signal.removeEventListener('abort', onGone);
        resolve(ok);
      };
      const onGone = () => done(false);
      this.server.on('data', onData);
      this.gone.signal.addEventListener('abort', onGone, { once: true });
    });
  }

  private write(b: Buffer | string): void {
    if (this.open && !this.server.destroyed) this.server.write(b);
  }

  head(code: number, headers: Record<string, string>, body: { chunked: true } | { length: number }, gzip: boolean): void {
    const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? `status code ${code}`}`, 'Content-Type: application/json'];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (gzip) lines.push('Content-Encoding: gzip');
    lines.push('chunked' in body ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
    lines.push('Connection: close', '', '');
    this.write(lines.join('\r\n'));
  }

  /** A complete response with a Content-Length body, cut after `cut` bytes of it when the step says. */
  whole(code: number, headers: Record<string, string>, json: unknown, gzip: boolean): void {
    let body = Buffer.from(JSON.stringify(json));
    if (gzip) body = gzipSync(body);
    this.head(code, headers, { length: body.length }, gzip);
    if (this.cut !== undefined && this.cut < body.length) {
      this.write(body.subarray(0, this.cut));
      this.close(); // the client reads an unexpected EOF for the rest of the body
      return;
    }
    this.write(body);
    this.close();
  }

  startStream(gzip: boolean): void {
    this.head(200, {}, { chunked: true }, gzip);
    if (gzip) this.gz = new IncrementalGzip();
  }

  /** Stream bytes (one burst, flushed); false once the step's cut point ended the connection. */
  send(p: Buffer): boolean {
    if (!this.open) return false;
    if (this.cut !== undefined && this.sent + p.length > this.cut) {
      const part = p.subarray(0, this.cut - this.sent);
      this.sent = this.cut;
      if (part.length > 0) this.chunk(this.gz ? this.gz.flush(part) : part);
      this.close();
      return false;
    }
    this.sent += p.length;
    this.chunk(this.gz ? this.gz.flush(p) : p);
    return true;
  }

  private chunk(p: Buffer): void {
    if (p.length === 0) return;
    this.write(`${p.length.toString(16)}\r\n`);
    this.write(p);
    this.write('\r\n');
  }

  /** Ends the body cleanly (gzip trailer, last chunk) and closes. */
  finish(): void {
    if (this.gz) this.chunk(this.gz.end());
    this.write('0\r\n\r\n');
    this.close();
  }

  /** Closes the connection (FIN after what was written). */
  close(): void {
    if (!this.open) return;
    this.open = false;
    if (!this.server.destroyed) this.server.end();
  }

  /** Breaks the connection: the client's next read fails with this socket error. */
  breakWith(network: 'connection-reset' | 'timeout'): void {
    if (!this.open) return;
    this.open = false;
    this.client.destroy(network === 'timeout' ? socketError('ETIMEDOUT', 'read') : socketError('ECONNRESET', 'read'));
    this.server.destroy();
  }
}

/**
 * One gzip member written incrementally and synchronously, flushed per burst like Go's
 * gzip.Writer.Flush: a header, each burst raw-deflated up to a sync flush (independent pieces
 * concatenate into one valid deflate stream), and at the end the final block, CRC-32 and size.
 */
class IncrementalGzip {
  private crc = 0;
  private size = 0;
  private headerSent = false;

  private header(): Buffer {
    if (this.headerSent) return Buffer.alloc(0);
    this.headerSent = true;
    return Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  }

  flush(p: Buffer): Buffer {
    this.crc = crc32(p, this.crc);
    this.size = (this.size + p.length) >>> 0;
    return Buffer.concat([this.header(), deflateRawSync(p, { finishFlush: zc.Z_SYNC_FLUSH })]);
  }

  end(): Buffer {
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.size, 4);
    return Buffer.concat([this.header(), deflateRawSync(Buffer.alloc(0)), trailer]);
  }
}

/** The Status an error step sends, as Go's metav1.Status marshals it (a cause's type is `reason`). */
function wireStatus(e: ErrorSpec): Record<string, unknown> {
  const causes = (e.causes ?? []).map((c) => {
    const t = c.type || c.reason;
    return { ...(t ? { reason: t } : {}), ...(c.message ? { message: c.message } : {}), ...(c.field ? { field: c.field } : {}) };
  });
  const details = causes.length || e.retryAfterSeconds ? { ...(causes.length ? { causes } : {}), ...(e.retryAfterSeconds ? { retryAfterSeconds: e.retryAfterSeconds } : {}) } : undefined;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    ...(e.message ? { message: e.message } : {}),
    ...(e.reason ? { reason: e.reason } : {}),
    ...(details ? { details } : {}),
    code: e.code,
  };
}

/** An ERROR event's object is a Status when its kind is "Status", or when it has no kind and no metadata.name. */
function isStatusJson(o: KubeObject): boolean {
  if ('kind' in o) return o.kind === 'Status';
  return !(o.metadata && typeof o.metadata.name === 'string' && o.metadata.name !== '');
}

function frame(type: string, object: unknown): Buffer {
  return Buffer.from(`${JSON.stringify({ type, object })}\n`);
}

/** The call's options as the REST client put them into the query (what the request line logs). */
export function optionsFromQuery(q: URLSearchParams): ListOptions & WatchOptions {
  const s = (k: string) => q.get(k) ?? undefined;
  const o: ListOptions & WatchOptions = { resourceVersion: s('resourceVersion') ?? '' };
  if (s('resourceVersionMatch')) o.resourceVersionMatch = s('resourceVersionMatch') as ListOptions['resourceVersionMatch'];
  if (s('limit')) o.limit = Number(s('limit'));
  if (s('continue')) o.continue = s('continue');
  if (s('allowWatchBookmarks') === 'true') o.allowWatchBookmarks = true;
  if (s('sendInitialEvents') !== undefined) o.sendInitialEvents = s('sendInitialEvents') === 'true';
  if (s('timeoutSeconds')) o.timeoutSeconds = Number(s('timeoutSeconds'));
  if (s('labelSelector')) o.labelSelector = s('labelSelector');
  if (s('fieldSelector')) o.fieldSelector = s('fieldSelector');
  return o;
}

export class ScriptedHttpResponder {
  private newCall = true;
  private current?: { verb: Verb; step: Step };
  /** Connections opened and not yet closed (for tests and the driver). */
  private live = 0;

  constructor(
    private readonly scripted: ScriptedServer,
    private readonly scenario: Scenario,
    private readonly clock: Clock,
    /** Aborts when the run stops: pending calls then fail. */
    private readonly runSignal: AbortSignal,
  ) {}

  /** The next HTTP request starts a new call of the reflector (not a retry of the last one). */
  beginCall(): void {
    this.newCall = true;
  }

  get openConnections(): number {
    return this.live;
  }

  /** http.request's `createConnection`: the connection is handed over through `oncreate`. */
  readonly createConnection = (opts: { path?: string | null; pathname?: string | null; search?: string | null }, oncreate: Oncreate): undefined => {
    // http.request(url, …) hands createConnection the URL's parts (its `path` is not set there).
    this.dial(opts.path ?? `${opts.pathname ?? '/'}${opts.search ?? ''}`).then(
      (r) => (r instanceof Error ? oncreate(r) : oncreate(null, r)),
      (e: unknown) => oncreate(e instanceof Error ? e : new Error(String(e))),
    );
    return undefined;
  };

  private async dial(path: string): Promise<Duplex | Error> {
    const q = new URL(path, 'http://scenario.invalid').searchParams;
    const verb: Verb = q.get('watch') === 'true' || q.get('watch') === '1' ? 'watch' : 'list';
    let step: Step;
    if (this.newCall || !this.current || this.current.verb !== verb) {
      this.newCall = false;
      step = await this.scripted.nextStep(verb, optionsFromQuery(q), this.runSignal);
      this.current = { verb, step };
    } else {
      if (this.scripted.ended) return pendingUntil(this.runSignal);
      step = this.current.step;
    }
    if (stepKind(step) === 'network' && (step as NetworkStep).network === 'connection-refused') {
      return socketError('ECONNREFUSED', 'connect');
    }
    const [client, server] = pipePair();
    const cut = (step as { cutAtByte?: number }).cutAtByte;
    const conn = new Conn(server, client, cut);
    this.live++;
    client.once('close', () => this.live--);
    void this.serve(conn, step);
    return client;
  }

  private async serve(c: Conn, step: Step): Promise<void> {
    if (!(await c.requestRead())) return;
    const r = this.scenario.resource;
    switch (stepKind(step)) {
      case 'network': {
        const net = step as NetworkStep;
        // durationMs: how long the connection stays open before it fails (each attempt).
        if (net.durationMs && !(await this.sleep(net.durationMs, c.signal))) return;
        c.breakWith(net.network === 'timeout' ? 'timeout' : 'connection-reset');
        return;
      }
      case 'error': {
        const e = (step as { error: ErrorSpec }).error;
        const headers: Record<string, string> = e.retryAfterSeconds && e.retryAfterSeconds > 0 ? { 'Retry-After': String(e.retryAfterSeconds) } : {};
        c.whole(e.code, headers, wireStatus(e), (step as { gzip?: boolean }).gzip === true);
        return;
      }
      case 'list': {
        const page = step as ListPageStep;
        c.whole(200, {}, listBody(page, r), page.gzip === true);
        return;
      }
      default:
        await this.stream(c, step as WatchStreamStep);
    }
  }

  /** A watch: the 200 header at once, each burst at its offset from then, the end at durationMs. */
  private async stream(c: Conn, st: WatchStreamStep): Promise<void> {
    const r = this.scenario.resource;
    let last = 0;
    const evs = st.events.map((e) => {
      last = Math.max(last, e.atMs ?? 0);
      const object = e.type === 'ERROR' && isStatusJson(e.object) ? { kind: 'Status', apiVersion: 'v1', ...structuredClone(e.object) } : withResourceType(e.object, r);
      return { at: last, frame: frame(e.type, object) };
    });
    const dur = Math.max(st.durationMs ?? DEFAULT_WATCH_DURATION_MS, last);
    const openedAt = this.clock.now();
    const until = (at: number) => this.sleep(openedAt + at - this.clock.now(), c.signal);
    c.startStream(st.gzip === true);
    // Events due at the same instant go out in one write: the client decodes them as one burst.
    for (let i = 0; i < evs.length; ) {
      if (!(await until(evs[i].at))) return;
      let j = i;
      while (j < evs.length && evs[j].at === evs[i].at) j++;
      if (!c.send(Buffer.concat(evs.slice(i, j).map((e) => e.frame)))) return;
      i = j;
    }
    if (!(await until(dur))) return;
    switch (st.close) {
      case 'error':
        if (c.send(frame('ERROR', wireStatus(st.error as ErrorSpec)))) c.finish();
        return;
      case 'decode-error':
        // Bytes the JSON frame reader cannot decode: the StreamWatcher reports an ERROR event.
        if (c.send(Buffer.from('x'))) c.finish();
        return;
      case 'unexpected-eof':
        c.close(); // no last chunk: the chunked body ends early
        return;
      case 'reset':
      case 'timeout':
        c.breakWith(st.close === 'timeout' ? 'timeout' : 'connection-reset');
        return;
      default:
        c.finish();
    }
  }

  /** Waits ms of virtual time; false when the connection or the run ended first. */
  private async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    if (ms <= 0) return !signal.aborted;
    const both = AbortSignal.any([signal, this.runSignal]);
    try {
      await this.clock.sleep(ms, both);
      return true;
    } catch {
      return false;
    }
  }
}

function pendingUntil(signal: AbortSignal): Promise<Error> {
  return new Promise((resolve) => {
    const done = () => resolve(new Error('the scripted run is over'));
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}
