/**
 * Mutation testing of the conformance judge: each named mutant is a small text patch to
 * src/engine (or to the HTTP path below it in src/kube, which the judge runs), applied to a temporary copy of the repository; the engine side of the conformance
 * corpus then runs against the stored expected logs (real client-go, notification log v2). A
 * mutant is KILLED when some run fails, SURVIVES when all pass. Every edit is anchored on a snippet
 * that must occur exactly once in its file; when it does not (the code moved or changed), the
 * mutant is NOT APPLIED and the run fails loudly, so whoever changed the engine updates the anchor.
 *
 *   npx tsx test/conformance/mutants.ts [--sample] [--only NAME]... [--list]
 *
 * --sample runs the fixed sample of SAMPLE (the `npm test` stage); the default runs all.
 * Exit 0 only when every mutant applied was killed or is listed in EQUIVALENT (argued in
 * docs/conformance-findings.md) and every mutant applied.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

interface Edit {
  find: string;
  replace: string;
}

export interface Mutant {
  name: string;
  /** Path under src/engine (`../kube/…` for the HTTP path below it). */
  file: string;
  edits: Edit[];
  /** What the mutant breaks (the client-go behaviour it stands for). */
  what: string;
}

const m = (name: string, file: string, what: string, ...edits: [string, string][]): Mutant => ({
  name,
  file,
  what,
  edits: edits.map(([find, replace]) => ({ find, replace })),
});

