/**
 * The notification kind a handler lane shows for a notify event (or a notify row of the columns):
 * add, update, identical update, sync, delete, tombstone.
 */
import type { RecordedEvent } from '../../src/format/events';
import { CHANGE_MASK, CHANGE_SHIFT, CHANGES, IS_SYNC, OP_MASK, OPS } from '../../src/protocol/eventColumns';
import { NotifyKind } from './codes';

const IDENTICAL_BITS = (CHANGES.indexOf('identical') + 1) << CHANGE_SHIFT;

/** notifyKind of a notify row. */
export function rowNotifyKind(flags: number, tombstone: boolean): NotifyKind {
  const op = OPS[flags & OP_MASK];
  const isSync = (flags & IS_SYNC) !== 0;
  if (op === 'delete') return tombstone ? NotifyKind.Tombstone : NotifyKind.Delete;
  if (op === 'add') return isSync ? NotifyKind.Sync : NotifyKind.Add;
  if ((flags & CHANGE_MASK) === IDENTICAL_BITS) return NotifyKind.Identical;
  return isSync ? NotifyKind.Sync : NotifyKind.Update;
}

export function notifyKind(e: Extract<RecordedEvent, { type: 'notify' }>): NotifyKind {
  if (e.op === 'delete') return e.tombstone ? NotifyKind.Tombstone : NotifyKind.Delete;
  if (e.op === 'add') return e.isSync ? NotifyKind.Sync : NotifyKind.Add;
  if (e.change === 'identical') return NotifyKind.Identical;
  return e.isSync ? NotifyKind.Sync : NotifyKind.Update;
}
