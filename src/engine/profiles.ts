/**
 * Which client-go line the engine emulates. Every behavioural difference between lines that the
 * engine reproduces is a named field here, with the spec section it follows; the engine reads the
 * field, never the profile name. docs/profiles.md explains each profile for users.
 */

export type GateName =
  | 'WatchListClient'
  | 'InOrderInformers'
  | 'AtomicFIFO'
  | 'InOrderInformersBatchProcess'
  | 'UnlockWhileProcessingFIFO';

export type Gates = Record<GateName, boolean>;

export interface Profile {
  name: string;
  /** The client-go release this profile emulates. */
  clientGo: string;
  kubernetes: string;
  summary: string;
  /** Feature gate defaults of that release (§6). Scenarios and users may override them. */
  gates: Gates;
  /**
   * The gates this release's client-go knows. client-go ignores an override of a gate it does not
   * know (v0.32 has only WatchListClient; v0.34 adds InOrderInformers), so withGates does too.
   */
  knownGates: readonly GateName[];
  /** Gates locked to their default in this release: client-go refuses to change them. */
  lockedGates: Partial<Gates>;
  /**
   * Backoff between ListAndWatch runs (§1.2, §6):
   * - 'fixed-1s': wait.Until with a 1 s period (≤1.17);
   * - 'quiet-reset': ExponentialBackoffManager, resets only after > 2 min without a delay (1.18–v0.35);
   * - 'delay-with-reset': DelayWithReset, resets 2 min after the previous reset (v0.36+).
   */
  backoff: 'fixed-1s' | 'quiet-reset' | 'delay-with-reset';
  /** A refused watch start is missed by the ECONNREFUSED check and relists (≤1.15, PR #81634). */
  refusedWatchRelists: boolean;
  /** 429 at watch start or in the stream re-watches after backoff (v0.22+); before, it relisted. */
  tooManyRequestsRewatches: boolean;
  /** Every list uses RV "0" (≤1.16); otherwise relistResourceVersion() (§1.5). */
  relistAtZero: boolean;
  /**
   * The ≤ v12 pager: continue pages keep the requested RV, and an Expired first page falls back to
   * one unpaginated list (seen against real client-go v12). Later pagers clear the RV on continue
   * pages and only fall back when a continue token expired (§1.5).
   */
  legacyPager: boolean;
  /** TooLarge RV detection on LIST (v0.19+). */
  detectsTooLarge: boolean;
  /** DeltaFIFO.Replace emits Replaced (v0.18+ informers) rather than Sync. */
  replaceEmitsReplaced: boolean;
  /**
   * How the informer decides a notification is a "sync" (§6, PR #86015):
   * - 'delta-type': isSync = delta type is Sync, for adds and updates (≤1.17);
   * - 'rv-equal': updates are syncs iff old and new RV are equal; adds never (v0.24+).
   */
  syncRule: 'delta-type' | 'rv-equal';
  /** DeltaFIFO drops a Sync when the key's last queued delta is Deleted (≤1.16, issue #83810). */
  dropsSyncAfterDelete: boolean;
  /** DeltaFIFO.Replace also tombstones queued-but-unknown keys and unwraps nested tombstones (v0.27+). */
  replaceTombstonesQueuedKeys: boolean;
  /**
   * Virtual ms every utilruntime.HandleError sleeps (v0.32: apimachinery makes a fresh 1 ms
   * rudimentaryErrorBackoff per call, runtime.go ErrorHandlers; other lines share one limiter,
   * which only sleeps for errors < 1 ms apart). Delays the reflector's retry after an error
   * that DefaultWatchErrorHandler reports with HandleError.
   */
  handleErrorSleepMs: number;
  /** DeltaFIFO's first Replace counts list items, duplicate keys included, as the initial population (1.15). */
  initialPopulationCountsListItems: boolean;
  /** OnAdd carries isInInitialList (v0.27+); the notification log omits initialList otherwise. */
  hasInitialListFlag: boolean;
  /** allowWatchBookmarks=true on watches. */
  watchBookmarks: boolean;
  /** InternalError watch retry window exists (v0.25+); informers leave it 0 either way. */
  maxInternalErrorRetryMs: number;
  /** v0.36 RV ordering guard: synthetic ADDs of a watch from ""/"0" do not move the RV (§1.7). */
  rvOrderingGuard: boolean;
  /** v0.36: BOOKMARK RVs go to the store (RealFIFO Bookmark delta). */
  bookmarksToStore: boolean;
  /** v0.36: RealFIFO decrements initialPopulationCount after process (else before). */
  realFifoSyncAfterProcess: boolean;
  /** printf-style (≤v0.32) or structured (v0.33+) log texts. */
  logStyle: 'printf' | 'structured';
  /**
   * Which watch event objects of kind Table (meta.k8s.io v1/v1beta1) handleAnyWatch skips with
   * "Unsupported watch event object gvk" (§1.7): every one ('always', v0.36+), only those streamed
   * before a watch-list's initial-events-end bookmark ('initial-watch-list', v0.34–v0.35), or none
   * ('never', v0.32 and 1.15: the Table is stored like any object).
   */
  skipsTableWatchObjects: 'always' | 'initial-watch-list' | 'never';
  /**
   * A LIST answered with a list of kind Table (meta.k8s.io v1/v1beta1) fails as "unsupported list
   * gvk" (§1.10 row 25) (v0.36+); older lines take its items like any list's.
   */
  rejectsTableLists: boolean;
  /**
   * When the very-short-watch clock (§1.7: < 1 s and no events) starts: before the watch request
   * is sent ('before-request': v0.32, v0.34, v0.36), or once the watch call has returned
   * ('after-open': client-go v12 / Kubernetes 1.15, whose watchHandler takes the start time
   * itself), so there the time the server took to answer does not count.
   */
  veryShortWatchClockStarts: 'before-request' | 'after-open';
  /**
   * Below the reflector (§1.9): the REST client retries a watch request that fails with a
   * probable EOF or a timeout (~10 × 1 s), then hands over an empty, closed watcher and no error
   * (v0.32+). client-go 1.15's Request.Watch does not retry: a connection reset gives the empty
   * watcher at once, a timeout is returned as the error. Read by the ListerWatchers that stand
   * for the REST client (the scripted scenario server), not by the engine.
   */
  restRetriesWatchOpen: boolean;
  /**
   * The informer API of the release: `RemoveEventHandler` (v0.26+), `SetTransform` (v0.22+), and
   * `AddIndexers` after start (allowed since v0.27; 1.15 returns "informer has already started").
   * client-go 1.15 has none of them.
   */
  hasRemoveEventHandler: boolean;
  hasSetTransform: boolean;
  addIndexersAfterStart: boolean;
  /**
   * 1.15's index keeps a value whose last key left as an empty set (thread_safe_store.go
   * deleteFromIndices), so ListIndexFuncValues still lists it; v0.2x+ delete the empty set
   * (kubernetes/kubernetes#84959).
   */
  keepsEmptyIndexSets: boolean;
  /**
   * v0.34+: the watch-list's temporary store gets the FIFO's transformer (reflector.go
   * TransformingStore / WithTransformer), so the initial objects are transformed there and again
   * by the FIFO's Replace — a non-idempotent transform shows it. v0.32 transforms them once.
   */
  watchListStoreTransforms: boolean;
  /**
   * v0.32 with WatchListClient on: the client's List sends an eligible LIST (RV "0" or no limit, not
   * Exact, no continue) as a watch-list WATCH without timeoutSeconds and collects its initial
   * events into the list; on any error it sends the LIST (watchListClient.ts). Gone in v0.34.
   */
  listUsesWatchList: boolean;
}