export const MUTANTS: Mutant[] = [
  // ---- backoff ----
  m('backoff-factor-1', 'backoff.ts', 'backoff never grows', ['export const BACKOFF_FACTOR = 2;', 'export const BACKOFF_FACTOR = 1;']),
  m('backoff-factor-3', 'backoff.ts', 'backoff grows ×3', ['export const BACKOFF_FACTOR = 2;', 'export const BACKOFF_FACTOR = 3;']),
  m('backoff-cap-60s', 'backoff.ts', 'cap 60 s instead of 30 s', ['export const BACKOFF_CAP_MS = 30_000;', 'export const BACKOFF_CAP_MS = 60_000;']),
  m('backoff-init-1s', 'backoff.ts', 'initial delay 1 s instead of 800 ms', ['export const BACKOFF_INIT_MS = 800;', 'export const BACKOFF_INIT_MS = 1000;']),
  m('jitter-none', 'backoff.ts', 'jitter drawn but not applied', ['return durationMs + rand() * f * durationMs;', 'return durationMs + 0 * rand() * f * durationMs;']),
  m('jitter-half', 'backoff.ts', 'jitter factor halved', ['const f = factor <= 0 ? 1 : factor;', 'const f = factor <= 0 ? 1 : factor / 2;']),
  m('backoff-reset-window-60s', 'backoff.ts', 'reset window 1 min instead of 2', ['export const BACKOFF_RESET_MS = 120_000;', 'export const BACKOFF_RESET_MS = 60_000;']),
  m('v036-uses-quiet-reset', 'profiles.ts', 'v1.36 on the ≤v0.35 reset rule', ["    backoff: 'delay-with-reset',", "    backoff: 'quiet-reset',"]),
  m(
    'quiet-reset-remembers-only-on-reset',
    'backoff.ts',
    '≤v0.35 manager remembers the start only when it resets (the v0.36 rule)',
    ['    if (reset) this.delay.restore();\n    this.lastBackoffStart = now;', '    if (reset) {\n      this.delay.restore();\n      this.lastBackoffStart = now;\n    }'],
  ),
  m('delay-with-reset-never-restores', 'backoff.ts', 'v0.36 reset does not restore the sequence', ['    if (reset) {\n      this.delay.restore();\n      this.lastStart = now;', '    if (reset) {\n      this.lastStart = now;']),
  m('v115-period-2s', 'backoff.ts', 'v1.15 wait.Until period 2 s', ['export const FIXED_PERIOD_MS = 1000;', 'export const FIXED_PERIOD_MS = 2000;']),
  m('handle-error-sleep-off', 'profiles.ts', "v0.32's 1 ms HandleError sleep left out", ["    logStyle: 'printf',\n    handleErrorSleepMs: 1,", "    logStyle: 'printf',\n    handleErrorSleepMs: 0,"]),
  // ---- watch handling ----
  m('very-short-threshold-500ms', 'watchHandling.ts', 'very-short-watch threshold 500 ms', ['export const VERY_SHORT_WATCH_MS = 1000;', 'export const VERY_SHORT_WATCH_MS = 500;']),
  m('very-short-ignores-events', 'watchHandling.ts', 'a short watch with events counts as very short', ['< VERY_SHORT_WATCH_MS && eventCount === 0)', '< VERY_SHORT_WATCH_MS && eventCount >= 0)']),
  m('very-short-timer-after-open', 'profiles.ts', "very-short-watch clock starts once the watch opened on v0.32+ (1.15's rule)", ["  veryShortWatchClockStarts: 'before-request',", "  veryShortWatchClockStarts: 'after-open',"]),
  m('v115-very-short-timer-before-request', 'profiles.ts', "1.15's very-short-watch clock starts before the request", ["    veryShortWatchClockStarts: 'after-open',", "    veryShortWatchClockStarts: 'before-request',"]),
  m('v136-table-never-skipped', 'profiles.ts', 'v0.36 applies Table objects of a watch', ["    skipsTableWatchObjects: 'always',", "    skipsTableWatchObjects: 'never',"]),
  m('v134-table-never-skipped', 'profiles.ts', 'v0.34 applies Table objects of the initial watch-list', ["    skipsTableWatchObjects: 'initial-watch-list',", "    skipsTableWatchObjects: 'never',"]),
  m('table-always-skipped', 'profiles.ts', 'v0.32 and 1.15 skip Table objects of a watch', ["  skipsTableWatchObjects: 'never',", "  skipsTableWatchObjects: 'always',"]),
  m('bookmark-no-rv-advance', 'watchHandling.ts', 'a BOOKMARK does not move the RV', ["req.setResourceVersion(rv, event.type === 'BOOKMARK' ? 'bookmark' : 'event');", "if (event.type !== 'BOOKMARK') req.setResourceVersion(rv, 'event');"]),
  m('rv-ordering-guard-off', 'watchHandling.ts', "v0.36's RV ordering guard off", ['if (!ctx.rvOrderingGuard || req.propagateRVFromStart || eventReceivedBesidesAdded) {', 'if (true) {']),
  m('initial-events-end-ignored', 'watchHandling.ts', 'the initial-events-end annotation is never recognised', ["[INITIAL_EVENTS_END_ANNOTATION] === 'true';", "[INITIAL_EVENTS_END_ANNOTATION] === 'yes';"]),
  // ---- relist reasons (spec §1.10 rows) ----
  m('row6-refused-open-relists', 'errors.ts', 'row 6: a refused watch open relists', ["retriable ? { row: WatchEnd.RefusedOnOpen, outcome: 'rewatch-after-backoff' }", "retriable ? { row: WatchEnd.RefusedOnOpen, outcome: 'relist', reason: 'ConnectionRefused' }"]),
  m('row14-429-open-relists', 'errors.ts', 'row 14: a 429 watch open relists', ["retriable ? { row: WatchEnd.TooManyRequestsOnOpen, outcome: 'rewatch-after-backoff' }", "retriable ? { row: WatchEnd.TooManyRequestsOnOpen, outcome: 'relist', reason: 'TooManyRequests' }"]),
  m('row10-410-open-rewatches', 'errors.ts', 'row 10: a 410 watch open re-watches', ["if (isExpiredOrGone(err)) return { row: WatchEnd.ExpiredStatus, outcome: 'relist', reason:", "if (isExpiredOrGone(err)) return { row: WatchEnd.ExpiredStatus, outcome: 'rewatch-after-backoff', reason:"]),
  m('row9-410-event-rewatches', 'errors.ts', 'row 9: a 410 ERROR event re-watches', ["if (isExpiredOrGone(err)) return { row: WatchEnd.ExpiredEvent, outcome: 'relist', reason:", "if (isExpiredOrGone(err)) return { row: WatchEnd.ExpiredEvent, outcome: 'rewatch', reason:"]),
  m('row15-429-event-relists', 'errors.ts', 'row 15: a 429 ERROR event relists on every line', ["return profile.tooManyRequestsRewatches\n      ? { row: WatchEnd.TooManyRequestsEvent", "return false\n      ? { row: WatchEnd.TooManyRequestsEvent"]),
  m('row17-internal-error-always-rewatches', 'errors.ts', 'row 17: InternalError re-watches without the retry window', ["if (internalErrorRetry()) return { row: WatchEnd.InternalErrorEvent, outcome: 'rewatch' };", "return { row: WatchEnd.InternalErrorEvent, outcome: 'rewatch' };"]),
  m('row3-unexpected-eof-relists', 'errors.ts', 'row 3: an unexpected EOF relists', ["      return { row: WatchEnd.UnexpectedEOF, outcome: 'rewatch' };", "      return { row: WatchEnd.UnexpectedEOF, outcome: 'relist', reason: 'Other' };"]),
  m('row4-reset-relists', 'errors.ts', 'row 4: a reset/timeout mid-stream relists', ["      return { row: WatchEnd.ResetOrClientTimeout, outcome: 'rewatch' };", "      return { row: WatchEnd.ResetOrClientTimeout, outcome: 'relist', reason: 'Other' };"]),
  // ---- relist resourceVersion, pager ----
  m('relist-rv-always-0', 'reflector.ts', 'relists always at RV "0"', ["    if (this.profile.relistAtZero) return '0';", "    return '0';"]),
  m('relist-rv-ignores-unavailable', 'reflector.ts', 'no consistent relist after Expired/TooLarge', ["    if (this.rvUnavailable) return '';\n    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;", "    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;"]),
  m('watch-timeout-ceil', 'reflector.ts', 'timeoutSeconds rounded up', ['watchTimeoutSeconds: () => Math.floor(MIN_WATCH_TIMEOUT_S * (this.rand() + 1)),', 'watchTimeoutSeconds: () => Math.ceil(MIN_WATCH_TIMEOUT_S * (this.rand() + 1)),']),
  m('pager-limit-250', 'pager.ts', 'page size 250', ['export const DEFAULT_PAGE_SIZE = 500;', 'export const DEFAULT_PAGE_SIZE = 250;']),
  m('pager-specific-rv-paginated', 'reflectorList.ts', 'a list at a specific RV is paginated', ["  if (rv !== '' && rv !== '0') return 0;\n", '']),
  m('pager-expired-continue-fails', 'pager.ts', 'an expired continue token fails the list', ['if (!isExpired(err) || (!options.continue && !legacy)) throw err;', 'throw err;']),
  m('pager-never-sticky', 'reflectorList.ts', 'pagination never becomes sticky', ["    if (rv === '0' && result.paginated) this.paginatedResult = true;\n", '']),
  m('list-no-consistent-retry', 'reflectorList.ts', 'no immediate consistent retry after Expired/TooLarge', ['if (ctx.profile.relistAtZero || !(isExpiredOrGone(err) || tooLarge)) throw err;', 'throw err;']),
  // ---- FIFOs and the informer ----
  m('deltafifo-delete-dedup-off', 'deltaFifo.ts', 'DeltaFIFO never merges two deletes', ["if (older.type !== 'Deleted' || newer.type !== 'Deleted') return undefined;", 'return undefined;']),
  m('deltafifo-dedup-keeps-older-tombstone', 'deltaFifo.ts', 'dedup keeps a tombstone over a real delete', ['const keepNewer = isTombstone(older.object);', 'const keepNewer = false;']),
  m('deltafifo-replace-no-known-tombstones', 'deltaFifo.ts', 'DeltaFIFO Replace queues no tombstones for known keys', ['      if (newKeys.has(key) || this.items.has(key)) continue;\n      this.queueAction(', '      continue;\n      this.queueAction(']),
  m('deltafifo-queues-unknown-delete', 'deltaFifo.ts', 'a delete of an unknown key is queued', ['if (!known && !this.items.has(key)) {', 'if (false) {']),
  m('v115-initial-population-distinct-keys', 'deltaFifo.ts', '1.15 counts distinct keys as the initial population', ['(this.o.initialPopulationCountsListItems ? list.length : newKeys.size)', '(newKeys.size)']),
  m('realfifo-replace-no-known-tombstones', 'realFifo.ts', 'RealFIFO Replace queues no tombstones for known keys', ['      if (newKeys.has(key) || lastQueued.has(key)) continue;', '      continue;']),
  m('atomic-replace-drops-tombstones', 'sharedInformer.ts', 'atomic ReplacedAll notifies no deletes', ['    for (const t of tombstones) this.onDelete(t);\n', '']),
  m('atomic-fifo-off', 'realFifo.ts', 'AtomicFIFO Replace enqueues per object', ["    if (this.o.atomic) {\n      const objects = list.map((o) => this.transformed('Replaced', o) as KubeObject);", "    if (false) {\n      const objects = list.map((o) => this.transformed('Replaced', o) as KubeObject);"]),
  m('realfifo-resync-no-busy-skip', 'realFifo.ts', 'RealFIFO resync does not skip keys with queued entries', ['      if (keysInLog.has(key)) {', '      if (false) {']),
  m('resync-due-one-ms-late', 'processorListener.ts', 'a listener is due 1 ms after its resync time', ['return this.resyncPeriodMs !== 0 && now >= this.nextResyncMs;', 'return this.resyncPeriodMs !== 0 && now >= this.nextResyncMs + 1;']),
  m('min-resync-500ms', 'sharedInformer.ts', 'minimum resync period 500 ms', ['export const MINIMUM_RESYNC_PERIOD_MS = 1000;', 'export const MINIMUM_RESYNC_PERIOD_MS = 500;']),
  m('is-in-initial-list-false', 'sharedInformer.ts', 'isInInitialList always false', ['const initial = this.o.profile.hasInitialListFlag && isInInitialList;', 'const initial = this.o.profile.hasInitialListFlag && false;']),
  // ---- the REST client below the reflector (restRetries.ts: the HTTP request layer and the scripted server) ----
  m('rest-retry-after-ignored', 'restRetries.ts', 'a 429/5xx Retry-After is not retried by the REST client', ['return end.retryAfterSeconds === undefined ? undefined : Math.max(0, end.retryAfterSeconds) * 1000;', 'return undefined;']),
  m('rest-list-reset-not-retried', 'restRetries.ts', 'a reset LIST fails at once (v0.32+)', ["if (verb === 'list') return network === 'connection-reset' || network === 'eof';", "if (verb === 'list') return network === 'eof';"]),
  m('rest-v115-retries-10', 'restRetries.ts', '1.15 REST client retries 10 times like v0.32+', ['return client.restRetriesWatchOpen ? 10 : 9;', 'return 10;']),
  m('rest-watch-open-retry-2s', 'restRetries.ts', 'watch-open retries 2 s apart', ['return retryableError(modern, verb, end.network) ? 1000 : undefined;', "return retryableError(modern, verb, end.network) ? (verb === 'watch' ? 2000 : 1000) : undefined;"]),
  // ---- the HTTP path below the reflector (src/kube: the request layer, HTTP client, decoding) ----
  m('http-gzip-ignored', '../kube/http.ts', 'a Content-Encoding: gzip body is not decompressed', ["if (enc === 'gzip') {", "if (enc === 'gzip-ignored') {"]),
  m('http-status-body-ignored', '../kube/http.ts', "an error answer's Status body is ignored (generic server response error)", ["if (parsed && typeof parsed === 'object' && parsed.kind === 'Status' && parsed.status === 'Failure') {", 'if (parsed && false) {']),
  m('rest-request-no-wait', '../kube/restRequest.ts', 'the request layer retries without the Retry-After / 1 s wait', ['await this.o.clock.sleep(wait, signal);', 'await this.o.clock.sleep(0, signal);']),
  m(
    'rest-retry-after-body-read',
    '../kube/listerWatcher.ts',
    'a LIST whose error body cannot be read fails before the retry is decided',
    ['      if (!isSuccess(res.status) && (await retry.again(statusEnd(res), signal))) continue;\n      if (body instanceof Error) throw body;', '      if (body instanceof Error) throw body;\n      if (!isSuccess(res.status) && (await retry.again(statusEnd(res), signal))) continue;'],
  ),
  m('v115-stream-timeout-quiet', '../kube/listerWatcher.ts', "1.15's StreamWatcher closes quietly on a read timeout (no ERROR event)", ['return this.restClient.restRetriesWatchOpen ? w : new TimeoutAsErrorEvent(w);', 'return w;']),
  m('go-map-appends-readded-key', 'goMap.ts', "the store's map order ignores Go's slot reuse (a re-added key goes last)", ['    if (this.slots) this.slots[this.slots.indexOf(key)] = undefined;', '    if (this.slots) {\n      this.slots.splice(this.slots.indexOf(key), 1);\n      this.slots.push(undefined);\n    }']),
  m('rv-equal-sync-rule-off', 'sharedInformer.ts', 'relisted updates with equal RVs are not syncs', [': resourceVersionOf(oldObj) === resourceVersionOf(newObj);', ': false;']),
  // ---- transforms, indexers, handler removal (scenario extensions) ----
  m('transform-off', 'fifoSupport.ts', 'SetTransform ignored', ['    if (!t || type === \'Sync\' || isTombstone(obj)) return obj;', '    return obj;']),
  m('transform-on-sync', 'fifoSupport.ts', 'a resync Sync is transformed again', ["    if (!t || type === 'Sync' || isTombstone(obj)) return obj;", '    if (!t || isTombstone(obj)) return obj;']),
  m('transform-at-pop', 'sharedInformer.ts', 'the transform runs when a delta is popped (also on Syncs), not when it is queued', ['      transform: this.o.transform,\n', ''], ['          const obj = d.object as KubeObject;', '          const obj = this.o.transform ? this.o.transform(d.object as KubeObject) : (d.object as KubeObject);']),
  m('watchlist-store-no-transform', 'profiles.ts', "v0.34+'s watch-list temporary store without the transformer", ['  watchListStoreTransforms: true,', '  watchListStoreTransforms: false,']),
  m('stop-skips-backoff-draw', 'reflector.ts', "a stopped reflector skips BackoffUntil's last Backoff() call (its jitter draw, seen by a restarted informer)", ['          this.backoffPolicy.step();\n          break;', '          break;']),
  // ---- v0.32's client-side watch-list (finding 6) ----
  m('v032-list-not-watch-list', 'profiles.ts', "v0.32's client sends the LIST as asked while WatchListClient is on", ['    listUsesWatchList: true,', '    listUsesWatchList: false,']),
  m('watchlist-client-only-rv-0', 'watchListClient.ts', 'only a LIST at RV "0" becomes a watch-list (not one at a specific RV or "" without a limit)', ["  if (o.limit && o.limit > 0 && rv !== '0') return undefined;", "  if (rv !== '0') return undefined;"]),
  m('watchlist-client-blueprint-optional', 'watchListClient.ts', 'a bookmark without the list blueprint ends the watch-list like one with it', ["  if (encoded.length === 0) throw", "  if (encoded.length === 0) return { metadata: { resourceVersion: rv }, items };\n  if (encoded.length < 0) throw"]),
  m('watchlist-client-no-order-check', 'watchListClient.ts', 'initial events out of key order are accepted', ["      if (lastKey !== '' && lastKey > key) {", "      if (lastKey !== '' && lastKey > key && key === '') {"]),
  m('watchlist-client-other-events-skipped', 'watchListClient.ts', 'a MODIFIED/DELETED initial event is skipped, not an error', ["      throw new Error(`unexpected watch event ${describeEvent(ev)}", "      if (ev) continue;\n      throw new Error(`unexpected watch event ${describeEvent(ev)}"]),
  m('watchlist-client-close-is-end', 'watchListClient.ts', 'a stream closed before the bookmark is taken as the whole list', ["    if (ev === null) throw new Error('unexpected watch close');", "    if (ev === null) return { metadata: { resourceVersion: '' }, items };"]),
  m('index-not-updated-on-delete', 'store.ts', 'a delete leaves its key in the indexes', ['    this.applyIndexChange(key, this.valuesOf(key, old), undefined);\n', '']),
  m('v115-drops-empty-index-sets', 'profiles.ts', '1.15 drops an emptied index value', ['    keepsEmptyIndexSets: true,', '    keepsEmptyIndexSets: false,']),
  m('v115-add-indexers-after-start', 'profiles.ts', '1.15 accepts AddIndexers after start', ['    addIndexersAfterStart: false,', '    addIndexersAfterStart: true,']),
  m('removed-handler-still-notified', 'sharedProcessor.ts', 'RemoveEventHandler leaves the listener in place', ['    if (!this.listeners.delete(l)) return;\n    l.stop();', '    return;']),
  m('removed-handler-keeps-buffer', 'processorListener.ts', "a removed listener still delivers what it had buffered", ['    while (this.buffer.shift() !== undefined);\n    this.wake?.();', '    this.wake?.();'], ['      if (this.stopped) return;\n      const n = this.buffer.shift();', '      if (this.stopped && this.buffer.length === 0) return;\n      const n = this.buffer.shift();']),
];

