/**
 * What the recorder adds per watch event apart from its window, measured alone on the peer
 * benchmark's Pods (bench/peers writes them under the OS temp directory: run `npm run bench:peers`
 * once first): the update comparison of a Pod against its next version (compareUpdate of two lazy
 * objects, as decoded by src/kube), the redaction of the seven trace events a watch event makes
 * (their shapes, in turn), the bytes the trace holds per update's diff (heap after GC), and the
 * comparisons along each Pod's versions as the engine makes them (the object compared as the new
 * side is the old side of the Pod's next update: the comparison's record of its last differences,
 * src/engine/diffGuess.ts, in use; objects decoded afresh each round, not timed). Each
 * with the working tree's src/ and, with --baseline, a revision's, interleaved; CPU time, best of
 * the rounds.
 *
 *   node --expose-gc --import tsx bench/recorderPath.ts [--baseline REV] [--rounds 5]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../src/engine/objects';
import type { TraceEvent } from '../src/format/events';
import { REPO, unpackRevision } from './baseline';

const WORKLOAD = join(tmpdir(), 'informer-inspector-peers-10000-50000');
const PAIRS = 10_000;

interface Tree {
  compareUpdate: typeof import('../src/engine/diff').compareUpdate;
  redactEvent: typeof import('../src/trace/redact').redactEvent;
  decodeFrame: typeof import('../src/kube/watchStream').decodeFrame;
}

function tree(root: string): Tree {
  const load = (p: string) => require(join(root, 'src', p));
  return { compareUpdate: load('engine/diff.ts').compareUpdate, redactEvent: load('trace/redact.ts').redactEvent, decodeFrame: load('kube/watchStream.ts').decodeFrame };
}

/** CPU ns per call of f over n items, best of `rounds`. */
function cpuNs(rounds: number, n: number, f: (i: number) => unknown): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f(i);
    const c = process.cpuUsage(c0);
    best = Math.min(best, ((c.user + c.system) * 1000) / n);
  }
  return best;
}

const ctx = { resource: { group: '', resource: 'pods', kind: 'Pod' } };

/** The seven trace events of one watch event of the workload (the engine's shapes and field order). */
function traceEvents(i: number, key: string, diff: unknown): TraceEvent[] {
  const [rv, oldRv, t] = [String(20001 + i), String(10001 + i), 1000 + i * 0.37];
  const notify = (handler: string) => ({ t, type: 'notify', handler, key, pending: 1, op: 'update', rv, oldRv, isSync: false, change: 'status' });
  return [
    { t, type: 'watch.event', eventType: 'MODIFIED', key, rv, accepted: true },
    { t, type: 'rv', rv, source: 'watch' },
    { t, type: 'fifo.enqueue', key, delta: 'Updated', rv, depthKeys: 1, depthDeltas: 1 },
    { t, type: 'fifo.pop', key, deltas: ['Updated'], isInInitialList: false, depthKeys: 0, depthDeltas: 0 },
    { t, type: 'distribute', op: 'update', key, isSync: false, delivered: 2, skipped: 0, change: 'status', diff, oldRv, rv },
    notify('handler-0'),
    notify('handler-1'),
  ] as TraceEvent[];
}

/** The first VERSIONS × PAIRS watch events' lines: event i and event i + PAIRS are one Pod's consecutive versions. */
const VERSIONS = 4;
let watchLines: string[] | undefined;

/** The first `versions` × PAIRS watch events' objects, decoded by the tree. */
function podVersions(t: Tree, versions = 2): KubeObject[] {
  watchLines ??= readFileSync(join(WORKLOAD, 'watch.json'), 'utf8').split('\n', VERSIONS * PAIRS);
  return watchLines.slice(0, versions * PAIRS).map((l) => (t.decodeFrame(l) as { object: KubeObject }).object);
}

/** CPU ns per comparison of each event's object against its Pod's previous version, in event order; best of `rounds`. */
function chainNs(t: Tree, rounds: number): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const objects = podVersions(t, VERSIONS);
    const c0 = process.cpuUsage();
    for (let j = PAIRS; j < objects.length; j++) t.compareUpdate(objects[j - PAIRS], objects[j]);
    const c = process.cpuUsage(c0);
    best = Math.min(best, ((c.user + c.system) * 1000) / (objects.length - PAIRS));
  }
  return best;
}

function measure(t: Tree, rounds: number): { compare: number; chain: number; redact: number; heldBytes: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const objects = podVersions(t);
  const held: unknown[] = [];
  gc();
  const h0 = process.memoryUsage().heapUsed;
  for (let i = 0; i < PAIRS; i++) held.push(t.compareUpdate(objects[i], objects[i + PAIRS]).diff);
  gc();
  const heldBytes = (process.memoryUsage().heapUsed - h0) / PAIRS;
  const compare = cpuNs(rounds, PAIRS, (i) => t.compareUpdate(objects[i], objects[i + PAIRS]));
  const events = objects.slice(0, PAIRS).flatMap((o, i) => traceEvents(i, `${o.metadata?.namespace}/${o.metadata?.name}`, held[i]));
  const redact = cpuNs(rounds, events.length, (i) => t.redactEvent(events[i], ctx));
  return { compare, chain: chainNs(t, rounds), redact, heldBytes };
}

function main(): void {
  const argv = process.argv.slice(2);
  const at = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const revision = at('--baseline');
  const rounds = Number(at('--rounds') ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('usage: recorderPath.ts [--baseline REV] [--rounds N]');
  if (!existsSync(join(WORKLOAD, 'watch.json'))) throw new Error(`no workload in ${WORKLOAD}: run npm run bench:peers once first`);
  const unpacked = revision ? unpackRevision(revision) : undefined;
  // src/format/tool.ts reads the version from ../../package.json.
  if (unpacked) writeFileSync(join(unpacked.root, 'package.json'), execFileSync('git', ['-C', REPO, 'show', `${revision}:package.json`]));
  try {
    const trees: [string, Tree][] = [['working tree', tree(REPO)]];
    if (unpacked) trees.push([revision as string, tree(unpacked.root)]);
    console.log(`Node ${process.version}; ${PAIRS} Pod updates of the peers workload; CPU ns, best of ${rounds} rounds; each tree measured twice, interleaved`);
    console.log(
      '| src | compareUpdate ns per update | along the versions (ns per update) | redactEvent ns per trace event (7 shapes) | bytes held per update diff |\n| --- | --- | --- | --- | --- |',
    );
    for (let pass = 0; pass < 2; pass++) {
      for (const [name, t] of trees) {
        const m = measure(t, rounds);
        console.log(`| ${name} | ${m.compare.toFixed(0)} | ${m.chain.toFixed(0)} | ${m.redact.toFixed(0)} | ${m.heldBytes.toFixed(0)} |`);
      }
    }
  } finally {
    unpacked?.remove();
  }
}

main();
