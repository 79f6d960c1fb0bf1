/** A CliIo in memory: captured stdout/stderr, files in a record, and an interrupt the test can trigger. */
import type { CliIo } from '../../../src/cli/io';

export interface MemoryIo {
  io: CliIo;
  out(): string;
  err(): string;
  files: Record<string, string>;
  interrupt(): void;
}

/** `live`: the clock and jitter source live commands run on (CliIo.clock, .rand); absent: wall-clock time and Math.random. */
export function memoryIo(files: Record<string, string> = {}, live: Pick<CliIo, 'clock' | 'rand'> = {}): MemoryIo {
  const out: string[] = [];
  const err: string[] = [];
  let interrupt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readFile: (p) => {
      if (!(p in files)) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
      return files[p];
    },
    writeFile: (p, t) => void (files[p] = t),
    interrupted: () => interrupted,
    ...live,
  };
  return { io, out: () => out.join(''), err: () => err.join(''), files, interrupt };
}