/**
 * Mutants the corpus cannot kill, with the argument (docs/conformance-findings.md, "Mutation
 * testing"). Each is killed by a unit test instead (named).
 */
export const EQUIVALENT_REASONS: Record<string, string> = {
  'row3-unexpected-eof-relists':
    'the row/outcome of a clean close is a trace label only (watch.end); the re-watch is decided by control flow, so no request or notification changes. Killed by test/unit/engine (errors classification).',
  'row4-reset-relists': 'as row3: trace label only. Killed by test/unit/engine (errors classification).',
  'realfifo-resync-no-busy-skip':
    'a resync tick inside a same-instant burst is a real race in client-go (three different logs in five oracle runs), so no deterministic scenario reaches it. Killed by test/unit/engine/realFifo.test.ts.',
};
export const EQUIVALENT = new Set(Object.keys(EQUIVALENT_REASONS));

/** The fixed sample `npm test` runs (each is killed within seconds). */
export const SAMPLE = ['backoff-factor-1', 'jitter-none', 'v036-uses-quiet-reset', 'very-short-threshold-500ms', 'v115-very-short-timer-before-request', 'bookmark-no-rv-advance', 'row6-refused-open-relists', 'relist-rv-always-0', 'pager-limit-250', 'deltafifo-dedup-keeps-older-tombstone', 'is-in-initial-list-false', 'go-map-appends-readded-key', 'transform-on-sync', 'index-not-updated-on-delete', 'removed-handler-still-notified', 'rest-retry-after-ignored', 'v032-list-not-watch-list', 'http-gzip-ignored', 'rest-retry-after-body-read'];

