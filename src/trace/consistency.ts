/**
 * The cache consistency check: a consistent LIST (resourceVersion "", paginated 500 at a time, a
 * GET like everything else) compared with the informer's Indexer. It finds objects the server has
 * and the cache lacks, objects the cache still holds after the server deleted them (the lost-delete
 * symptom, etcd PR 17555), and objects whose cached resourceVersion lags the server's.
 *
 * A live informer is always a little behind, so a difference seen once is not yet a finding:
 * each round first lets the informer catch up to the list's RV (when RVs are numeric), and a
 * difference is reported only if a second round, confirmDelayMs later, sees the same thing.
 * The result is emitted as one 'consistency.check' event, which the stale-cache finding reads.
 */
import type { Clock } from '../engine/clock';
import type { EventOf, EventSink } from '../format/events';
import type { ListerWatcher, ObjectList } from '../engine/listWatch';
import { isTombstone, type KubeObject, type StoreObject } from '../engine/objects';

export const CONSISTENCY_PAGE_SIZE = 500;
const CATCH_UP_POLL_MS = 100;

export interface ConsistencyCheckOptions {
  listerWatcher: ListerWatcher;
  /** The informer's Indexer (or anything that lists the cached objects). */
  cache: { list(): StoreObject[] };
  clock: Clock;
  sink: EventSink;
  signal?: AbortSignal;
  labelSelector?: string;
  fieldSelector?: string;
  /** The informer's lastSyncResourceVersion: each round waits (≤ catchUpMs) until it reaches the list RV. */
  lastSyncResourceVersion?: () => string;
  /** Default 5000. */
  catchUpMs?: number;
  /** Pause before the confirming round; default 2000. 0 or less: report the first round as is. */
  confirmDelayMs?: number;
  /** Default 500. */
  pageSize?: number;
}

export type ConsistencyResult = Omit<EventOf<'consistency.check'>, 't' | 'type'> & { serverObjects: number; cachedObjects: number };

interface Round {
  rv: string;
  missing: Map<string, string>;
  extra: Set<string>;
  mismatch: Map<string, { cached: string; server: string }>;
  serverObjects: number;
  cachedObjects: number;
}

function keyOf(o: KubeObject): string {
  const m = o.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

function rvOf(o: KubeObject): string {
  return o.metadata?.resourceVersion ?? '';
}

/** a is at or past b; false when either is not a number (RVs are opaque unless numeric). */
function reached(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) >= BigInt(b);
}

async function consistentList(o: ConsistencyCheckOptions, signal: AbortSignal): Promise<{ rv: string; items: KubeObject[] }> {
  const items: KubeObject[] = [];
  let rv = '';
  let cont: string | undefined;
  do {
    const page: ObjectList = await o.listerWatcher.list(
      {
        resourceVersion: '',
        limit: o.pageSize ?? CONSISTENCY_PAGE_SIZE,
        ...(cont ? { continue: cont } : {}),
        ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
        ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
      },
      signal,
    );
    if (!cont) rv = page.metadata.resourceVersion ?? '';
    items.push(...page.items);
    cont = page.metadata.continue || undefined;
  } while (cont);
  return { rv, items };
}

async function round(o: ConsistencyCheckOptions, signal: AbortSignal): Promise<Round> {
  const server = await consistentList(o, signal);
  const deadline = o.clock.now() + (o.catchUpMs ?? 5000);
  while (o.lastSyncResourceVersion && !reached(o.lastSyncResourceVersion(), server.rv) && o.clock.now() < deadline) {
    await o.clock.sleep(CATCH_UP_POLL_MS, signal);
  }
  const cached = new Map<string, string>();
  for (const obj of o.cache.list()) if (!isTombstone(obj)) cached.set(keyOf(obj), rvOf(obj));
  const r: Round = { rv: server.rv, missing: new Map(), extra: new Set(), mismatch: new Map(), serverObjects: server.items.length, cachedObjects: cached.size };
  const onServer = new Set<string>();
  for (const obj of server.items) {
    const key = keyOf(obj);
    onServer.add(key);
    const c = cached.get(key);
    if (c === undefined) r.missing.set(key, rvOf(obj));
    // A cache ahead of the list (an event after the list RV) is not stale.
    else if (c !== rvOf(obj) && !reached(c, rvOf(obj))) r.mismatch.set(key, { cached: c, server: rvOf(obj) });
  }
  for (const key of cached.keys()) if (!onServer.has(key)) r.extra.add(key);
  return r;
}

function differs(r: Round): boolean {
  return r.missing.size + r.extra.size + r.mismatch.size > 0;
}

/** What both rounds saw the same way: same key, and for the server side the same RV. */
function confirmed(first: Round, second: Round): Round {
  const out: Round = { ...second, missing: new Map(), extra: new Set(), mismatch: new Map() };
  for (const [k, rv] of second.missing) if (first.missing.get(k) === rv) out.missing.set(k, rv);
  for (const k of second.extra) if (first.extra.has(k)) out.extra.add(k);
  for (const [k, m] of second.mismatch) if (first.mismatch.get(k)?.server === m.server) out.mismatch.set(k, m);
  return out;
}

/** Runs the check, emits 'consistency.check', and returns what it found. List errors reject. */
export async function checkConsistency(o: ConsistencyCheckOptions): Promise<ConsistencyResult> {
  const signal = o.signal ?? new AbortController().signal;
  let result = await round(o, signal);
  const confirmDelayMs = o.confirmDelayMs ?? 2000;
  if (differs(result) && confirmDelayMs > 0) {
    await o.clock.sleep(confirmDelayMs, signal);
    result = confirmed(result, await round(o, signal));
  }
  const found = {
    rv: result.rv,
    missing: [...result.missing.keys()].sort(),
    extra: [...result.extra].sort(),
    rvMismatch: [...result.mismatch.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, m]) => ({ key, ...m })),
  };
  o.sink.emit({ t: o.clock.now(), type: 'consistency.check', ...found });
  return { ...found, serverObjects: result.serverObjects, cachedObjects: result.cachedObjects };
}