const base = {
  backoff: 'quiet-reset',
  refusedWatchRelists: false,
  tooManyRequestsRewatches: true,
  relistAtZero: false,
  legacyPager: false,
  detectsTooLarge: true,
  replaceEmitsReplaced: true,
  syncRule: 'rv-equal',
  dropsSyncAfterDelete: false,
  replaceTombstonesQueuedKeys: true,
  initialPopulationCountsListItems: false,
  handleErrorSleepMs: 0,
  hasInitialListFlag: true,
  watchBookmarks: true,
  maxInternalErrorRetryMs: 0,
  rvOrderingGuard: false,
  bookmarksToStore: false,
  realFifoSyncAfterProcess: false,
  logStyle: 'structured',
  skipsTableWatchObjects: 'never',
  rejectsTableLists: false,
  veryShortWatchClockStarts: 'before-request',
  restRetriesWatchOpen: true,
  hasRemoveEventHandler: true,
  hasSetTransform: true,
  addIndexersAfterStart: true,
  keepsEmptyIndexSets: false,
  watchListStoreTransforms: true,
  listUsesWatchList: false,
} as const satisfies Partial<Profile>;

const noGates: Gates = {
  WatchListClient: false,
  InOrderInformers: false,
  AtomicFIFO: false,
  InOrderInformersBatchProcess: false,
  UnlockWhileProcessingFIFO: false,
};