const ROOT = resolve(__dirname, '..', '..');

/** A scratch copy of what the engine side of the conformance run needs; node_modules linked. */
function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ii-mutants-'));
  cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(ROOT, 'test', 'conformance'), join(dir, 'test', 'conformance'), {
    recursive: true,
    filter: (p) => !p.includes(`${join('oracle', 'bin')}`),
  });
  for (const f of ['package.json', 'tsconfig.json']) if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(dir, f));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

type Verdict = 'killed' | 'survived' | 'not applied' | 'timeout' | 'error';

/** Applies every edit of a mutant to `text`; undefined (with why) when an anchor is not exactly once there. */
export function applyMutant(text: string, mutant: Mutant): { text: string } | { why: string } {
  let out = text;
  for (const e of mutant.edits) {
    const first = out.indexOf(e.find);
    if (first < 0) return { why: `anchor not found: ${JSON.stringify(e.find.slice(0, 80))}` };
    if (out.indexOf(e.find, first + 1) >= 0) return { why: `anchor found more than once: ${JSON.stringify(e.find.slice(0, 80))}` };
    out = out.slice(0, first) + e.replace + out.slice(first + e.find.length);
  }
  return { text: out };
}

function runOne(dir: string, mutant: Mutant): { verdict: Verdict; detail: string; ms: number } {
  const path = join(dir, 'src', 'engine', mutant.file);
  const original = readFileSync(join(ROOT, 'src', 'engine', mutant.file), 'utf8');
  const applied = applyMutant(original, mutant);
  if ('why' in applied) return { verdict: 'not applied', detail: applied.why, ms: 0 };
  writeFileSync(path, applied.text);
  const t0 = Date.now();
  try {
    const r = spawnSync(process.execPath, [join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(dir, 'test', 'conformance', 'run.ts'), '--quiet', '--fail-fast'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, CONFORMANCE_SHOW_LOGS: '' },
    });
    const ms = Date.now() - t0;
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    const firstFail = /^FAIL (.*)$/m.exec(out)?.[1] ?? '';
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return { verdict: 'timeout', detail: 'conformance run took > 300 s', ms };
    if (r.status === 0) return { verdict: 'survived', detail: (/\d+ passed, \d+ failed/.exec(out) ?? [''])[0], ms };
    if (r.status === 1 && firstFail) return { verdict: 'killed', detail: `by ${firstFail}`, ms };
    return { verdict: 'error', detail: `exit ${r.status}: ${out.trim().split('\n').slice(-3).join(' | ')}`, ms };
  } finally {
    writeFileSync(path, original);
  }
}

