/**
 * Comparison of two notification logs.
 *
 * v2 (docs/notification-log-v2.md; used whenever the expected log carries `t`): the whole merged
 * stream, line by line, exactly — order, virtual times, every request parameter including
 * timeoutSeconds, object digests, synced, the final store.
 *
 * v1 (contracts §2 / docs/scenario-format.md): the request lines in order (timeoutSeconds
 * ignored), per handler its notify lines in order, whether synced appears, and the divergence
 * lines in order.
 */
import type { LogLine, NotifyLine } from '../../src/scenario/notificationLog';
import { canonicalJson } from '../../src/scenario/objectDigest';

export interface Mismatch {
  /** What was compared: "requests", "handler main", "synced", "divergences". */
  aspect: string;
  /** Readable diff lines: "- " only expected, "+ " only ours, "  " both. */
  diff: string[];
}

/** Canonical text of a line for comparison: sorted keys, timeoutSeconds dropped. */
function canonical(line: LogLine): string {
  const rest: Record<string, unknown> = { ...line };
  delete rest.timeoutSeconds;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

/** Whether a log is v2: every v2 line carries its virtual time. */
export function isV2Log(log: readonly LogLine[]): boolean {
  return log.length > 0 && log.every((l) => typeof l.t === 'number');
}

/** Canonical text of a whole v2 line: keys sorted at every depth, nothing dropped. */
function canonicalV2(line: LogLine): string {
  return canonicalJson(line);
}

/** v2: the two streams must be equal line by line. */
export function compareLogsV2(expected: readonly LogLine[], actual: readonly LogLine[]): Mismatch[] {
  const e = expected.map(canonicalV2);
  const a = actual.map(canonicalV2);
  if (e.length === a.length && e.every((x, i) => x === a[i])) return [];
  return [{ aspect: 'stream', diff: lineDiff(e, a) }];
}

/**
 * The logs of an expected file: one or more runs of client-go, each ending with its `end` line
 * (an oracle run several times stores every distinct log it produced; docs/notification-log-v2.md).
 */
export function splitVariants(log: readonly LogLine[]): LogLine[][] {
  const out: LogLine[][] = [];
  let cur: LogLine[] = [];
  for (const l of log) {
    cur.push(l);
    if (l.kind === 'end') {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length || out.length === 0) out.push(cur);
  return out;
}

/**
 * Ours against the set of logs client-go can produce: a match with any variant passes; otherwise
 * the mismatches against the variant with the fewest differing lines.
 */
export function compareWithVariants(variants: readonly (readonly LogLine[])[], actual: readonly LogLine[]): Mismatch[] {
  let best: Mismatch[] | undefined;
  let bestScore = Infinity;
  for (const v of variants) {
    const m = compareLogs(v, actual);
    if (m.length === 0) return [];
    const score = m.reduce((n, x) => n + x.diff.filter((d) => !d.startsWith('  ')).length, 0);
    if (score < bestScore) {
      best = m;
      bestScore = score;
    }
  }
  if (best && variants.length > 1) best.unshift({ aspect: `none of the ${variants.length} logs client-go produced; closest`, diff: [] });
  return best ?? [];
}

export function compareLogs(expected: readonly LogLine[], actual: readonly LogLine[]): Mismatch[] {
  if (isV2Log(expected)) return compareLogsV2(expected, actual);
  const mismatches: Mismatch[] = [];
  const check = (aspect: string, pick: (l: LogLine) => boolean) => {
    const e = expected.filter(pick).map(canonical);
    const a = actual.filter(pick).map(canonical);
    if (e.length !== a.length || e.some((x, i) => x !== a[i])) mismatches.push({ aspect, diff: lineDiff(e, a) });
  };
  check('requests', (l) => l.kind === 'request');
  const handlers = new Set<string>();
  for (const l of [...expected, ...actual]) if (l.kind === 'notify') handlers.add(l.handler);
  for (const h of [...handlers].sort()) check(`handler ${h}`, (l) => l.kind === 'notify' && (l as NotifyLine).handler === h);
  const es = expected.some((l) => l.kind === 'synced');
  const as = actual.some((l) => l.kind === 'synced');
  if (es !== as) mismatches.push({ aspect: 'synced', diff: [es ? '- {"kind":"synced"}' : '+ {"kind":"synced"}'] });
  check('divergences', (l) => l.kind === 'divergence');
  return mismatches;
}

/** Longest-common-subsequence diff; runs of more than 4 equal lines are shortened. */
export function lineDiff(expected: readonly string[], actual: readonly string[]): string[] {
  const n = expected.length;
  const m = actual.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = expected[i] === actual[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && expected[i] === actual[j]) {
      out.push(`  ${expected[i]}`);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push(`+ ${actual[j++]}`);
    } else {
      out.push(`- ${expected[i++]}`);
    }
  }
  return shortenEqualRuns(out);
}

function shortenEqualRuns(lines: string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 4) out.push(run[0], `  … ${run.length - 2} equal lines …`, run[run.length - 1]);
    else out.push(...run);
    run = [];
  };
  for (const l of lines) {
    if (l.startsWith('  ')) run.push(l);
    else {
      flush();
      out.push(l);
    }
  }
  flush();
  return out;
}

export function formatMismatches(mismatches: readonly Mismatch[]): string {
  return mismatches
    .map((m) => (m.diff.length === 0 ? `  ${m.aspect}:` : `  ${m.aspect} differ (- expected from client-go, + ours):\n${m.diff.map((d) => `    ${d}`).join('\n')}`))
    .join('\n');
}
