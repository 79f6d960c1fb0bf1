/**
 * Small integer codes for the categories the lanes store in Uint8Arrays. The order of each
 * list is the order of the legend and the stacking order of the bars.
 */
import type { DeltaType, ReflectorState, RelistReason } from '../../src/format/events';

/**
 * The legend order of each category. Each list is the keys of an object that `satisfies` a
 * Record over the vocabulary's union, so a value added to src/format/events.ts (or one removed)
 * does not compile here until it has its place.
 */
function inOrder<K extends string>(order: Record<K, true>): readonly K[] {
  return Object.keys(order) as K[];
}

export const REFLECTOR_STATES = inOrder({ listing: true, 'watch-listing': true, watching: true, backoff: true, stopped: true, denied: true } satisfies Record<ReflectorState, true>);

/** Delta types the delta lane counts (Bookmark deltas are shown as bookmark marks instead). */
export const DELTA_TYPES = inOrder({ Added: true, Updated: true, Deleted: true, Replaced: true, Sync: true, ReplacedAll: true, SyncAll: true } satisfies Record<Exclude<DeltaType, 'Bookmark'>, true>);

export const RELIST_REASONS = inOrder({
  Expired: true,
  Gone: true,
  TooLargeResourceVersion: true,
  InternalError: true,
  DecodeError: true,
  TooManyRequests: true,
  VeryShortWatch: true,
  ConnectionRefused: true,
  ConnectionReset: true,
  Timeout: true,
  ListFailed: true,
  WatchOpenFailed: true,
  ErrorEvent: true,
  UnexpectedObject: true,
  ResyncError: true,
  SyncFailed: true,
  Other: true,
} satisfies Record<RelistReason, true>);

/** Point and span marks of the reflector/informer lane. */
export enum MarkKind {
  List = 0,
  ListError = 1,
  WatchStart = 2,
  WatchEnd = 3,
  Relist = 4,
  Resync = 5,
  Bookmark = 6,
  Fault = 7,
  Consistency = 8,
  Synced = 9,
  RestRetry = 10,
}

/** Handler notification categories (one lane per handler). */
export enum NotifyKind {
  Add = 0,
  Update = 1,
  Delete = 2,
  Sync = 3,
  Identical = 4,
  Tombstone = 5,
}
export const NOTIFY_KIND_COUNT = 6;

export function codeOf<T>(list: readonly T[], value: T): number {
  const i = list.indexOf(value);
  return i < 0 ? list.length : i;
}
