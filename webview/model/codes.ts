/**
 * Small integer codes for the categories the lanes store in Uint8Arrays. The order of each
 * list is the order of the legend and the stacking order of the bars.
 */
import type { DeltaType, ReflectorState, RelistReason } from '../../src/format/events';

export const REFLECTOR_STATES: readonly ReflectorState[] = ['listing', 'watch-listing', 'watching', 'backoff', 'stopped', 'denied'];

/** Delta types the delta lane counts (Bookmark deltas are shown as bookmark marks instead). */
export const DELTA_TYPES: readonly DeltaType[] = ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync', 'ReplacedAll', 'SyncAll'];

export const RELIST_REASONS: readonly RelistReason[] = [
  'Expired',
  'Gone',
  'TooLargeResourceVersion',
  'InternalError',
  'DecodeError',
  'TooManyRequests',
  'VeryShortWatch',
  'ConnectionRefused',
  'ConnectionReset',
  'Timeout',
  'ListFailed',
  'WatchOpenFailed',
  'ErrorEvent',
  'UnexpectedObject',
  'ResyncError',
  'SyncFailed',
  'Other',
];

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
}
export const MARK_KIND_COUNT = 10;

export const MARK_LABELS: Record<MarkKind, string> = {
  [MarkKind.List]: 'list',
  [MarkKind.ListError]: 'list error',
  [MarkKind.WatchStart]: 'watch start',
  [MarkKind.WatchEnd]: 'watch end',
  [MarkKind.Relist]: 'RELIST',
  [MarkKind.Resync]: 'resync',
  [MarkKind.Bookmark]: 'bookmark',
  [MarkKind.Fault]: 'fault',
  [MarkKind.Consistency]: 'consistency check',
  [MarkKind.Synced]: 'synced',
};

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
export const NOTIFY_LABELS: readonly string[] = ['add', 'update', 'delete', 'sync', 'identical update', 'tombstone delete'];

export function codeOf<T>(list: readonly T[], value: T): number {
  const i = list.indexOf(value);
  return i < 0 ? list.length : i;
}