export const PROFILES: readonly Profile[] = [
  {
    ...base,
    name: 'v1.15',
    clientGo: 'v12.0.0',
    kubernetes: '1.15',
    summary:
      'Kubernetes 1.15: DeltaFIFO; a refused watch start relists (the ECONNREFUSED check missed the wrapped os.SyscallError, fixed by PR #81634 in 1.16); Replace emits Sync; fixed 1 s loop; every list at RV "0".',
    gates: { ...noGates },
    knownGates: [],
    lockedGates: {},
    backoff: 'fixed-1s',
    refusedWatchRelists: true,
    tooManyRequestsRewatches: false,
    relistAtZero: true,
    legacyPager: true,
    detectsTooLarge: false,
    replaceEmitsReplaced: false,
    syncRule: 'delta-type',
    dropsSyncAfterDelete: true,
    replaceTombstonesQueuedKeys: false,
    initialPopulationCountsListItems: true,
    hasInitialListFlag: false,
    // client-go v12 sends no allowWatchBookmarks (seen against the real v12 oracle).
    watchBookmarks: false,
    logStyle: 'printf',
    veryShortWatchClockStarts: 'after-open',
    restRetriesWatchOpen: false,
    hasRemoveEventHandler: false,
    hasSetTransform: false,
    addIndexersAfterStart: false,
    keepsEmptyIndexSets: true,
    watchListStoreTransforms: false,
  },
  {
    ...base,
    name: 'v1.32',
    clientGo: 'v0.32',
    kubernetes: '1.32',
    summary: 'client-go v0.32: DeltaFIFO, LIST-based initial sync, backoff that resets after 2 quiet minutes.',
    gates: { ...noGates },
    knownGates: ['WatchListClient'],
    lockedGates: {},
    logStyle: 'printf',
    handleErrorSleepMs: 1,
    watchListStoreTransforms: false,
    listUsesWatchList: true,
  },
  {
    ...base,
    name: 'v1.34',
    clientGo: 'v0.34',
    kubernetes: '1.34',
    summary: 'client-go v0.34: RealFIFO (InOrderInformers, non-atomic), LIST-based initial sync.',
    gates: { ...noGates, InOrderInformers: true },
    knownGates: ['WatchListClient', 'InOrderInformers'],
    lockedGates: {},
    skipsTableWatchObjects: 'initial-watch-list',
  },
  {
    ...base,
    name: 'v1.36',
    clientGo: 'v0.36',
    kubernetes: '1.36',
    summary:
      'client-go v0.36 (default): atomic RealFIFO (ReplacedAll/SyncAll/Bookmark), streaming WatchList initial sync, DelayWithReset backoff, RV ordering guard.',
    gates: {
      WatchListClient: true,
      InOrderInformers: true,
      AtomicFIFO: true,
      InOrderInformersBatchProcess: true,
      UnlockWhileProcessingFIFO: true,
    },
    knownGates: ['WatchListClient', 'InOrderInformers', 'AtomicFIFO', 'InOrderInformersBatchProcess', 'UnlockWhileProcessingFIFO'],
    // InOrderInformers went GA in v0.36.
    lockedGates: { InOrderInformers: true },
    backoff: 'delay-with-reset',
    rvOrderingGuard: true,
    bookmarksToStore: true,
    realFifoSyncAfterProcess: true,
    skipsTableWatchObjects: 'always',
    rejectsTableLists: true,
  },
];

export const DEFAULT_PROFILE = 'v1.36';

export function findProfile(name: string): Profile | undefined {
  return PROFILES.find((p) => p.name === name);
}

/**
 * The profile with gate overrides applied the way client-go applies KUBE_FEATURE_<Gate>: an
 * override of a gate the release does not know, or of a gate locked there, is ignored.
 */
export function withGates(profile: Profile, overrides: Partial<Gates> | undefined): Profile {
  if (!overrides) return profile;
  const gates = { ...profile.gates };
  for (const name of profile.knownGates) {
    const wanted = overrides[name];
    if (wanted !== undefined && !(name in profile.lockedGates)) gates[name] = wanted;
  }
  return { ...profile, gates };
}