function main(): number {
  const { values } = parseArgs({ options: { sample: { type: 'boolean' }, only: { type: 'string', multiple: true }, list: { type: 'boolean' } } });
  const names = new Set(MUTANTS.map((x) => x.name));
  if (names.size !== MUTANTS.length) throw new Error('duplicate mutant names');
  for (const n of [...SAMPLE, ...EQUIVALENT, ...(values.only ?? [])]) if (!names.has(n)) throw new Error(`unknown mutant ${n}`);
  if (values.list) {
    for (const x of MUTANTS) console.log(`${x.name.padEnd(44)} ${x.file.padEnd(20)} ${x.what}`);
    return 0;
  }
  const chosen = MUTANTS.filter((x) => (values.only ? values.only.includes(x.name) : values.sample ? SAMPLE.includes(x.name) : true));
  const dir = scratchCopy();
  const counts: Record<Verdict, number> = { killed: 0, survived: 0, 'not applied': 0, timeout: 0, error: 0 };
  let bad = 0;
  try {
    // The unmutated copy must pass, or every "kill" would mean nothing.
    const base = spawnSync(process.execPath, [join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(dir, 'test', 'conformance', 'run.ts'), '--quiet', '--fail-fast'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    if (base.status !== 0) {
      console.log(`mutants: the unmutated engine does not pass conformance; fix that first\n${(base.stdout ?? '').slice(-2000)}`);
      console.log('0 passed, 1 failed');
      return 1;
    }
    for (const x of chosen) {
      const r = runOne(dir, x);
      counts[r.verdict]++;
      const equivalent = r.verdict === 'survived' && EQUIVALENT.has(x.name);
      const ok = r.verdict === 'killed' || r.verdict === 'timeout' || equivalent;
      if (!ok) bad++;
      const tag = equivalent ? 'EQUIVALENT' : r.verdict.toUpperCase();
      console.log(`${tag.padEnd(12)} ${x.name.padEnd(44)} ${(r.ms / 1000).toFixed(1).padStart(5)}s  ${equivalent ? EQUIVALENT_REASONS[x.name] : r.detail}`);
      if (r.verdict === 'killed' && EQUIVALENT.has(x.name)) console.log(`             ${x.name} is listed as equivalent but was killed: remove it from EQUIVALENT_REASONS`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const applied = chosen.length - counts['not applied'];
  const killed = counts.killed + counts.timeout;
  console.log(
    `mutants: ${chosen.length} run, ${applied} applied, ${killed} killed, ${counts.survived} survived (${[...EQUIVALENT].filter((n) => chosen.some((c) => c.name === n)).length} argued equivalent), ${counts['not applied']} NOT APPLIED, ${counts.error} errors; kill rate ${applied ? ((100 * killed) / applied).toFixed(1) : '0.0'}%`,
  );
  console.log(`${chosen.length - bad} passed, ${bad} failed`);
  return bad ? 1 : 0;
}

if (require.main === module) process.exit(main());
