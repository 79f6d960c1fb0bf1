/**
 * The soak's command line (`npm run soak -- …`, see soak.ts) and its fixed choices: the profiles
 * it runs side by side and the namespace it writes in.
 */
import * as path from 'node:path';

function num(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) {
    console.error(`soak: --${name} needs a number, got ${process.argv[i + 1]}`);
    process.exit(2);
  }
  return v;
}

function str(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
}

export const OPTS = {
  restarts: num('restarts', 100),
  compactions: num('compactions', 20),
  resets: num('resets', 1000),
  /** Connection resets per fault: 1,000 resets are 100 faults. */
  resetsPerGroup: Math.max(1, Math.floor(num('resets-per-group', 10))),
  bursts: num('bursts', 20),
  /** Faults during which the server's address refuses every connect (ECONNREFUSED) for 3–5 s. */
  refusals: num('refusals', 10),
  objects: num('objects', 300),
  seed: num('seed', 1),
  out: str('out', path.resolve(__dirname, '../../docs/soak')),
  maxGrowth: num('max-growth', 0.1),
  settleTimeoutMs: num('settle-timeout-s', 180) * 1000,
  cap: num('cap', 20_000),
  /** Stop injecting faults after this many minutes (0 = none) and finish with what was done. */
  deadlineMin: num('deadline-min', 0),
};

export const PROFILES = ['v1.15', 'v1.32', 'v1.36'];
export const NS = 'soak';
