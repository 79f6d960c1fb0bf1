/**
 * What a command may touch of the outside world, so commands run in unit tests without a process:
 * output streams, files, and a way to wait for the user to interrupt.
 */
import { BadInputError } from '../app/errors';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Clock } from '../engine/clock';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): string;
  writeFile(path: string, text: string): void;
  /** Resolves when the user asks to stop (Ctrl-C). */
  interrupted(): Promise<void>;
  /**
   * The time the live commands (record, check-consistency) run on: durations, fault and check
   * schedules, the engine's backoff and sleeps. Absent: wall-clock time. Tests pass a FakeClock.
   */
  clock?: Clock;
  /** Uniform [0, 1) numbers for the engine's jitter in live commands. Absent: Math.random. Tests pass a seeded one. */
  rand?: () => number;
}

/** Bad input on the command line: an unknown option, a missing file. Exit 2, like every BadInputError. */
export class UsageError extends BadInputError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Exit codes: 0 ok, 1 the run itself failed (divergence, engine error), 2 bad input. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export const nodeIo: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  readFile: (p) => readFileSync(p, 'utf8'),
  writeFile: (p, t) => writeFileSync(p, t),
  interrupted: () =>
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
};

/**
 * A closed pipe on stdout (`informer-inspector profiles | head`) ends the process quietly with
 * exit 0, as the reader wanted no more; any other stream error is reported on one line.
 */
export function guardPipe(stream: NodeJS.EventEmitter, exit: (code: number) => void, report: (text: string) => void): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') exit(0);
    else {
      report(`informer-inspector: cannot write output: ${e.message}\n`);
      exit(1);
    }
  });
}

/** Reads an input file; a missing or unreadable file is bad input. */
export function readInput(io: CliIo, path: string, what: string): string {
  try {
    return io.readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new UsageError(`cannot read ${what} ${path}: ${why}`);
  }
}

/** Writes an output file; failing to write is bad input too (a wrong path). */
export function writeOutput(io: CliIo, path: string, text: string, what: string): void {
  try {
    io.writeFile(path, text);
  } catch (e) {
    throw new UsageError(`cannot write ${what} ${path}: ${(e as Error).message}`);
  }
}

export function fileLabel(path: string): string {
  return basename(path);
}
