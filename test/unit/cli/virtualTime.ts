/**
 * Runs a live CLI command (record, check-consistency) on virtual time while its requests still
 * travel over real loopback HTTP — Go's synctest idea: time moves only when nothing is in flight.
 *
 * One FakeClock drives the command (through CliIo.clock), the server under test (the sandbox's
 * bookmarks and watch timeouts) and the test's own scheduled changes. runOnVirtualTime() fires
 * the clock's timers one at a time, and before each one waits until the loopback traffic is
 * quiet: no client request not yet written out, no connection still being set up or torn down
 * on one side only, and every byte either side wrote read by the other — checked several times
 * with the event loop turned in between, so the continuations of what arrived have run too. So
 * what the command sees at virtual time t does not depend on how busy the machine is; a loaded
 * machine only makes the run take longer in wall-clock time.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { runCli } from '../../../src/cli/cli';
import { FakeClock, settle } from '../../../src/engine/clock';
import { seededRand } from '../../../src/sources/replay';
import { memoryIo, type MemoryIo } from './memoryIo';

/** Every loopback TCP connection this process opens or accepts (both ends) and every HTTP client request, while started. */
export class LoopbackTraffic {
  private readonly clients = new Map<Socket, number | undefined>();
  private readonly servers = new Map<Socket, number | undefined>();
  private readonly requests = new Set<ClientRequest>();
  private readonly onClient = (m: unknown) => {
    const socket = (m as { socket: Socket }).socket;
    this.clients.set(socket, undefined);
    socket.once('connect', () => this.clients.set(socket, socket.localPort));
  };
  private readonly onServer = (m: unknown) => {
    const socket = (m as { socket: Socket }).socket;
    this.servers.set(socket, socket.remotePort);
  };
  private readonly onRequest = (m: unknown) => {
    const req = (m as { request: ClientRequest }).request;
    this.requests.add(req);
    const done = () => this.requests.delete(req);
    // Once the request is written to its socket the byte counts take over (a server may hold
    // its answer, as a watch with nothing to send holds even its headers).
    req.once('finish', done);
    req.once('response', done);
    req.once('error', done);
    req.once('close', done);
  };

  start(): this {
    subscribe('net.client.socket', this.onClient);
    subscribe('net.server.socket', this.onServer);
    subscribe('http.client.request.start', this.onRequest);
    return this;
  }

  stop(): void {
    unsubscribe('net.client.socket', this.onClient);
    unsubscribe('net.server.socket', this.onServer);
    unsubscribe('http.client.request.start', this.onRequest);
  }

  /** What is still on its way, or undefined when nothing is. */
  inFlight(): string | undefined {
    if (this.requests.size > 0) return `${this.requests.size} request(s) not yet written to a connection`;
    const byPort = new Map<number, Socket>();
    for (const [s, port] of this.servers) if (port !== undefined) byPort.set(port, s);
    for (const [c, port] of this.clients) {
      if (c.connecting) return 'a connection being set up';
      if (port === undefined) {
        // Never connected (refused) and gone: nothing more will happen on it.
        if (c.destroyed) this.clients.delete(c);
        continue;
      }
      const s = byPort.get(port);
      if (!s) {
        if (c.destroyed) this.clients.delete(c);
        else return `connection :${port} not yet accepted`;
        continue;
      }
      if (c.destroyed && s.destroyed) {
        this.clients.delete(c);
        this.servers.delete(s);
        continue;
      }
      if (c.destroyed !== s.destroyed) return `connection :${port} closed on one side only`;
      if (c.bytesWritten !== s.bytesRead) return `connection :${port}: ${c.bytesWritten - s.bytesRead} byte(s) to the server`;
      if (s.bytesWritten !== c.bytesRead) return `connection :${port}: ${s.bytesWritten - c.bytesRead} byte(s) to the client`;
    }
    return undefined;
  }
}

export interface VirtualRunOptions {
  /** Wall-clock bound on waiting for the traffic to go quiet, or for a run blocked outside time (default 60 s). */
  stuckAfterMs?: number;
}

/** Quiet checks in a row (each after a few event-loop turns) before time may move. */
const QUIET_CHECKS = 3;

/**
 * Drives `clock` until `run` settles, and returns what it resolved to. Fails with what was in
 * flight instead of hanging when the traffic never goes quiet.
 */
export async function runOnVirtualTime<T>(clock: FakeClock, traffic: LoopbackTraffic, run: Promise<T>, opts: VirtualRunOptions = {}): Promise<T> {
  const stuckAfterMs = opts.stuckAfterMs ?? 60_000;
  let finished = false;
  run.then(
    () => (finished = true),
    () => (finished = true),
  );
  let blockedSince: number | undefined;
  for (;;) {
    const waitingSince = Date.now();
    let quiet = 0;
    let busy: string | undefined;
    while (!finished && quiet < QUIET_CHECKS) {
      await settle();
      busy = traffic.inFlight();
      quiet = busy === undefined ? quiet + 1 : 0;
      if (busy !== undefined) {
        if (Date.now() - waitingSince > stuckAfterMs) throw new Error(`loopback traffic never went quiet at t=${clock.now()} ms: ${busy}`);
        await new Promise<void>((r) => setTimeout(r, 1));
      }
    }
    if (finished) return run;
    if (await clock.runNext()) {
      blockedSince = undefined;
    } else {
      // No timer and nothing on the wire: the run waits on something outside time (a file, a thread).
      blockedSince ??= Date.now();
      if (Date.now() - blockedSince > stuckAfterMs) throw new Error(`the run is blocked at t=${clock.now()} ms with no timer and no traffic`);
      await new Promise<void>((r) => setTimeout(r, 5));
    }
  }
}

/**
 * The live-CLI harness the tests share: one FakeClock (fresh at each start()) for the command's
 * duration, faults, checks and backoff, for the server under test and for the test's own
 * scheduled changes, and the loopback traffic watched while started. later/virtualIo/live are
 * bound, so a test file can take them as plain functions.
 */
export class VirtualCli {
  clock = new FakeClock();
  private traffic: LoopbackTraffic | undefined;

  /** A fresh clock, and the loopback traffic watched from here on. */
  start(): FakeClock {
    this.clock = new FakeClock();
    this.traffic = new LoopbackTraffic().start();
    return this.clock;
  }

  stop(): void {
    this.traffic?.stop();
    this.traffic = undefined;
  }

  /** fn at virtual time ms from now. */
  readonly later = (ms: number, fn: () => void): void => {
    this.clock.setTimer(ms, fn);
  };

  /** An io whose live commands run on the virtual clock, with seeded jitter (backoff), so each run is the same. */
  readonly virtualIo = (): MemoryIo => memoryIo({}, { clock: this.clock, rand: seededRand(1) });

  /** Runs the CLI, moving virtual time whenever loopback is quiet, until the command returns. */
  readonly live = (argv: string[], m: MemoryIo): Promise<number> => {
    if (!this.traffic) throw new Error('start() the virtual time first (no traffic watch)');
    return runOnVirtualTime(this.clock, this.traffic, runCli(argv, m.io), { stuckAfterMs: 45_000 });
  };
}

/** A loopback port nothing listens on. */
export { closedPort } from '../kube/loopback';
