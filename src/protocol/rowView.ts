/**
 * Rows of event columns read without making an event per row: a RowView answers a row's fields
 * as decodeRow's event has them, and eachRowEvent hands a reader every row of a block that way
 * (a row kept whole, EXTRA, as the event it is).
 */
import type { RecordedEvent, UpdateChange } from '../format/events';
import {
  ACCEPTED,
  CHANGES,
  CHANGE_MASK,
  CHANGE_SHIFT,
  EXTRA,
  HAS_INITIAL_EVENTS_END,
  HAS_TOMBSTONE,
  INITIAL_EVENTS_END,
  OPS,
  OP_MASK,
  ROW_CODE,
  ROW_TYPES,
  TOMBSTONE,
  decodeRv,
  type EventColumnArrays,
  type RowType,
  type StringTable,
} from './eventColumns';

const NOTIFY_ROW = ROW_CODE.get('notify')!;
const ENQUEUE_ROW = ROW_CODE.get('fifo.enqueue')!;
const POP_ROW = ROW_CODE.get('fifo.pop')!;
const DISTRIBUTE_ROW = ROW_CODE.get('distribute')!;
const WATCH_EVENT_ROW = ROW_CODE.get('watch.event')!;
const RV_ROW = ROW_CODE.get('rv')!;

/**
 * A row of columns read as the event decodeRow makes of it, one field at a time when asked: no
 * object per row and no string made for a field nobody reads (`at(i)` moves it to row i). For a
 * reader of a few fields of every row, the summary (SummaryModel.add); each getter answers what
 * decodeRow's event has in that field (undefined where it has none), which the unit tests check
 * on every row of the conformance traces. A row kept whole (EXTRA) is not read this way.
 */
export class RowView {
  private i = 0;

  constructor(
    private readonly cols: EventColumnArrays,
    private readonly strings: StringTable,
  ) {}

  /** This view at row i (the same object). */
  at(i: number): this {
    this.i = i;
    return this;
  }

  private get code(): number {
    return this.cols.type[this.i];
  }

  private get flags(): number {
    return this.cols.flags[this.i];
  }

  get seq(): number {
    return this.cols.seq[this.i];
  }

  get t(): number {
    return this.cols.t[this.i];
  }

  get type(): RowType {
    return ROW_TYPES[this.code];
  }

  get key(): string | undefined {
    const code = this.code;
    if (code === RV_ROW) return undefined;
    const key = this.strings.at(this.cols.key[this.i]);
    return code === WATCH_EVENT_ROW ? key : (key ?? '');
  }

  get rv(): string | undefined {
    const code = this.code;
    if (code === POP_ROW) return undefined;
    const rv = decodeRv(this.cols.rv[this.i], this.strings);
    return code === DISTRIBUTE_ROW ? rv : (rv ?? '');
  }

  get op(): string | undefined {
    const code = this.code;
    return code === NOTIFY_ROW || code === DISTRIBUTE_ROW ? OPS[this.flags & OP_MASK] : undefined;
  }

  get change(): UpdateChange | undefined {
    const code = this.code;
    if (code !== NOTIFY_ROW && code !== DISTRIBUTE_ROW) return undefined;
    const change = (this.flags & CHANGE_MASK) >> CHANGE_SHIFT;
    return change ? CHANGES[change - 1] : undefined;
  }

  get tombstone(): boolean | 'replace-known' | 'replace-queued' | undefined {
    const code = this.code;
    const flags = this.flags;
    if (!(flags & HAS_TOMBSTONE)) return undefined;
    if (code === NOTIFY_ROW) return (flags & TOMBSTONE) !== 0;
    if (code === ENQUEUE_ROW) return flags & TOMBSTONE ? 'replace-known' : 'replace-queued';
    return undefined;
  }

  get delta(): string | undefined {
    return this.code === ENQUEUE_ROW ? (this.strings.at(this.cols.name[this.i]) ?? '') : undefined;
  }

  get depthKeys(): number | undefined {
    const code = this.code;
    return code === ENQUEUE_ROW || code === POP_ROW ? this.cols.n1[this.i] : undefined;
  }

  get depthDeltas(): number | undefined {
    const code = this.code;
    return code === ENQUEUE_ROW || code === POP_ROW ? this.cols.n2[this.i] : undefined;
  }

  get eventType(): string | undefined {
    return this.code === WATCH_EVENT_ROW ? (this.strings.at(this.cols.name[this.i]) ?? '') : undefined;
  }

  get accepted(): boolean | undefined {
    return this.code === WATCH_EVENT_ROW ? (this.flags & ACCEPTED) !== 0 : undefined;
  }

  get initialEventsEnd(): boolean | undefined {
    return this.code === WATCH_EVENT_ROW && this.flags & HAS_INITIAL_EVENTS_END ? (this.flags & INITIAL_EVENTS_END) !== 0 : undefined;
  }
}

/** The fields a RowView answers (its getters' names). */
export const ROW_VIEW_FIELDS: readonly string[] = Object.entries(Object.getOwnPropertyDescriptors(RowView.prototype))
  .filter(([name, d]) => d.get !== undefined && name !== 'code' && name !== 'flags')
  .map(([name]) => name);

/**
 * Each of a block's first `count` rows to `add`, through one RowView (valid only during the call)
 * or, for a row kept whole, as the event itself (`extras` in row order).
 */
export function eachRowEvent(cols: EventColumnArrays, strings: StringTable, count: number, extras: readonly RecordedEvent[], add: (e: RecordedEvent) => void): void {
  const view = new RowView(cols, strings);
  for (let i = 0, next = 0; i < count; i++) add(cols.type[i] === EXTRA ? extras[next++] : (view.at(i) as unknown as RecordedEvent));
}
